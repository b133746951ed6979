"""Broken files through the real ingest: a file that breaks after some of its batches were already
staged as data files leaves the warehouse as it was (no table commits them, maintenance removes them,
the file is logged failed); a compressed file cut short is failed, never half in; a line the
reader cannot make a row of is quarantined and its neighbours go in; and a file's columns can
neither change its kind nor spoof what the pipeline adds."""

import codecs
import gzip
import json
from functools import cache
from pathlib import Path

import duckdb
import polars as pl
import pytest
import zstandard

from models.logs import read, streams
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.warehouse import iceberg
from models.warehouse.iceberg import Settings, Tables
from models.warehouse.ingest import ingest
from models.warehouse.store import writer


@cache
def chunk():
    """Six simulated shoes' rounds and bets, dealt when a test first asks (not at collection)."""
    return next(simulate(Simulation(shoes=6, decks=8, seed=9)))


def _rounds() -> pl.DataFrame:
    return chunk().rounds.with_columns(pl.col("started_at").dt.to_string("%Y-%m-%dT%H:%M:%S%.6f%:z"))


def _counts(db: Path) -> tuple[int, int, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rounds = con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0]
        shoes = con.sql("SELECT count(*) FROM core.shoes").fetchall()[0][0]
        log = con.sql("SELECT path, status, rows_accepted FROM meta.ingest_log ORDER BY ALL").fetchall()
    finally:
        con.close()
    return rounds, shoes, log


def _committed(tables: Tables) -> set[Path]:
    """The data files of every table at the warehouse's commit."""
    point = tables.commit_point()
    return {Path(iceberg.local_path(location)) for name in point for location, _ in tables.files(name, point[name])}


def _serving(tmp_path: Path, sql: str, db: str = "banco") -> list[tuple]:
    con = duckdb.connect(str(tmp_path / f"{db}.serving.duckdb"), read_only=True)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


@pytest.mark.slow
def test_a_file_breaking_after_batches_went_in_is_rolled_back_and_logged(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 1000)  # many batches: several are staged before the break
    landing = tmp_path / "landing"
    landing.mkdir()
    chunk = next(simulate(Simulation(shoes=60, decks=8, seed=9)))
    chunk.rounds.write_csv(landing / "a_rounds.csv")
    bets = chunk.bets.cast(pl.String)
    text = bets.write_ndjson().encode()
    assert len(text) > 2 * streams.BLOCK  # its kind is read from its first block, before the cut
    data = gzip.compress(text)
    broken = landing / "b_bets.jsonl.gz"
    broken.write_bytes(data[: len(data) * 9 // 10])  # the gzip stream ends before its trailer
    db = tmp_path / "banco.duckdb"

    results = ingest(db, [landing])

    assert [(r.kind, r.status) for r in results] == [("rounds", "ok"), ("bets", "failed")]
    assert "end-of-stream marker" in results[1].error and results[1].rows_read == 0
    rounds, _, log = _counts(db)
    assert rounds == results[0].accepted == chunk.rounds.height
    assert [(Path(path).name, status) for path, status, _ in log] == [
        ("a_rounds.csv", "ok"),
        ("b_bets.jsonl.gz", "failed"),
    ]
    assert duckdb.connect(str(db), read_only=True).sql("SELECT count(*) FROM core.bets").fetchall() == [(0,)]
    tables = Tables.open(db)
    assert tables.table("core.bets").inspect.all_files().num_rows == 0  # no snapshot ever named its files
    staged = set(Settings.of(db).local_folder.glob("*/bets/data/*.parquet"))
    assert staged and not staged & _committed(tables)  # staged, then left for maintenance
    monkeypatch.setenv("BANCO_SNAPSHOT_RETENTION_HOURS", "0")
    with writer(db) as w:  # once past the retention, the next writer's maintenance removes them
        w.maintain()
    assert set(Settings.of(db).local_folder.rglob("*.parquet")) == _committed(Tables.open(db))
    monkeypatch.delenv("BANCO_SNAPSHOT_RETENTION_HOURS")

    broken.write_bytes(data)  # repaired: it goes in whole
    (again,) = [r for r in ingest(db, [broken]) if r.status != "skipped"]
    assert again.status == "ok" and again.rows_read == bets.height, again.error


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
    quarantined = _serving(tmp_path, "SELECT line_no, detail, raw FROM quarantine.rounds")
    assert quarantined == [(151, f"{len(rounds.columns) + 1} fields where the header has {len(rounds.columns)}",
                            text[150])]  # fmt: skip
    assert _serving(tmp_path, "SELECT min(line_no), max(line_no), count(*) FROM core.rounds") == [(2, 251, 249)]


def test_a_csv_of_lone_carriage_returns_goes_in_whole_and_a_rerun_skips_it(tmp_path):
    rounds = _rounds()
    path = tmp_path / "rounds.csv"
    path.write_bytes(rounds.write_csv().replace("\n", "\r").encode())
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert (result.status, result.rows_read, result.accepted) == ("ok", rounds.height, rounds.height)
    (again,) = ingest(tmp_path / "banco.duckdb", [path])
    assert again.status == "skipped" and _counts(tmp_path / "banco.duckdb")[0] == rounds.height


@pytest.mark.parametrize("kept", [0.5, 0.75, 0.99])
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_zstd_file_cut_short_is_logged_failed_and_nothing_of_it_stays(tmp_path, fmt, kept):
    rounds = _rounds()
    data = rounds.write_ndjson() if fmt == "jsonl" else rounds.write_csv()
    packed = zstandard.ZstdCompressor(write_checksum=True).compress(data.encode())
    path = tmp_path / f"rounds.{fmt}.zst"
    path.write_bytes(packed[: int(len(packed) * kept)])
    db = tmp_path / "banco.duckdb"
    (result,) = ingest(db, [path])
    assert result.status == "failed" and "truncated" in result.error and result.rows_read == 0
    assert _counts(db) == (0, 0, [(str(path), "failed", 0)])
    path.write_bytes(packed)
    (again,) = ingest(db, [path])
    assert (again.status, again.accepted) == ("ok", rounds.height)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_a_gzip_file_cut_short_is_logged_failed(tmp_path, fmt):
    rounds = _rounds()
    data = gzip.compress((rounds.write_ndjson() if fmt == "jsonl" else rounds.write_csv()).encode())
    path = tmp_path / f"rounds.{fmt}.gz"
    path.write_bytes(data[: len(data) * 2 // 3])
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert result.status == "failed" and "end-of-stream marker" in result.error
    assert _counts(tmp_path / "banco.duckdb") == (0, 0, [(str(path), "failed", 0)])


def test_a_json_line_nested_too_deep_is_quarantined_and_the_file_beside_it_goes_in(tmp_path):
    rounds = _rounds()
    lines = [json.dumps(row) for row in rounds.head(10).iter_rows(named=True)]
    lines[4] = '{"table_id": "T9", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"  # past Python's recursion limit
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "a_deep.jsonl").write_text("\n".join(lines) + "\n")
    rounds.slice(10).write_ndjson(landing / "b_good.jsonl")
    results = ingest(tmp_path / "banco.duckdb", [landing])
    assert [(r.status, r.rows_read) for r in results] == [("ok", 10), ("ok", rounds.height - 10)]
    assert dict(results[0].quarantined) == {"bad_type": 1} and results[0].accepted == 9
    assert _serving(tmp_path, "SELECT line_no, reason, detail FROM quarantine.rounds") == [
        (5, "bad_type", "nested too deeply to read")
    ]


def test_a_json_line_not_utf8_is_quarantined_and_its_neighbours_go_in(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 40)  # the line comes after batches already read
    rounds = _rounds().head(300)
    lines = [json.dumps(row).encode() for row in rounds.iter_rows(named=True)]
    lines[200] = lines[200].replace(b'"dealer_id": "', b'"dealer_id": "\xff\xfe')
    path = tmp_path / "rounds.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert (result.status, result.rows_read, result.accepted, dict(result.quarantined)) == (
        "ok",
        300,
        299,
        {"bad_type": 1},
    )
    ((line, detail, raw),) = _serving(tmp_path, "SELECT line_no, detail, raw FROM quarantine.rounds")
    assert (line, detail) == (201, "not UTF-8") and '"dealer_id": "\\xff\\xfe' in raw


def test_a_csv_line_not_utf8_is_quarantined_and_its_neighbours_go_in(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 100)  # the line comes after batches already read
    rounds = _rounds().head(250)
    lines = rounds.write_csv().encode().splitlines()
    lines[150] = lines[150].replace(b",D", b",\xffD", 1)  # the dealer of line 151
    path = tmp_path / "rounds.csv"
    path.write_bytes(b"\n".join(lines) + b"\n")
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert (result.status, result.rows_read, dict(result.quarantined)) == ("ok", 250, {"bad_type": 1})
    assert result.accepted + result.duplicates == 249
    ((line, detail, raw),) = _serving(tmp_path, "SELECT line_no, detail, raw FROM quarantine.rounds")
    assert (line, detail) == (151, "not UTF-8") and ",\\xffD" in raw
    assert _serving(tmp_path, "SELECT min(line_no), max(line_no), count(*) FROM core.rounds") == [(2, 251, 249)]


def test_a_byte_order_mark_on_json_lines_quarantines_nothing(tmp_path):
    rounds = _rounds()
    path = tmp_path / "rounds.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(codecs.BOM_UTF8 + rounds.write_ndjson().encode()))
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert (result.status, result.accepted, sum(result.quarantined.values())) == ("ok", rounds.height, 0)


def test_a_quoted_header_naming_bet_is_still_a_rounds_file(tmp_path):
    rounds = _rounds().with_columns(pl.lit("x").alias("x,bet"))
    path = tmp_path / "rounds.csv"
    rounds.write_csv(path)
    assert path.read_text().startswith("table_id,") and '"x,bet"' in path.read_text().splitlines()[0]
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert (result.kind, result.status, result.accepted) == ("rounds", "ok", rounds.height)


@pytest.mark.parametrize("first", ["a blank line", "a bet lacking its bet"])
def test_a_bets_file_of_json_lines_is_read_as_bets_whatever_its_first_line(tmp_path, first):
    landing = tmp_path / "landing"
    landing.mkdir()
    _rounds().write_csv(landing / "rounds.csv")
    bets = [json.dumps(row) for row in chunk().bets.cast(pl.String).iter_rows(named=True)]
    lines = ["", *bets] if first == "a blank line" else [json.dumps({"table_id": "T01", "seat": "1"}), *bets]
    (landing / "bets.jsonl").write_text("\n".join(lines) + "\n")
    _, placed = ingest(tmp_path / "banco.duckdb", [landing])
    assert (placed.kind, placed.status, placed.accepted) == ("bets", "ok", len(bets))
    expected = {} if first == "a blank line" else {"missing_field": 1}
    assert dict(placed.quarantined) == expected and placed.rows_read == len(lines) - (first == "a blank line")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_input_columns_cannot_spoof_quarantine_details_or_line_numbers(tmp_path, fmt):
    rounds = _rounds().head(20).with_columns(
        _unparsed=pl.lit("spoofed text"), _unparsed_detail=pl.lit("spoofed detail"), _line=pl.lit("999"),
        _game=pl.lit("1"), _shoe=pl.lit("x"),
    )  # fmt: skip
    rounds = rounds.with_columns(
        pl.when(pl.int_range(20) == 3).then(pl.lit("9H XX")).otherwise("player_cards").alias("player_cards")
    )
    path = tmp_path / f"rounds.{fmt}"
    {"csv": rounds.write_csv, "jsonl": rounds.write_ndjson, "parquet": rounds.write_parquet}[fmt](path)
    (result,) = ingest(tmp_path / "banco.duckdb", [path])
    assert (result.status, result.accepted, dict(result.quarantined)) == ("ok", 19, {"bad_card": 1})
    ((line, detail, raw),) = _serving(tmp_path, "SELECT line_no, detail, raw FROM quarantine.rounds")
    first = 2 if fmt == "csv" else 1
    assert (line, detail) == (first + 3, "bad card token 'XX' in player_cards") and "spoofed" not in raw
    lines = _serving(tmp_path, "SELECT min(line_no), max(line_no) FROM core.rounds")
    assert lines == [(first, first + 19)]


def test_extra_bet_columns_named_like_what_settlement_joins_in_change_nothing(tmp_path):
    landing = tmp_path / "landing"
    landing.mkdir()
    _rounds().write_csv(landing / "rounds.csv")
    bets = chunk().bets.cast(pl.String)
    spoofs = {"game": "super6", "decks": "1", "outcome": "T", "has_cards": "false", "player_total": "9",
              "net_unit": "100", "commission_unit": "0", "edge": "0.9", "cell": "1", "pair": "true",
              "house_net": "-1", "commission": "7", "theo": "5"}  # fmt: skip
    bets.with_columns(**{name: pl.lit(value) for name, value in spoofs.items()}).write_csv(landing / "bets.csv")
    _, placed = ingest(tmp_path / "banco.duckdb", [landing])
    assert (placed.status, placed.accepted, sum(placed.quarantined.values())) == ("ok", bets.height, 0), placed.error
    clean = tmp_path / "clean"
    clean.mkdir()
    _rounds().write_csv(clean / "rounds.csv")
    bets.write_csv(clean / "bets.csv")
    ingest(tmp_path / "clean.duckdb", [clean])
    settled = "SELECT seat, bet, amount, payout, house_net, commission, theo FROM core.bets ORDER BY ALL"
    assert _serving(tmp_path, settled) == _serving(tmp_path, settled, db="clean")


@pytest.mark.parametrize("document", ["pretty", "array"])
def test_a_json_document_named_json_fails_whole_and_the_file_beside_it_goes_in(tmp_path, document):
    rounds = _rounds()
    records = list(rounds.head(5).iter_rows(named=True))
    landing = tmp_path / "landing"
    landing.mkdir()
    text = json.dumps({"rounds": records}, indent=1) if document == "pretty" else json.dumps(records)
    (landing / "a_document.json").write_text(text + "\n")
    rounds.write_ndjson(landing / "b_good.jsonl")
    results = ingest(tmp_path / "banco.duckdb", [landing])
    assert [(r.status, r.rows_read) for r in results] == [("failed", 0), ("ok", rounds.height)]
    assert (
        results[0].error
        == "cannot read a_document.json as jsonl: it is one JSON document, not JSON Lines (one object a line)"
    )
    assert _serving(tmp_path, "SELECT count(*) FROM quarantine.rounds") == [(0,)]


def test_a_json_lines_file_whose_first_line_is_broken_quarantines_that_line_only(tmp_path):
    rounds = _rounds().head(10)
    lines = ["{not json at all", *(json.dumps(row) for row in rounds.iter_rows(named=True))]
    (tmp_path / "rounds.jsonl").write_text("\n".join(lines) + "\n")
    (result,) = ingest(tmp_path / "banco.duckdb", [tmp_path / "rounds.jsonl"])
    assert (result.status, result.rows_read, result.accepted, dict(result.quarantined)) == (
        "ok",
        11,
        10,
        {"bad_type": 1},
    )
