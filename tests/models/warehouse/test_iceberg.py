"""The warehouse on Iceberg tables: a folder ingest passes over them, compaction and expiry keep every
file a live snapshot names, a writer stopped between two table commits is rolled back by the next,
the log's commit names every table's snapshot, and DuckDB, Polars and pyiceberg read the same rows."""

import datetime as dt
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

from models.logs import read as log_read
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.simulate.run import write_simulation
from models.warehouse import files, iceberg, maintenance, reader, schema, store, views
from models.warehouse.columns import frame_schema
from models.warehouse.iceberg import BY_KEY, TABLES_KEY, Settings, Tables
from models.warehouse.ingest import ingest
from models.warehouse.schema import CORE_BETS, CORE_ROUNDS, CORE_SHOES, INGEST_LOG, TABLES
from models.warehouse.store import WRITE, read, refusal, serving_path

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"
#: What a warehouse holds, table by table, as its views read it.
HELD = (
    "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets), (SELECT count(*) FROM core.shoes),"
    " (SELECT count(*) FROM quarantine.rounds), (SELECT count(*) FROM quarantine.bets),"
    " (SELECT count(*) FROM meta.ingest_log WHERE status = 'ok'), (SELECT sum(round_no) FROM core.rounds),"
    " (SELECT sum(amount) FROM core.bets)"
)


def held(db: Path) -> tuple:
    con = read(db)
    try:
        return con.execute(HELD).fetchone()
    finally:
        con.close()


def counts(db: Path) -> tuple[int, int]:
    return held(db)[:2]


def on_disk(db: Path) -> set[Path]:
    """Every file in the warehouse's folder of tables."""
    return {path for path in Settings.of(db).local_folder.rglob("*") if path.is_file()}


def named_by_kept_snapshots(tables: Tables) -> tuple[set[Path], set[Path]]:
    """(the data files, manifests and manifest lists every kept snapshot of every table names, the
    metadata files the tables' logs name), read through pyiceberg's own inspection tables."""
    named, metadata = set(), set()
    for name in TABLES:
        inspect = tables.table(name).inspect
        named |= set(inspect.all_files().column("file_path").to_pylist())
        named |= set(inspect.all_manifests().column("path").to_pylist())
        named |= set(inspect.snapshots().column("manifest_list").to_pylist())
        metadata |= set(inspect.metadata_log_entries().column("file").to_pylist())
    return {Path(iceberg.local_path(f)) for f in named}, {Path(iceberg.local_path(f)) for f in metadata}


def commit_files(tables: Tables) -> set[Path]:
    """The data files of every table at the warehouse's commit."""
    point = tables.commit_point()
    return {Path(iceberg.local_path(location)) for name in point for location, _ in tables.files(name, point[name])}


def rows_of(db: Path, table: str) -> pl.DataFrame:
    con = read(db)
    try:
        return con.sql(f"SELECT * FROM {table} ORDER BY source_file, line_no").pl()
    finally:
        con.close()


def landing(tmp_path: Path) -> Path:
    """Simulated logs of every kind: a few rounds and bets files."""
    folder = tmp_path / "landing"
    write_simulation(Simulation(shoes=12, tables=3, shoes_per_day=2, seed=21), folder, misdeal_rate=0.02)
    return folder


def test_a_folder_ingest_passes_over_a_warehouses_tables_inside_it(tmp_path):
    shutil.copy(SAMPLES / "01_rounds_suited.csv", tmp_path)
    db = tmp_path / "warehouse" / "banco.duckdb"  # the warehouse inside the folder ingested
    folder = Settings.of(db).local_folder
    (first,) = ingest(db, [tmp_path])
    assert first.status == "ok" and list(folder.rglob("*.parquet")) and folder == db.with_name("banco.iceberg")
    (again,) = ingest(db, [tmp_path])  # its data files are rows already stored, not round logs
    assert again.status == "skipped" and counts(db)[0] == first.accepted
    assert iceberg.is_table_folder(folder) and not iceberg.is_table_folder(tmp_path)
    logs = tmp_path / "2026.iceberg"  # a folder of logs that only looks like one of tables
    logs.mkdir()
    shutil.copy(SAMPLES / "03_rounds_value_only.jsonl", logs)
    assert not iceberg.is_table_folder(logs)
    assert [result.path.name for result in ingest(db, [tmp_path]) if result.status == "ok"] == [
        "03_rounds_value_only.jsonl"
    ]


@pytest.mark.slow
def test_the_log_commit_names_every_tables_current_snapshot_and_the_views_read_them(tmp_path):
    db = tmp_path / "banco.duckdb"
    ingest(db, [SAMPLES])
    tables = Tables.open(db)
    point = tables.commit_point()
    assert set(point) == set(TABLES)
    assert all(point[name] == tables.snapshot_id(name) for name in TABLES)
    summary = tables.table(INGEST_LOG).current_snapshot().summary.additional_properties
    assert TABLES_KEY in summary and summary[BY_KEY]
    con = read(db)
    try:
        pointed = con.sql(f"SELECT table_name, snapshot_id, rows, locations FROM {schema.SNAPSHOTS}").fetchall()
        for name, snapshot_id, rows, locations in pointed:
            listed = tables.files(name, point[name])
            assert snapshot_id == point[name] and rows == sum(n for _, n in listed)
            assert sorted(locations) == sorted(location for location, _ in listed)
            assert con.sql(f"SELECT count(*) FROM {name}").fetchall()[0][0] == rows
    finally:
        con.close()
    assert {name for name, *_ in pointed} == set(TABLES)


def test_a_redelivered_file_adds_nothing(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for sample in ("01_rounds_suited.csv", "05_rounds_relogged.parquet", "06_bets_main.csv"):
        shutil.copy(SAMPLES / sample, logs)
    db = tmp_path / "banco.duckdb"
    assert {result.status for result in ingest(db, [logs])} == {"ok"}
    before, point = held(db), Tables.open(db).commit_point()
    again = tmp_path / "again"
    again.mkdir()
    shutil.copy(logs / "01_rounds_suited.csv", again / "renamed.csv")  # the same bytes under another name
    shutil.copy(logs / "06_bets_main.csv", again)
    results = ingest(db, [logs, again])
    assert len(results) == 5 and {result.status for result in results} == {"skipped"}
    assert held(db) == before and Tables.open(db).commit_point() == point  # not even a log row


def kill_between_commits(db: Path, rounds: pl.DataFrame) -> None:
    """What a writer killed between a file's table commits leaves: its rows committed to core.rounds,
    core.shoes replaced by nothing, and no log commit naming them."""
    tables = Tables.open(db)
    location = files.write(tables.io, tables.location(CORE_ROUNDS, "killed"), CORE_ROUNDS, rounds)
    tables.add(CORE_ROUNDS, [location], "killed")
    tables.replace(CORE_SHOES, [], "killed")
    assert tables.snapshot_id(CORE_ROUNDS) != tables.commit_point()[CORE_ROUNDS]


@pytest.mark.slow
def test_a_writer_killed_between_two_table_commits_is_rolled_back_by_the_next(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    rounds = next(simulate(Simulation(shoes=6, tables=2, seed=8, bets=False))).rounds
    first = rounds.filter(pl.col("table_id") == rounds["table_id"][0])
    first.write_parquet(logs / "a_rounds.parquet")
    rounds.filter(pl.col("table_id") != rounds["table_id"][0]).write_parquet(logs / "b_rounds.parquet")
    shutil.copy(SAMPLES / "01_rounds_suited.csv", logs / "c_rounds.csv")
    db = tmp_path / "banco.duckdb"
    ingest(db, [logs / "a_rounds.parquet"])
    stored = held(db)

    # b's rows, as its killed writer had them ready (stored as ingest stores them: in a scratch warehouse)
    scratch = tmp_path / "scratch" / "banco.duckdb"
    ingest(scratch, [logs / "b_rounds.parquet"])
    kill_between_commits(db, rows_of(scratch, CORE_ROUNDS))
    assert held(db) == stored  # readers never saw the half-done file

    with store.writer(db) as w:  # the next writer rolls the tables back to the warehouse's commit
        point = w.tables.commit_point()
        assert all(w.tables.snapshot_id(name) == point.get(name) for name in TABLES)
        assert w.tables.table(CORE_ROUNDS).scan().to_arrow().num_rows == first.height
    assert held(db) == stored

    kill_between_commits(db, rows_of(scratch, CORE_ROUNDS))
    results = ingest(db, [logs])  # `banco ingest` again: rolled back, then b and c go in once
    for result in results:
        assert result.rows_read == result.accepted + sum(result.quarantined.values()) + result.duplicates
    assert [(r.path.name, r.status) for r in results] == [
        ("a_rounds.parquet", "skipped"),
        ("b_rounds.parquet", "ok"),
        ("c_rounds.csv", "ok"),
    ]
    clean = tmp_path / "clean" / "banco.duckdb"
    ingest(clean, [logs])
    assert held(db) == held(clean)
    tables = Tables.open(db)
    assert tables.table(CORE_ROUNDS).scan().to_arrow().num_rows == counts(db)[0] == rounds.height + results[2].accepted


def test_a_table_committed_before_its_first_warehouse_commit_is_emptied_by_the_next_writer(tmp_path):
    """core.bets has no snapshot the warehouse's commit names until a bets file goes in: a writer
    killed after committing a first bets file's rows and before the log's commit leaves it ahead of
    a commit that does not name it, and the next writer empties it."""
    logs = tmp_path / "logs"
    write_simulation(Simulation(shoes=4, tables=2, seed=3), logs, events=False)  # a rounds and a bets file
    (rounds_file,) = logs.glob("rounds_*")
    db = tmp_path / "banco.duckdb"
    ingest(db, [rounds_file])
    assert CORE_BETS not in Tables.open(db).commit_point()
    scratch = tmp_path / "scratch" / "banco.duckdb"
    ingest(scratch, [logs])
    tables = Tables.open(db)
    written = files.write(tables.io, tables.location(CORE_BETS, "killed"), CORE_BETS, rows_of(scratch, CORE_BETS))
    tables.add(CORE_BETS, [written], "killed")
    stored = held(db)

    with store.writer(db) as w:
        assert w.tables.table(CORE_BETS).scan().to_arrow().num_rows == 0
        assert w.tables.commit_point().get(CORE_BETS) == w.tables.snapshot_id(CORE_BETS)
    assert held(db) == stored
    results = ingest(db, [logs])
    assert [result.status for result in results] == ["skipped", "ok"]
    assert held(db) == held(scratch)


@pytest.mark.slow
def test_appends_merge_small_manifests_so_planning_reads_a_few(tmp_path):
    """One commit a file ingested: without merging, a table's snapshot would list a manifest for
    every commit it ever had, and every scan's planning would read them all."""
    tables = Tables.open(tmp_path / "banco.duckdb")
    now = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
    for n in range(40):
        counts = dict.fromkeys(("rows_read", "rows_accepted", "rows_quarantined", "rows_duplicate"), 0)
        row = {"path": f"{n}.csv", "sha256": f"{n}", "status": "ok", "started_at": now, "finished_at": now, **counts}
        rows = pl.DataFrame([row], schema=frame_schema(INGEST_LOG))
        tables.record(f"log-{n}", [files.write(tables.io, tables.location(INGEST_LOG, f"log-{n}"), INGEST_LOG, rows)])
    log = tables.table(INGEST_LOG)
    manifests = log.current_snapshot().manifests(log.io)
    assert len(manifests) <= int(iceberg.PROPERTIES["commit.manifest.min-count-to-merge"])
    assert sorted(log.scan().to_arrow().column("path").to_pylist()) == sorted(f"{n}.csv" for n in range(40))


def test_a_table_rewritten_again_and_again_keeps_its_manifests_few(tmp_path):
    """core.shoes is replaced whole by every rounds file: each snapshot lists its own files, not a
    manifest of the files every earlier one removed; an older snapshot still reads its own rows."""
    tables = Tables.open(tmp_path / "banco.duckdb")
    shoe = {"table_id": "T1", "game": "punto_banco", "decks": 8, "cards_seen": 0, "reconciled_by": "cards",
            "overdrawn_rows": 0, "reconciliation": "ok"}  # fmt: skip
    snapshots = []
    for n in range(20):
        rows = pl.DataFrame([{**shoe, "shoe_id": f"S{n}", "rounds": n}], schema=frame_schema(CORE_SHOES))
        tables.replace(CORE_SHOES, [files.write(tables.io, tables.location(CORE_SHOES, f"{n}"), CORE_SHOES, rows)], "t")
        snapshots.append(tables.snapshot_id(CORE_SHOES))
    table = tables.table(CORE_SHOES)
    assert len(table.current_snapshot().manifests(table.io)) <= 2  # its file's, and the one it removed
    assert table.scan().to_arrow().column("shoe_id").to_pylist() == ["S19"]
    assert table.scan(snapshot_id=snapshots[4]).to_arrow().column("shoe_id").to_pylist() == ["S4"]


@pytest.mark.slow
def test_compaction_merges_small_files_and_a_reader_of_the_older_snapshot_still_reads_it(tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    ingest(db, [landing(tmp_path), SAMPLES])  # a few small files a table, fewer than MERGE_AT
    before = {name: rows_of(db, name) for name in (CORE_ROUNDS, CORE_BETS)}
    tables = Tables.open(db)
    files_before = {name: tables.files(name, tables.snapshot_id(name)) for name in TABLES}
    snapshots_before = {name: tables.snapshot_id(name) for name in TABLES}
    assert all(len(files_before[name]) >= 3 for name in (CORE_ROUNDS, CORE_BETS, INGEST_LOG))
    old_reader = duckdb.connect(str(serving_path(db)), read_only=True)
    old_rows = old_reader.sql("SELECT * FROM core.rounds ORDER BY source_file, line_no").pl()

    monkeypatch.setattr(maintenance, "MERGE_AT", 2)
    monkeypatch.setenv("BANCO_SNAPSHOT_RETENTION_HOURS", "0")  # past the retention at once: what the
    with store.writer(db) as w:  # published serving file reads is kept all the same
        w.maintain()

    tables = Tables.open(db)
    for name in TABLES:
        after = tables.files(name, tables.commit_point()[name])
        if len(files_before[name]) >= 2:  # merged into one file (all are small), in one snapshot
            assert len(after) == 1, name
            snapshot = tables.table(name).current_snapshot()
            assert snapshot.summary.additional_properties[BY_KEY] == "compact"
            assert snapshot.parent_snapshot_id == snapshots_before[name]
        assert sum(rows for _, rows in after) == sum(rows for _, rows in files_before[name])
    for name, rows in before.items():
        assert rows_of(db, name).equals(rows)
    # the parts stay for readers of the older snapshot: the one opened before still reads them
    parts = [Path(iceberg.local_path(location)) for location, _ in files_before[CORE_ROUNDS]]
    assert all(part.exists() for part in parts)
    assert old_reader.sql("SELECT * FROM core.rounds ORDER BY source_file, line_no").pl().equals(old_rows)
    old_reader.close()


@pytest.mark.slow
def test_expiry_removes_the_files_no_kept_snapshot_names_and_none_the_commit_names(tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    monkeypatch.setattr(maintenance, "MERGE_AT", 2)
    ingest(db, [landing(tmp_path), SAMPLES])  # compacted at its end: the parts are named by older snapshots
    tables = Tables.open(db)
    stray = Path(iceberg.local_path(tables.location(CORE_ROUNDS, "killed")))  # a killed writer's staged file
    shutil.copyfile(next(iter(commit_files(tables))), stray)
    everything, data = on_disk(db), commit_files(tables)
    rows = held(db)

    monkeypatch.setenv("BANCO_SNAPSHOT_RETENTION_HOURS", "1")  # every file is younger: none goes
    with store.writer(db) as w:
        w.maintain()
    assert everything <= on_disk(db) and stray.exists()

    monkeypatch.setenv("BANCO_SNAPSHOT_RETENTION_HOURS", "0")
    with store.writer(db) as w:
        w.maintain()
    tables = Tables.open(db)
    assert all(len(tables.table(name).snapshots()) == 1 for name in TABLES)  # only the current ones stay
    named, metadata = named_by_kept_snapshots(tables)
    kept = on_disk(db)
    assert named <= kept  # every file a kept snapshot names is there, the commit's data files first
    assert data <= kept and commit_files(tables) == data
    assert kept <= named | metadata  # and nothing else: the stray file, the parts, the old manifests
    removed = everything - kept
    assert stray in removed and not removed & named
    assert held(db) == rows
    pyiceberg_rows = tables.table(CORE_ROUNDS).scan().to_arrow().num_rows
    assert pyiceberg_rows == rows[0]


@pytest.fixture(scope="module")
def read_three_ways(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("engines")
    db = tmp / "banco.duckdb"
    ingest(db, [landing(tmp), SAMPLES])
    return db


ROUNDS_SUMS = ("round_no", "line_no", "decks", "player_total")
BETS_SUMS = ("amount", "payout", "house_net", "theo")


@pytest.mark.parametrize(("table", "columns"), [(CORE_ROUNDS, ROUNDS_SUMS), (CORE_BETS, BETS_SUMS)])
@pytest.mark.slow
def test_duckdb_polars_and_pyiceberg_read_the_same_rows(read_three_ways, monkeypatch, table, columns):
    monkeypatch.setenv("POLARS_ICEBERG_PLANNER", "pyiceberg")
    db = read_three_ways
    sums = ", ".join(f"sum({column})::DOUBLE" for column in columns)
    query = f"SELECT count(*), {sums} FROM {table}"
    by_duckdb = reader.run(db, query, lambda relation: relation.fetchall()[0], where="banco sql")
    assert by_duckdb[0] > 0
    iceberg_table = Tables.open(db).table(table)
    aggregate = [pl.len(), *(pl.col(column).cast(pl.Float64).sum() for column in columns)]
    by_polars = pl.scan_iceberg(iceberg_table).select(aggregate).collect().row(0)
    by_pyiceberg = pl.from_arrow(iceberg_table.scan().to_arrow()).select(aggregate).row(0)
    assert by_polars == pytest.approx(by_duckdb) and by_pyiceberg == pytest.approx(by_duckdb)
    assert by_polars[0] == by_pyiceberg[0] == by_duckdb[0]


def test_statements_that_write_are_told_apart():
    written = ("DELETE FROM core.rounds", "INSERT INTO t VALUES (1)", "CREATE TABLE t (a INT)")
    assert all(refusal(sql, "x") == WRITE.format(where="x") for sql in written)
    assert not any(refusal(sql, "x") for sql in ("SELECT 1", "WITH a AS (SELECT 1) SELECT * FROM a", "FROM range(3)"))


def test_a_warehouse_named_by_a_relative_path_is_read_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ingest(Path("wh/banco.duckdb"), [SAMPLES])
    before = counts(tmp_path / "wh" / "banco.duckdb")
    monkeypatch.chdir(tmp_path.parent)
    assert counts(tmp_path / "wh" / "banco.duckdb") == before and before[0] > 0


def test_a_file_of_many_batches_is_one_data_file_a_batch_and_reads_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(log_read, "BATCH_ROWS", 1_000)
    rounds = next(simulate(Simulation(shoes=40, tables=2, seed=4, bets=False))).rounds
    assert rounds.height > 3_000
    rounds.write_parquet(tmp_path / "night.parquet")
    db = tmp_path / "banco.duckdb"
    (result,) = ingest(db, [tmp_path / "night.parquet"])
    tables = Tables.open(db)
    listed = tables.files(CORE_ROUNDS, tables.commit_point()[CORE_ROUNDS])
    assert result.accepted == rounds.height and len(listed) == -(-rounds.height // 1_000)
    stored = read(db).sql("SELECT line_no FROM core.rounds ORDER BY line_no").pl()
    assert stored["line_no"].to_list() == list(range(1, rounds.height + 1))


def test_a_column_null_in_one_file_and_never_in_another_reads_alike(tmp_path):
    """A batch's column without nulls is written as required, another batch's with nulls as
    optional: the view, the marts' scan and pyiceberg read both files, nulls where they were."""
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
    with store.write(db) as con:
        scanned = views.scan(con, CORE_ROUNDS).collect()
    assert scanned.schema == frame_schema(CORE_ROUNDS)
    assert scanned["dealer_id"].null_count() == second["dealer_id"].null_count() > 0
    direct = Tables.open(db).table(CORE_ROUNDS).scan().to_arrow()
    assert direct.column("dealer_id").null_count == second["dealer_id"].null_count()
