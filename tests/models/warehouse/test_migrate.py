"""A warehouse the release before Iceberg wrote (tests/fixtures/README.md) moved onto the Iceberg tables
by `banco migrate`, every row and column kept; a migration killed part-way is finished by the next
writer, with no row twice."""

import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

import duckdb
import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse import migrate, views
from models.warehouse.columns import template
from models.warehouse.schema import INGEST_LOG, TABLES
from models.warehouse.store import serving_path, writer

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "warehouse-2026-11-30.tgz"
BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))
LAKE_TABLES = ("core.rounds", "core.bets")
#: A day the fixture's simulations never dealt: a file of it is new to the warehouse.
NEW_DAY = dt.date(2026, 3, 1)  # a day no extracted warehouse holds, in the past
#: Each table's order for comparing rows whole.
ORDER = {
    "core.rounds": "table_id, shoe_id, round_no",
    "core.bets": "source_file, line_no",
    "core.shoes": "table_id, shoe_id",
    "quarantine.rounds": "source_file, line_no",
    "quarantine.bets": "source_file, line_no",
    "meta.ingest_log": "path, sha256, status",
    "core.table_events": "source_file, line_no",
    "quarantine.table_events": "source_file, line_no",
}


def banco(*args):
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=300)


def extracted(folder: Path) -> Path:
    folder.mkdir()
    with tarfile.open(FIXTURE) as archive:
        archive.extractall(folder, filter="data")
    return folder / "banco.duckdb"


def old_relation(con, db: Path, name: str) -> str:
    """The old table as a relation: a DuckDB table, or for the lake tables its listed files under
    `banco.lake/` (its views name /tmp/fx/wh, where it was written); a table the release had not
    yet (the table events), as its columns without rows."""
    if name not in LAKE_TABLES:
        held = con.sql("SELECT count(*) FROM duckdb_tables() WHERE schema_name || '.' || table_name = ?", params=[name])
        return name if held.fetchall()[0][0] else f"({views.source(name, [])})"
    listed = con.sql("SELECT path FROM meta.lake_files WHERE table_name = ? AND retired_at IS NULL", params=[name])
    paths = [str(db.with_name("banco.lake") / path) for (path,) in listed.fetchall()]
    columns = ", ".join(f'"{column}"' for column, _ in template(name).columns)
    return f"(SELECT {columns} FROM read_parquet({paths}))"


def checksums(con, relation: str, columns: list[str]) -> tuple:
    """The rows, a hash sum of every column and one of every whole row: equal only if the same
    values sit in the same rows."""
    quoted = [f'"{column}"' for column in columns]
    sums = [f"sum(hash({column}))" for column in quoted]
    return con.sql(f"SELECT count(*), {', '.join(sums)}, sum(hash({', '.join(quoted)})) FROM {relation}").fetchall()[0]


def marts(con) -> dict[str, tuple]:
    names = con.sql("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'marts' ORDER BY 1").fetchall()
    return {
        name: checksums(con, f"marts.{name}", [row[0] for row in con.sql(f"DESCRIBE marts.{name}").fetchall()])
        for (name,) in names
    }


def old_warehouse(db: Path) -> dict:
    """What the earlier release's warehouse holds, read from its own tables and lake files."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = {
            name: checksums(con, old_relation(con, db, name), [column for column, _ in template(name).columns])
            for name in TABLES
        }
        rows = {
            name: con.sql(f"FROM {old_relation(con, db, name)} ORDER BY {ORDER[name]}").pl()
            for name in TABLES
            if name not in LAKE_TABLES
        }
        return {"tables": tables, "rows": rows, "marts": marts(con)}
    finally:
        con.close()


def new_warehouse(db: Path) -> dict:
    """What the serving snapshot shows of the Iceberg tables, as readers see it."""
    con = duckdb.connect(str(serving_path(db)), read_only=True)
    try:
        tables = {name: checksums(con, name, [column for column, _ in template(name).columns]) for name in TABLES}
        rows = {name: con.sql(f"FROM {name} ORDER BY {ORDER[name]}").pl() for name in TABLES if name not in LAKE_TABLES}
        types = {name: [tuple(row[:2]) for row in con.sql(f"DESCRIBE {name}").fetchall()] for name in TABLES}
        assert types == {name: template(name).columns for name in TABLES}  # the contract's columns and types
        return {"tables": tables, "rows": rows, "marts": marts(con)}
    finally:
        con.close()


def relations(db: Path) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {row[0] for row in con.sql("SELECT schema_name || '.' || table_name FROM duckdb_tables()").fetchall()}
    finally:
        con.close()


@pytest.fixture(scope="module")
def before(tmp_path_factory) -> dict:
    """The fixture's warehouse as the earlier release wrote it."""
    return old_warehouse(extracted(tmp_path_factory.mktemp("fixture") / "wh"))


def assert_same(db: Path, before: dict) -> None:
    after = new_warehouse(db)
    assert after["tables"] == before["tables"]
    for name, rows in before["rows"].items():  # quarantine, the log and the shoes identical, row by row
        assert after["rows"][name].equals(rows), name
    assert after["marts"] == before["marts"]


@pytest.mark.slow
def test_banco_migrate_moves_every_row_and_column(tmp_path, before):
    db = extracted(tmp_path / "wh")
    assert before["tables"]["core.rounds"][0] > 0 and before["tables"]["core.bets"][0] > 0
    shutil.copyfile(db, serving_path(db))  # the earlier release's serving snapshot, as it published it
    refused = banco("sql", "--db", str(db), "SELECT count(*) FROM core.rounds")
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"banco: error: {db} was written by an earlier release: run `banco migrate --db {db}` "
        "(or any writer: banco ingest, banco build) first"
    )

    moved = banco("migrate", "--db", str(db))
    assert moved.returncode == 0, moved.stderr
    headline, *lines = moved.stdout.strip().splitlines()
    assert headline.startswith(f"moved {db} onto the Iceberg tables of sqlite:///")
    assert lines == [f"  {name}: {before['tables'][name][0]:,} rows" for name in TABLES]
    assert_same(db, before)
    assert not db.with_name("banco.lake").exists()
    assert migrate.LAKE_FILES not in relations(db) | relations(serving_path(db))
    assert {"banco.catalog.db", "banco.iceberg"} <= {path.name for path in tmp_path.joinpath("wh").iterdir()}

    again = banco("migrate", "--db", str(db))
    assert (again.returncode, again.stdout.strip()) == (0, f"nothing to move: {db} is on the Iceberg tables already")
    counted = banco("sql", "--db", str(db), "SELECT count(*) AS n FROM core.bets", "--format", "csv")
    assert counted.stdout.split() == ["n", str(before["tables"]["core.bets"][0])]

    built = banco("build", "--db", str(db))
    assert built.returncode == 0, built.stderr
    new = tmp_path / "new"
    write_simulation(Simulation(shoes=2, seed=41, start=NEW_DAY), new, events=False)  # round logs alone
    ingested = banco("ingest", "--db", str(db), str(new))
    assert ingested.returncode == 0, ingested.stderr
    con = duckdb.connect(str(serving_path(db)), read_only=True)
    accepted, files = con.sql(
        f"SELECT sum(rows_accepted), count(*) FROM {INGEST_LOG} WHERE path LIKE '{new}%' AND status = 'ok'"
    ).fetchall()[0]
    rounds, bets = con.sql("SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets)").fetchall()[0]
    con.close()
    assert files == 2 and accepted > 0
    assert rounds + bets == before["tables"]["core.rounds"][0] + before["tables"]["core.bets"][0] + accepted


def test_the_older_layout_with_the_tables_in_the_file_moves_too(tmp_path, before):
    db = extracted(tmp_path / "wh")
    con = duckdb.connect(str(db))
    for name in LAKE_TABLES:  # as a release before the lake kept them, with the content_hash it stored
        rows = old_relation(con, db, name)
        stored = "hash(table_id, shoe_id, round_no) AS content_hash"
        con.execute(f"CREATE TABLE {name}_old AS SELECT *, {stored} FROM {rows}")
        con.execute(f"DROP VIEW {name}; ALTER TABLE {name}_old RENAME TO {name.split('.')[1]}")
    con.execute(f"DROP TABLE {migrate.LAKE_FILES}")
    con.close()
    shutil.rmtree(db.with_name("banco.lake"))
    with writer(db):
        pass
    assert_same(db, before)


def test_a_merged_files_retired_parts_are_not_moved(tmp_path, before):
    db = extracted(tmp_path / "wh")
    lake = db.with_name("banco.lake")
    con = duckdb.connect(str(db))
    (path, rows, added), *_ = con.sql(f"SELECT path, rows, added_at FROM {migrate.LAKE_FILES}").fetchall()
    shutil.copyfile(lake / path, lake / "core" / "rounds" / "part.parquet")  # merged into `path`, a day to go
    con.execute(f"INSERT INTO {migrate.LAKE_FILES} VALUES ('core.rounds', 'core/rounds/part.parquet', ?, ?, ?)",
                [rows, added, added])  # fmt: skip
    con.close()
    with writer(db):
        pass
    assert_same(db, before)


#: A writer that dies by SIGKILL right after its `n`th commit of a migration's copy (the 6th is the
#: log's, which makes the copy the warehouse's; the old tables are removed after it).
KILLED = """
import os, signal, sys
from pathlib import Path
from models.warehouse import iceberg, migrate, store

add, done = iceberg.Tables.add, []

def add_then_die(self, name, locations, by, *rest):
    add(self, name, locations, by, *rest)
    done.append(by == migrate.BY)
    if sum(done) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)

iceberg.Tables.add = add_then_die
with store.writer(Path(sys.argv[1])):
    pass
"""


@pytest.mark.parametrize("commits", [1, 3, 5, 6])
@pytest.mark.slow
def test_a_migration_killed_part_way_is_finished_by_the_next_writer(tmp_path, before, commits):
    db = extracted(tmp_path / "wh")
    killed = subprocess.run([sys.executable, "-c", KILLED, str(db), str(commits)], timeout=300)
    assert killed.returncode == -signal.SIGKILL
    left = old_warehouse(db)
    assert left["tables"] == before["tables"] and left["marts"] == before["marts"]  # the old warehouse whole
    assert migrate.LAKE_FILES in relations(db)

    moved = banco("migrate", "--db", str(db))
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.strip().splitlines()[1:] == [f"  {name}: {before['tables'][name][0]:,} rows" for name in TABLES]
    assert_same(db, before)
    assert not db.with_name("banco.lake").exists()


def test_a_lake_folder_left_by_a_writer_stopped_after_the_old_tables_went_is_removed(tmp_path, before):
    db = extracted(tmp_path / "wh")
    lake = db.with_name("banco.lake")
    kept = tmp_path / "lake"
    shutil.copytree(lake, kept)
    with writer(db):
        pass
    shutil.copytree(kept, lake)  # as if stopped between dropping the old tables and removing the folder
    with writer(db):
        pass
    assert not lake.exists()
    assert_same(db, before)


@pytest.mark.slow
def test_tables_that_hold_rows_already_are_not_added_to(tmp_path):
    new = tmp_path / "new"
    write_simulation(Simulation(shoes=1, seed=41, start=NEW_DAY), new, events=False)  # round logs alone
    db = tmp_path / "wh" / "banco.duckdb"
    assert banco("ingest", "--db", str(db), str(new)).returncode == 0
    old = extracted(tmp_path / "old")  # the earlier release's file put beside tables a newer one wrote
    os.replace(old, db)
    os.replace(old.with_name("banco.lake"), db.with_name("banco.lake"))
    refused = banco("migrate", "--db", str(db))
    assert refused.returncode == 2 and not refused.stdout
    assert "already hold rows (core.rounds, core.bets, core.shoes, meta.ingest_log)" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert migrate.LAKE_FILES in relations(db) and db.with_name("banco.lake").exists()  # left as it was
