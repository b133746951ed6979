"""The lake under core.rounds and core.bets: migration, crash leftovers, moving the warehouse."""

import datetime as dt
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pyarrow.parquet as pq

from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.warehouse import lake, schema
from models.warehouse.ingest import SPLIT_ROWS, ingest
from models.warehouse.store import WRITE, read, refusal, write

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"


def counts(db: Path) -> tuple[int, int]:
    con = read(db)
    try:
        return con.sql("SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets)").fetchall()[0]
    finally:
        con.close()


def test_a_warehouse_with_the_tables_inside_moves_them_to_the_lake(tmp_path):
    db = tmp_path / "banco.duckdb"
    ingest(db, [SAMPLES])
    before = counts(db)
    rows = read(db).sql("SELECT * FROM core.rounds ORDER BY source_file, line_no").pl()
    # as an older release left it: core.rounds a table in the file, and no lake
    shutil.rmtree(lake.folder(db))
    con = duckdb.connect(str(db))
    con.execute("DROP VIEW core.rounds; DROP VIEW core.bets; DELETE FROM meta.lake_files")
    con.execute(f"CREATE TABLE core.rounds ({schema.CORE_ROUNDS_COLUMNS})")
    con.register("old", rows)
    con.execute("INSERT INTO core.rounds SELECT * FROM old")
    con.close()
    with write(db):
        pass
    assert counts(db) == (before[0], 0)
    con = read(db)
    assert con.sql(
        "SELECT table_type FROM information_schema.tables WHERE table_schema = 'core' AND table_name = 'rounds'"
    ).fetchall() == [("VIEW",)]
    again = con.sql("SELECT * FROM core.rounds ORDER BY source_file, line_no").pl()
    assert again.equals(rows) and again.schema == rows.schema
    assert len(list((lake.folder(db) / "core" / "rounds").glob("*.parquet"))) == 1


def test_files_no_view_lists_are_removed_by_the_next_writer(tmp_path):
    db = tmp_path / "banco.duckdb"
    ingest(db, [SAMPLES])
    kept = sorted(lake.folder(db).rglob("*.parquet"))
    stray = lake.folder(db) / "core" / "rounds" / "left-by-a-crash.parquet"
    shutil.copyfile(kept[0], stray)
    with write(db):
        pass
    assert sorted(lake.folder(db).rglob("*.parquet")) == kept


def test_a_warehouse_moved_with_its_lake_is_read_where_it_is_after_a_writer_opens_it(tmp_path):
    db = tmp_path / "old" / "banco.duckdb"
    ingest(db, [SAMPLES])
    before = counts(db)
    moved = tmp_path / "new" / "banco.duckdb"
    shutil.move(db.parent, moved.parent)
    with write(moved):
        pass
    assert counts(moved) == before


def test_statements_that_write_are_told_apart():
    written = ("DELETE FROM core.rounds", "INSERT INTO t VALUES (1)", "CREATE TABLE t (a INT)")
    assert all(refusal(sql, "x") == WRITE.format(where="x") for sql in written)
    assert not any(refusal(sql, "x") for sql in ("SELECT 1", "WITH a AS (SELECT 1) SELECT * FROM a", "FROM range(3)"))


def test_small_files_are_merged_and_their_parts_removed_a_day_later(tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    monkeypatch.setattr(lake, "MERGE_AT", 2)
    ingest(db, [SAMPLES])  # several small files a table: merged at the end of the ingest
    con = read(db)
    rows = con.sql("SELECT * FROM core.rounds ORDER BY source_file, line_no").pl()
    files = con.sql("SELECT table_name, path, retired_at FROM meta.lake_files").pl()
    con.close()
    live = files.filter(pl.col("retired_at").is_null())
    assert live["table_name"].sort().to_list() == ["core.bets", "core.rounds"]  # one file a table
    retired = files.filter(pl.col("retired_at").is_not_null())
    assert retired.height >= 2 and all((lake.folder(db) / path).exists() for path in retired["path"])
    with write(db):  # the next writer keeps the parts: a reader's snapshot may still name them
        pass
    assert all((lake.folder(db) / path).exists() for path in retired["path"])
    monkeypatch.setattr(lake, "RETIRED_FOR", dt.timedelta(0))
    with write(db):
        pass
    assert not any((lake.folder(db) / path).exists() for path in retired["path"])
    after = read(db).sql("SELECT * FROM core.rounds ORDER BY source_file, line_no").pl()
    assert after.equals(rows) and sorted(lake.folder(db).rglob("*.parquet")) == sorted(
        lake.folder(db) / path for path in live["path"]
    )


def test_a_warehouse_named_by_a_relative_path_is_read_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ingest(Path("wh/banco.duckdb"), [SAMPLES])
    before = counts(tmp_path / "wh" / "banco.duckdb")
    monkeypatch.chdir(tmp_path.parent)
    assert counts(tmp_path / "wh" / "banco.duckdb") == before


def test_a_folder_ingest_passes_over_a_warehouse_lake_inside_it(tmp_path):
    shutil.copy(SAMPLES / "01_rounds_suited.csv", tmp_path)
    db = tmp_path / "warehouse" / "banco.duckdb"  # the warehouse inside the folder ingested
    (first,) = ingest(db, [tmp_path])
    assert first.status == "ok" and list(lake.folder(db).rglob("*.parquet"))
    (again,) = ingest(db, [tmp_path])  # its lake files are rows already stored, not round logs
    assert again.status == "skipped" and counts(db)[0] == first.accepted
    assert lake.is_lake(lake.folder(db)) and not lake.is_lake(tmp_path)
    logs = tmp_path / "2026.lake"  # a folder of logs that only looks like a lake
    logs.mkdir()
    shutil.copy(SAMPLES / "03_rounds_value_only.jsonl", logs)
    (tmp_path / "2026.csv").write_text("")
    assert not lake.is_lake(logs)


def test_lake_files_an_earlier_release_wrote_read_as_one_table_with_new_ones(tmp_path):
    """Files Polars wrote (zstd, its Arrow schema inside) beside files Arrow writes now (LZ4,
    required columns, no schema): the view and the marts' own scan read them alike."""
    rounds = next(simulate(Simulation(shoes=4, tables=2, seed=9, bets=False))).rounds
    first, second = tmp_path / "first.parquet", tmp_path / "second.parquet"
    rounds.filter(pl.col("table_id") == rounds["table_id"][0]).write_parquet(first)
    rounds.filter(pl.col("table_id") != rounds["table_id"][0]).write_parquet(second)
    db = tmp_path / "banco.duckdb"
    ingest(db, [first])
    for written in lake.folder(db).rglob("*.parquet"):
        earlier = pl.read_parquet(written)
        lake.conform("core.rounds", earlier).write_parquet(written, compression="zstd", statistics=True)
    ingest(db, [second])
    with write(db) as con:
        scanned = lake.scan(con, db, "core.rounds").collect()
    viewed = read(db).sql("SELECT * FROM core.rounds").pl()
    viewed = viewed.with_columns(pl.col("started_at", "ingested_at").dt.convert_time_zone("UTC"))  # DuckDB's Etc/UTC
    assert scanned.height == viewed.height == rounds.height
    assert scanned.schema == lake.frame_schema("core.rounds")
    assert viewed.sort("source_file", "line_no").equals(scanned.sort("source_file", "line_no"))


def test_a_files_large_last_batch_is_written_as_two_lake_files_and_read_whole(tmp_path):
    rounds = pl.concat(chunk.rounds for chunk in simulate(Simulation(shoes=1_400, tables=20, seed=4, bets=False)))
    assert rounds.height >= SPLIT_ROWS
    rounds.write_parquet(tmp_path / "night.parquet")
    db = tmp_path / "banco.duckdb"
    (result,) = ingest(db, [tmp_path / "night.parquet"])
    files = sorted((lake.folder(db) / "core" / "rounds").glob("*.parquet"))
    assert result.accepted == rounds.height and len(files) == 2
    halves = sorted(pq.read_metadata(path).num_rows for path in files)
    assert halves == [(rounds.height - 1) // 2, rounds.height // 2 + 1]
    stored = read(db).sql("SELECT line_no FROM core.rounds ORDER BY line_no").pl()
    assert stored["line_no"].to_list() == list(range(1, rounds.height + 1))


def test_a_column_null_in_one_file_and_never_in_another_reads_alike(tmp_path):
    """A batch's column without nulls is written as required, another batch's with nulls as
    optional: the view and the marts' scan read both files, nulls where they were."""
    rounds = next(simulate(Simulation(shoes=4, tables=2, seed=5, bets=False))).rounds
    in_first = pl.col("shoe_id") == rounds["shoe_id"][0]
    rounds.filter(in_first).write_parquet(tmp_path / "a.parquet")
    second = rounds.filter(~in_first).with_columns(dealer_id=pl.when(pl.col("round_no") % 2 == 0).then("dealer_id"))
    second.write_parquet(tmp_path / "b.parquet")
    db = tmp_path / "banco.duckdb"
    assert all(result.status == "ok" for result in ingest(db, [tmp_path / "a.parquet", tmp_path / "b.parquet"]))
    query = "SELECT count(*), count(dealer_id) FROM core.rounds GROUP BY source_file ORDER BY source_file"
    first = rounds.height - second.height
    assert read(db).sql(query).fetchall() == [(first, first), (second.height, second["dealer_id"].count())]
    with write(db) as con:
        scanned = lake.scan(con, db, "core.rounds").collect()
    assert scanned.schema == lake.frame_schema("core.rounds")
    assert scanned["dealer_id"].null_count() == second["dealer_id"].null_count() > 0
