"""The locked read path: each attack on user SQL refused in one line, by the up-front check or by DuckDB's
own locked connection, the limits in place and fixed, and a long query interrupted at its time limit or
when its caller says stop. `ATTACKS` is shared with the tests of `banco sql` and the dashboard's console."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import duckdb
import pytest

from models.warehouse import reader, store
from models.warehouse.iceberg import Settings
from models.warehouse.ingest import ingest
from models.warehouse.store import WarehouseError, read, refusal

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"
CROSS_JOIN = "SELECT count(*) FROM range(100000) a, range(100000) b, range(1000) c"
FILES = "file access is not allowed"
SETTINGS = "settings cannot be changed"
EXTENSIONS = "installing or loading extensions is not allowed"
DATABASES = "attaching or detaching databases is not allowed"
READ_ONLY = "is read-only"
QUERIES = "runs queries only"

#: (SQL, what the refusal says); `{db}` is the writer's file, `{tables}` its folder of Iceberg tables (the
#: one folder a reader may read), `{out}` an empty folder that must stay empty.
ATTACKS = {
    "password file": ("SELECT content FROM read_text('/etc/passwd')", FILES),
    "own environment": ("SELECT content FROM read_text('/proc/self/environ')", FILES),
    "glob of a home": ("SELECT * FROM glob('/root/*')", FILES),
    "csv of a system file": ("SELECT * FROM read_csv('/etc/passwd', sep = ':')", FILES),
    "blob beside the tables": ("SELECT * FROM read_blob('{tables}/../banco.duckdb')", FILES),
    "the catalog beside the tables": ("SELECT * FROM read_blob('{tables}/../banco.catalog.db')", FILES),
    "a folder named like the tables": ("SELECT * FROM glob('{tables}-other/*')", FILES),
    "profiling on": ("PRAGMA enable_profiling = 'json'", SETTINGS),
    "profiling output": ("SET profiling_output = '{out}/profile.json'", SETTINGS),
    "attach the writer's file": ("ATTACH '{db}' AS writer", DATABASES),
    "attach a new file": ("ATTACH '{out}/new.duckdb' AS fresh", DATABASES),
    "detach the snapshot": ("DETACH banco", DATABASES),
    "memory limit": ("SET memory_limit = '500GB'", SETTINGS),
    "threads": ("SET threads = 64", SETTINGS),
    "reset a limit": ("RESET memory_limit", SETTINGS),
    "temp directory": ("SET temp_directory = '{out}'", SETTINGS),
    "install httpfs": ("INSTALL httpfs", EXTENSIONS),
    "load httpfs": ("LOAD httpfs", EXTENSIONS),
    "csv over http": ("SELECT * FROM read_csv('http://127.0.0.1:9/rows.csv')", FILES),
    "copy to a file": ("COPY (SELECT 1 AS x) TO '{out}/x.csv'", FILES),
    "copy into the tables": ("COPY (SELECT * FROM core.rounds) TO '{tables}/core/rounds/data/extra.parquet'", FILES),
    "explain analyze of a copy": ("EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{tables}/x.csv'", FILES),
    "export database": ("EXPORT DATABASE '{out}/export'", FILES),
    "import database": ("IMPORT DATABASE '{out}'", FILES),
    "delete": ("DELETE FROM core.rounds", READ_ONLY),
    "temp table": ("CREATE TEMP TABLE scratch AS SELECT 1 AS x", READ_ONLY),
    "macro": ("CREATE MACRO twice(x) AS 2 * x", READ_ONLY),
    "checkpoint": ("CHECKPOINT", QUERIES),
    "call": ("CALL pragma_version()", QUERIES),
    "prepare": ("PREPARE p AS SELECT 1", QUERIES),
    "update extensions": ("UPDATE EXTENSIONS", QUERIES),
    "two statements": ("SELECT 1; SELECT 2", "one query at a time"),
}


def attack(name: str, db: Path, out: Path) -> str:
    sql, _ = ATTACKS[name]
    return sql.format(db=db, tables=tables_folder(db), out=out)


def tables_folder(db: Path) -> Path:
    """The warehouse's folder of Iceberg tables (`banco.iceberg/` beside `banco.duckdb`)."""
    return Settings.of(db).local_folder


def stored(db: Path) -> dict[Path, tuple[int, int]]:
    """Every file of the warehouse's tables and its catalog, with its size and time of change: what
    no reader may change."""
    paths = [*tables_folder(db).rglob("*"), db.with_name(f"{db.stem}.catalog.db"), db]
    return {path: (path.stat().st_size, path.stat().st_mtime_ns) for path in paths if path.is_file()}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("reader") / "banco.duckdb"
    ingest(path, [SAMPLES / "01_rounds_suited.csv"])
    return path


@pytest.mark.parametrize("name", ATTACKS)
def test_each_attack_is_refused_in_one_line_and_leaves_nothing(db, tmp_path, name):
    before = stored(db)
    with pytest.raises(reader.QueryError) as refused:
        reader.run(db, attack(name, db, tmp_path), lambda relation: relation.fetchall(), where="the test")
    message = str(refused.value)
    assert ATTACKS[name][1] in message and "the test" in message and "\n" not in message, message
    assert "root:" not in message and "PATH=" not in message
    assert not any(tmp_path.iterdir()) and stored(db) == before


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("password file", "Cannot access file"),
        ("own environment", "Cannot access file"),
        ("glob of a home", "Cannot access file"),
        ("csv over http", "Cannot access file"),
        ("blob beside the tables", "Cannot access file"),
        ("the catalog beside the tables", "Cannot access file"),
        ("a folder named like the tables", "Cannot access"),
        ("attach the writer's file", "Cannot access file"),
        ("copy to a file", "Cannot access file"),
        ("export database", "Cannot access file"),
        ("install httpfs", "Cannot access directory"),
        ("load httpfs", "Loading external extensions is disabled"),
        ("memory limit", "the configuration has been locked"),
        ("threads", "the configuration has been locked"),
        ("profiling output", "the configuration has been locked"),
        ("profiling on", "the configuration has been locked"),
        ("temp directory", "the configuration has been locked"),
    ],
)
def test_duckdb_itself_refuses_these_on_the_locked_connection(db, tmp_path, name, says):
    """Behind the up-front check: the connection refuses them even when a statement gets past it."""
    con = reader.connect(db, reader.Limits())
    try:
        with pytest.raises(duckdb.Error, match=says):
            con.sql(attack(name, db, tmp_path))
    finally:
        con.close()
    assert not any(tmp_path.iterdir())


def test_what_the_locked_connection_would_still_run_is_refused_up_front(db):
    """COPY into the tables' own folder, CHECKPOINT and temporary tables pass DuckDB's lock: the check
    by statement type is what refuses them."""
    for name in ("copy into the tables", "checkpoint", "temp table"):
        assert refusal(attack(name, db, Path("/nowhere")), "here") is not None, name


def test_the_limits_are_set_and_locked(db, monkeypatch):
    monkeypatch.setenv("BANCO_SQL_MEMORY", "1GB")
    monkeypatch.setenv("BANCO_SQL_THREADS", "1")
    con = reader.connect(db, reader.Limits.from_env())
    try:
        settings = dict(
            con.sql(
                "SELECT name, value FROM duckdb_settings() WHERE name IN ('memory_limit', 'threads', "
                "'enable_external_access', 'lock_configuration', 'temp_directory', 'autoload_known_extensions', "
                "'autoinstall_known_extensions', 'allowed_directories', 'profiling_output')"
            ).fetchall()
        )
    finally:
        con.close()
    assert settings["memory_limit"] in ("953.6 MiB", "1.0 GB", "1GB"), settings["memory_limit"]
    assert settings["threads"] == "1" and settings["temp_directory"] == "" and settings["profiling_output"] == ""
    assert settings["enable_external_access"] == "false" and settings["lock_configuration"] == "true"
    assert settings["autoload_known_extensions"] == settings["autoinstall_known_extensions"] == "false"
    assert settings["allowed_directories"] == f"[{tables_folder(db)}/]" == f"[{reader.readable(db)}]"
    assert tables_folder(db) == db.with_name("banco.iceberg")


def test_the_tables_folder_is_read_and_nothing_beside_it(db):
    count = reader.run(db, "SELECT count(*) FROM core.rounds", lambda relation: relation.fetchall()[0][0], where="t")
    con = read(db)
    try:
        assert count == con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0] > 0
    finally:
        con.close()
    folder = tables_folder(db)
    files = {Path(file) for (file,) in reader.run(db, f"SELECT file FROM glob('{folder}/**')", fetch, where="t")}
    assert files == {path for path in folder.rglob("*") if path.is_file()}  # data files and Iceberg metadata
    assert {path.suffix for path in files} == {".parquet", ".avro", ".json"}
    with pytest.raises(reader.QueryError, match=FILES):  # the catalog beside it is not the warehouse's to read
        reader.run(db, f"SELECT * FROM read_blob('{folder.parent}/banco.catalog.db')", fetch, where="t")


def fetch(relation):
    return relation.fetchall()


def test_a_locked_reader_and_the_projects_own_reader_are_open_at_once(db):
    """A file opened twice in one process shares one DuckDB instance: the locked reader attaches the
    snapshot to an instance of its own, so neither changes nor refuses the other."""
    plain = read(db)
    locked, again = reader.connect(db, reader.Limits()), reader.connect(db, reader.Limits())
    try:
        counts = {con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0] for con in (plain, locked, again)}
        assert len(counts) == 1
        assert plain.sql("SELECT current_setting('enable_external_access')").fetchall()[0][0] is True
    finally:
        for con in (plain, locked, again):
            con.close()


def test_the_cross_join_is_interrupted_at_its_time_limit(db):
    started = time.monotonic()
    with pytest.raises(reader.QueryError) as stopped:
        reader.run(db, CROSS_JOIN, lambda r: r.fetchall(), where="t", limits=reader.Limits(timeout_seconds=2))
    took = time.monotonic() - started
    assert str(stopped.value) == "the query ran longer than 2 s and was stopped (BANCO_SQL_TIMEOUT_SECONDS)"
    assert 2 <= took < 3, took  # the interrupt lands within milliseconds (see docs/warehouse.md)


def test_a_query_is_interrupted_when_its_caller_says_stop(db):
    asked = threading.Event()
    threading.Timer(0.5, asked.set).start()
    started = time.monotonic()
    with pytest.raises(reader.QueryError, match="was stopped: the page that ran it was closed or ran again"):
        reader.run(db, CROSS_JOIN, lambda r: r.fetchall(), where="t", stop=asked.is_set)
    assert time.monotonic() - started < 1.5


def test_a_query_past_the_memory_cap_fails_in_one_line(db):
    with pytest.raises(reader.QueryError) as refused:
        reader.run(
            db,
            "SELECT count(*) FROM (SELECT * FROM range(30000000) ORDER BY random())",
            lambda r: r.fetchall(),
            where="t",
            limits=reader.Limits(memory="100MB"),
        )
    assert str(refused.value) == "the query needed more than 100MB of memory and was stopped (BANCO_SQL_MEMORY)"


def test_a_quick_query_is_answered_and_its_thread_ends(db):
    for _ in range(3):
        assert reader.run(db, "SELECT 42", lambda r: r.fetchall(), where="t") == [(42,)]
    deadline = time.monotonic() + 2
    while any(t.name == "banco-sql-query" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name == "banco-sql-query" for t in threading.enumerate())


def test_the_projects_own_queries_keep_duckdbs_errors(db):
    with pytest.raises(duckdb.CatalogException):
        reader.run(db, "SELECT * FROM marts.nowhere", lambda r: r.fetchall(), where="t", user=False)


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("BANCO_SQL_THREADS", "many", "BANCO_SQL_THREADS must be a whole number above 0, not 'many'"),
        ("BANCO_SQL_THREADS", "0", "BANCO_SQL_THREADS must be a whole number above 0"),
        ("BANCO_SQL_TIMEOUT_SECONDS", "-1", "BANCO_SQL_TIMEOUT_SECONDS must be a number above 0"),
        ("BANCO_SQL_TIMEOUT_SECONDS", "nan", "BANCO_SQL_TIMEOUT_SECONDS must be a number above 0"),
        ("BANCO_SQL_MEMORY", "lots", "cannot start a reader with BANCO_SQL_MEMORY='lots'"),
    ],
)
def test_a_bad_setting_is_one_line(db, monkeypatch, name, value, says):
    monkeypatch.setenv(name, value)
    with pytest.raises(WarehouseError, match=says.replace("(", r"\(")) as error:
        reader.run(db, "SELECT 1", lambda r: r.fetchall(), where="t")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "WITH a AS (SELECT 1) SELECT * FROM a",
        "FROM core.rounds",
        "SHOW TABLES",
        "DESCRIBE core.rounds",
        "SUMMARIZE core.rounds",
        "EXPLAIN SELECT 1",
        "EXPLAIN ANALYZE SELECT count(*) FROM core.rounds",
        "SELECT 1;",
    ],
)
def test_queries_pass_the_check(sql):
    assert refusal(sql, "here") is None


def test_statements_that_write_are_refused_as_writes_or_file_access():
    assert [refusal(sql, "x") for sql in ("DELETE FROM t", "COPY t TO 'x.csv'", "EXPORT DATABASE 'x'")] == [
        store.WRITE.format(where="x"),
        store.FILES.format(where="x"),
        store.FILES.format(where="x"),
    ]
    assert refusal("SELECT 1", "x") is None
    assert [refusal(sql, "x") for sql in ("SET threads = 1", "ATTACH 'x.duckdb'")] == [
        store.SETTINGS.format(where="x"),
        store.DATABASES.format(where="x"),
    ]


def test_a_warehouse_named_through_a_symlink_reads_its_tables(db, tmp_path):
    """The views name the data files as the writer saw them; DuckDB compares the real paths."""
    (tmp_path / "link").symlink_to(db.parent, target_is_directory=True)
    linked = tmp_path / "link" / db.name
    count = reader.run(linked, "SELECT count(*) FROM core.rounds", lambda r: r.fetchall()[0][0], where="t")
    assert count == reader.run(db, "SELECT count(*) FROM core.rounds", lambda r: r.fetchall()[0][0], where="t") > 0
