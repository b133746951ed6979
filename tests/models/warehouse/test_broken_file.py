"""A file that breaks after some of its batches were already written to the lake leaves the
warehouse as it was: those lake files are removed and the file's transaction rolled back."""

import json
from pathlib import Path

import duckdb
import polars as pl

from models.logs import read
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.warehouse import lake
from models.warehouse.ingest import ingest


def _rounds() -> pl.DataFrame:
    rounds = next(simulate(Simulation(shoes=6, decks=8, seed=9, bets=False))).rounds
    return rounds.with_columns(pl.col("started_at").dt.to_string("%Y-%m-%dT%H:%M:%S%.6f%:z"))


def _counts(db: Path) -> tuple[int, int, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rounds = con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0]
        shoes = con.sql("SELECT count(*) FROM core.shoes").fetchall()[0][0]
        log = con.sql("SELECT path, status, rows_accepted FROM meta.ingest_log ORDER BY ALL").fetchall()
    finally:
        con.close()
    return rounds, shoes, log


def test_a_file_breaking_after_batches_went_in_is_rolled_back_and_logged(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 40)  # many batches: several are in the lake before the break
    rows = _rounds()
    first, second = rows.head(100), rows.slice(100)
    good = tmp_path / "landing" / "a_first.jsonl"
    good.parent.mkdir()
    first.write_ndjson(good)
    broken = tmp_path / "landing" / "b_broken.jsonl"
    lines = [json.dumps(row) for row in second.iter_rows(named=True)]
    broken.write_bytes(("\n".join(lines[:200]) + "\n").encode() + b"\xff\xfe not utf-8\n")
    db = tmp_path / "banco.duckdb"

    results = ingest(db, [good.parent])

    assert [r.status for r in results] == ["ok", "failed"]
    assert "utf-8" in results[1].error.lower()
    rounds, shoes, log = _counts(db)
    assert rows.height > 400 and results[1].rows_read == 0
    assert rounds == results[0].accepted == 100 and shoes == first.select("table_id", "shoe_id").n_unique()
    assert [(Path(path).name, status) for path, status, _ in log] == [
        ("a_first.jsonl", "ok"),
        ("b_broken.jsonl", "failed"),
    ]
    listed = duckdb.connect(str(db), read_only=True).sql("SELECT count(*) FROM meta.lake_files").fetchall()[0][0]
    assert len(list(lake.folder(db).rglob("*.parquet"))) == listed  # nothing of the broken file stays

    broken.write_text("\n".join(lines) + "\n")  # repaired: it goes in whole
    (again,) = [r for r in ingest(db, [broken]) if r.status != "skipped"]
    assert again.status == "ok" and again.accepted == len(lines), again.error
    assert _counts(db)[0] == rows.height


def test_a_csv_line_with_too_many_fields_is_quarantined_and_the_file_goes_in(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 100)  # the line comes after batches already read
    rounds = _rounds().head(250)
    text = rounds.write_csv().splitlines()
    text[150] += ",a stray field"  # line 151 of the file
    path = tmp_path / "rounds.csv"
    path.write_text("\n".join(text) + "\n")
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert result.status == "ok" and result.rows_read == 250
    assert result.accepted + result.duplicates == 249 and dict(result.quarantined) == {"bad_type": 1}
    con = duckdb.connect(str(tmp_path / "banco.serving.duckdb"), read_only=True)
    quarantined = con.sql("SELECT line_no, detail, raw FROM quarantine.rounds").fetchall()
    assert quarantined == [(151, f"{len(rounds.columns) + 1} fields where the header has {len(rounds.columns)}",
                            text[150])]  # fmt: skip
    lines = con.sql("SELECT min(line_no), max(line_no), count(*) FROM core.rounds").fetchall()
    assert lines == [(2, 251, 249)]
