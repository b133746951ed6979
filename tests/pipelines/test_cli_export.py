"""`banco export` as a user runs it: the console script writes the folder, then DuckDB's 1.5 command line
(the pinned `duckdb-cli`) and Python's duckdb open it elsewhere, the warehouse it came from gone."""

import csv
import datetime as dt
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from models.warehouse import store
from tests.pipelines.test_cli_ingest import BANCO, SAMPLES

DUCKDB = Path(sys.executable).parent / "duckdb"
#: Every relation of the serving snapshot, by the names a query gives them.
RELATIONS = (
    "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables "
    "WHERE table_schema IN ('core', 'quarantine', 'meta', 'marts') ORDER BY 1"
)


def counts(con) -> dict[str, int]:
    """Rows of every relation of a connection's database."""
    names = [row[0] for row in con.sql(RELATIONS).fetchall()]
    return {name: con.sql(f"SELECT count(*) FROM {name}").fetchall()[0][0] for name in names}


def original(db: Path) -> dict[str, int]:
    con = store.read(db)
    try:
        return counts(con)
    finally:
        con.close()


def cli(folder: Path, sql: str) -> list[dict[str, str]]:
    """A query's rows as DuckDB's own command line prints them, run in the export's folder."""
    done = subprocess.run([str(DUCKDB), "-readonly", "-csv", "banco.duckdb", "-c", sql],
                          cwd=folder, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and not done.stderr, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def cli_counts(folder: Path, names) -> dict[str, int]:
    union = " UNION ALL ".join(f"SELECT '{name}' AS name, count(*) AS n FROM {name}" for name in names)
    return {row["name"]: int(row["n"]) for row in cli(folder, union)}


def python_counts(folder: Path) -> dict[str, int]:
    """Python's duckdb from another working directory, the folder given as `file_search_path`."""
    con = duckdb.connect(str(folder / "banco.duckdb"), read_only=True)
    try:
        con.execute(f"SET file_search_path = '{folder}'")
        return counts(con)
    finally:
        con.close()


def banco(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=300, env=env)


def export(db: Path, folder: Path, *options: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return banco("export", "--db", str(db), str(folder), *options, env=env)


@pytest.fixture(scope="module")
def own_warehouse(tmp_path_factory) -> Path:
    """A small warehouse of its own (the shared one must stay), ingested and built, to take away."""
    from models.metrics.build import build
    from models.simulate.config import Simulation
    from models.simulate.run import write_simulation
    from models.warehouse.ingest import ingest

    folder = tmp_path_factory.mktemp("own")
    write_simulation(Simulation(shoes=4, tables=2, shoes_per_day=1, start=dt.date(2026, 11, 1), seed=3),
                     folder / "landing", misdeal_rate=0.02)  # fmt: skip
    ingest(folder / "warehouse" / "banco.duckdb", [folder / "landing"])
    build(folder / "warehouse" / "banco.duckdb")
    return folder / "warehouse" / "banco.duckdb"


def test_an_export_moved_elsewhere_reads_as_the_warehouse_did_once_that_is_gone(own_warehouse, tmp_path, monkeypatch):
    expected = original(own_warehouse)
    done = export(own_warehouse, tmp_path / "audit")
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    stored = sum(expected.values()) - expected["marts.wager_edges"]  # a view over core.bets: its rows are those
    assert line.startswith(f"wrote {tmp_path / 'audit'}: banco.duckdb (") and f"{stored:,} rows" in line
    shutil.rmtree(own_warehouse.parent)  # its data files with it
    moved = Path(shutil.move(tmp_path / "audit", tmp_path / "elsewhere" / "audit"))
    assert cli_counts(moved, expected) == expected
    monkeypatch.chdir(tmp_path)
    assert python_counts(moved) == expected
    readme = (moved / "README.md").read_text()
    assert "duckdb -readonly banco.duckdb" in readme and "file_search_path" in readme
    assert len(readme.splitlines()) < 40


def test_a_whole_export_names_its_files_by_relative_paths_and_counts_as_the_warehouse(built_warehouse, tmp_path):
    expected = original(built_warehouse)
    assert export(built_warehouse, tmp_path / "copy").returncode == 0
    folder = tmp_path / "copy"
    assert cli_counts(folder, expected) == expected
    assert [row["name"] for row in cli(folder, RELATIONS)] == list(expected)
    views = cli(folder, "SELECT sql FROM duckdb_views() WHERE NOT internal")
    assert views and not any(str(built_warehouse.parent) in view["sql"] for view in views)
    listed = cli(folder, "SELECT unnest(locations) AS location FROM meta.snapshots")
    assert listed and all(
        not row["location"].startswith("/") and (folder / row["location"]).is_file() for row in listed
    )
    stored = cli(
        folder, "SELECT tags['storage_version'] AS version FROM duckdb_databases() WHERE database_name = 'banco'"
    )
    assert stored == [{"version": "v1.4.0+"}]


#: The coups of T01's shoes whose first coup was on gaming day 2026-11-02 (the warehouse's days open at
#: 06:00 UTC), and their bets, counted in SQL of the test's own.
SHOES = (
    "SELECT table_id, shoe_id FROM core.rounds WHERE table_id = 'T01' GROUP BY ALL "
    "HAVING CAST(timezone('UTC', min(started_at)) - INTERVAL 6 HOUR AS DATE) = DATE '2026-11-02'"
)
CUT = {
    "core.rounds": f"SELECT count(*) FROM core.rounds SEMI JOIN ({SHOES}) USING (table_id, shoe_id)",
    "core.bets": f"SELECT count(*) FROM core.bets SEMI JOIN ({SHOES}) USING (table_id, shoe_id)",
    "marts.table_day": "SELECT count(*) FROM marts.table_day WHERE table_id = 'T01' AND gaming_day = '2026-11-02'",
    "marts.coup_edges": "SELECT count(*) FROM marts.coup_edges WHERE table_id = 'T01' AND gaming_day = '2026-11-02'",
    "marts.wager_edges": f"SELECT count(*) FROM marts.wager_edges SEMI JOIN ({SHOES}) USING (table_id, shoe_id)",
}


def test_a_cut_down_export_holds_that_day_and_table_only(built_warehouse, tmp_path):
    con = store.read(built_warehouse)
    try:
        expected = {name: con.sql(sql).fetchall()[0][0] for name, sql in CUT.items()}
        everything = counts(con)
    finally:
        con.close()
    assert all(expected.values()) and expected["core.rounds"] < everything["core.rounds"]
    done = export(built_warehouse, tmp_path / "audit", "--days", "2026-11-02", "--tables", "T01")
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "audit"
    assert cli_counts(folder, expected) == expected
    columns = cli(folder, "SELECT table_schema || '.' || table_name AS name, list(column_name) AS names "
                          "FROM information_schema.columns GROUP BY 1")  # fmt: skip
    strays = [f"SELECT '{row['name']}' AS name, count(*) AS n FROM {row['name']} WHERE " + " OR ".join(
        ["table_id IS DISTINCT FROM 'T01'"] * ("table_id" in row["names"])
        + ["gaming_day <> DATE '2026-11-02'"] * ("gaming_day" in row["names"])
    ) for row in columns if "table_id" in row["names"] or "gaming_day" in row["names"]]  # fmt: skip
    assert len(strays) > 30 and cli(folder, f"SELECT name FROM ({' UNION ALL '.join(strays)}) WHERE n > 0") == []
    assert "Cut down to: gaming day 2026-11-02; tables T01." in (folder / "README.md").read_text()
    whole = cli_counts(folder, ["marts.players", "meta.ingest_log"])  # no day, no table: kept whole
    assert whole == {name: everything[name] for name in whole}


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--days", "2026-11-05..2026-11-01"], "argument --days: the range goes backwards"),
        (["--days", "2026-11-31"], "argument --days: not a date (YYYY-MM-DD): '2026-11-31'"),
        (["--days", ".."], "argument --days: a range of gaming days FROM..TO names at least one end"),
        (["--tables", " , "], "argument --tables: table ids, comma-separated"),
        (["--tables", "T01,T99"], "--tables: the warehouse has no table T99 (it has T01, T02,"),
        (["--days", "2030-01-01.."], "--days: nothing was played on gaming days 2030-01-01 to the last"),
    ],
)
def test_bad_arguments_are_one_line_and_write_nothing(built_warehouse, tmp_path, options, says):
    done = export(built_warehouse, tmp_path / "audit", *options)
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.startswith(f"banco: error: {says}"), done.stderr
    assert len(done.stderr.splitlines()) == 1 and list(tmp_path.iterdir()) == []


def test_a_folder_in_use_a_file_or_no_warehouse_is_refused_untouched(built_warehouse, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    (tmp_path / "file").write_text("mine too")
    refusals = {
        export(built_warehouse, tmp_path / "full"): f"{tmp_path / 'full'} is not empty",
        export(built_warehouse, tmp_path / "file"): f"{tmp_path / 'file'} is a file",
        export(tmp_path / "none" / "banco.duckdb", tmp_path / "out"): "no warehouse at",
    }
    for done, says in refusals.items():
        assert done.returncode == 2 and done.stderr.startswith(f"banco: error: {says}"), done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file", "full"]
    assert (tmp_path / "full" / "notes.txt").read_text() == "mine" and (tmp_path / "file").read_text() == "mine too"
    (tmp_path / "empty").mkdir()
    assert export(built_warehouse, tmp_path / "empty", "--tables", "T02").returncode == 0  # an empty folder is fine
    assert (tmp_path / "empty" / "banco.duckdb").is_file()


@pytest.mark.slow
def test_a_warehouse_in_object_storage_exports_its_files_to_this_machine(tmp_path, s3_store):
    remote = {**os.environ, **s3_store, "BANCO_CATALOG_URI": f"sqlite:///{tmp_path / 'catalog.db'}"}
    db = tmp_path / "remote" / "banco.duckdb"
    logs = [str(SAMPLES / name) for name in ("01_rounds_suited.csv", "06_bets_main.csv", "09_table_events.csv")]
    assert banco("ingest", "--db", str(db), *logs, env=remote).returncode == 0
    query = (
        "SELECT 'rounds' AS kind, table_id, count(*) AS n FROM core.rounds GROUP BY ALL UNION ALL "
        "SELECT 'events', table_id, count(*) FROM core.table_events GROUP BY ALL ORDER BY ALL"
    )
    stored = list(
        csv.DictReader(io.StringIO(banco("sql", "--db", str(db), "--format", "csv", query, env=remote).stdout))
    )
    assert len({row["table_id"] for row in stored}) > 1
    cut = [row for row in stored if row["table_id"] == "BAC-01"]
    for folder, options, expected in (
        (tmp_path / "whole", [], stored),
        (tmp_path / "cut", ["--tables", "BAC-01"], cut),
    ):
        done = export(db, folder, *options, env=remote)
        assert done.returncode == 0, done.stderr
        assert cli(folder, query) == expected
