"""The locked read path: each attack on user SQL refused in one line, by the up-front check or by DuckDB's
own locked connection, the limits in place and fixed, only the files the snapshot's views name readable
and no path of the server shown, a query past the memory cap stopped in its own process before it grows
its caller, and a long query interrupted at its time limit or when its caller says stop. `ATTACKS` and
`Peak` are shared with the tests of `banco sql` and the dashboard's console."""

from __future__ import annotations

import resource
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
SERVER = "it shows the server, not the warehouse"
NOT_ALLOWED = "is not allowed in"
MEMORY = "of memory and was stopped (BANCO_SQL_MEMORY)"
GIB = 1024**3

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
    "every snapshot's data files": ("SELECT count(*) FROM read_parquet('{tables}/**/*.parquet')", FILES),
    "a table's folder of data files": ("SELECT count(*) FROM read_parquet('{tables}/core/rounds/data/*')", FILES),
    "glob of the tables": ("SELECT * FROM glob('{tables}/**')", FILES),
    "iceberg metadata as text": ("SELECT content FROM read_text('{tables}/core/rounds/metadata/*.json')", FILES),
    "iceberg metadata as json": ("SELECT * FROM read_json('{tables}/core/rounds/metadata/*.json')", FILES),
    "the serving file by name": ("FROM '{tables}/../banco.serving.duckdb'", FILES),
    "the databases' paths": ("SELECT path FROM duckdb_databases()", SERVER),
    "the databases' paths as a view": ("SELECT * FROM duckdb_databases", SERVER),
    "the database list": ("SELECT * FROM pragma_database_list", SERVER),
    "the settings": ("SELECT name, value FROM duckdb_settings()", SERVER),
    "the settings as postgres shows them": ("SELECT * FROM pg_catalog.pg_settings", SERVER),
    "a setting's value": ("SELECT current_setting('allowed_paths')", SERVER),
    "sql given as text": ("SELECT * FROM query('SELECT path FROM duckdb_databases()')", NOT_ALLOWED),
    "serialized sql": ("SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))", NOT_ALLOWED),
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
    """Two ingests: the second replaces core.shoes' data file, so the folder holds a file of an
    earlier snapshot that the serving snapshot no longer reads."""
    path = tmp_path_factory.mktemp("reader") / "banco.duckdb"
    ingest(path, [SAMPLES / "01_rounds_suited.csv"])
    ingest(path, [SAMPLES / "03_rounds_value_only.jsonl"])
    return path


class Peak:
    """The most memory this process came to hold while the `with` block ran, beyond what it held before
    (`grown`), and the most a process it started meanwhile came to hold (`children`): each child's own
    peak since its exec (VmHWM), sampled every few milliseconds. (Linux's peak of the children waited
    for, ru_maxrss, keeps this process's own peak across a child's fork and exec: a pytest worker that
    grew to 2 GB would pass it on.)"""

    def __enter__(self) -> Peak:
        self.before, self.grown, self.sampled, self._done = _resident(), 0, 0, threading.Event()
        # only the processes started in the block: a server a session fixture started earlier (PostgreSQL,
        # the S3 endpoint) is a child of this worker too, with a high-water mark of its own
        self._earlier = set(_children())
        self._watch = threading.Thread(target=self._sample, daemon=True)
        self._watch.start()
        return self

    def _sample(self) -> None:
        while not self._done.wait(0.005):
            self.grown = max(self.grown, _resident() - self.before)
            self.sampled = max([self.sampled, *map(_high_water, set(_children()) - self._earlier)])

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._watch.join()
        self.children = self.sampled


def _resident(pid: int | str = "self") -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()
    except (OSError, IndexError):  # ended meanwhile
        return 0


_OWN_COMMAND = Path("/proc/self/cmdline").read_bytes()


def _children() -> list[str]:
    found = []
    for task in Path("/proc/self/task").iterdir():
        try:
            found += (task / "children").read_text().split()
        except OSError:
            continue
    return found


def _high_water(pid: str) -> int:
    """The most the process has held since its exec (VmHWM), in bytes; 0 once it ended, or before its
    exec: a child forked and not yet exec'd still maps this worker's memory (and, after a vfork, is it),
    so its counters are the worker's, which may be gigabytes."""
    try:
        if Path(f"/proc/{pid}/cmdline").read_bytes() == _OWN_COMMAND:
            return 0
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0)


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
        ("every snapshot's data files", "Cannot access file"),
        ("a table's folder of data files", "Cannot access file"),
        ("glob of the tables", "Cannot access file"),
        ("iceberg metadata as json", "Cannot access file"),
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
    """COPY into the tables' own folder, CHECKPOINT and temporary tables pass DuckDB's lock, and the
    catalog shows the server's paths on it: the check up front is what refuses them."""
    for name in ("copy into the tables", "checkpoint", "temp table", "the databases' paths", "the settings",
                 "a setting's value", "the serving file by name", "sql given as text"):  # fmt: skip
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
                "'autoinstall_known_extensions', 'allowed_directories', 'profiling_output', "
                "'max_temp_directory_size', 'python_enable_replacements')"
            ).fetchall()
        )
        allowed = con.sql("SELECT unnest(current_setting('allowed_paths'))").fetchall()
    finally:
        con.close()
    assert settings["memory_limit"] in ("953.6 MiB", "1.0 GB", "1GB"), settings["memory_limit"]
    assert settings["threads"] == "1" and settings["temp_directory"] == "" and settings["profiling_output"] == ""
    assert settings["max_temp_directory_size"] == "0 bytes" and settings["python_enable_replacements"] == "false"
    assert settings["enable_external_access"] == "false" and settings["lock_configuration"] == "true"
    assert settings["autoload_known_extensions"] == settings["autoinstall_known_extensions"] == "false"
    assert settings["allowed_directories"] == "[]"  # no folder: the files alone (below)
    attached = str(store.published(db)[0])  # the newest serving snapshot
    files = {path for (path,) in allowed if not path.startswith(attached)}  # DuckDB adds the attached file's own
    assert files == viewed(db) and tables_folder(db) == db.with_name("banco.iceberg")


def viewed(db: Path) -> set[str]:
    """The data files the serving snapshot's views read (meta.snapshots lists them)."""
    con = read(db)
    try:
        listed = con.sql("SELECT DISTINCT unnest(locations) FROM meta.snapshots").fetchall()
    finally:
        con.close()
    return {location.removeprefix("file://") for (location,) in listed}


def test_the_files_the_views_name_are_read_and_no_other(db):
    """Finding 6 of issue #33: every snapshot's data files, and the Iceberg metadata beside them, were
    readable; now exactly the files the serving snapshot's views read are, each by its name."""
    count = reader.run(db, "SELECT count(*) FROM core.rounds", lambda relation: relation.fetchall()[0][0], where="t")
    con = read(db)
    try:
        assert count == con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0] > 0
    finally:
        con.close()
    folder, named = tables_folder(db), viewed(db)
    unnamed = {str(path) for path in folder.rglob("*.parquet")} - named
    assert named and unnamed  # a file an earlier snapshot read, which the serving one does not
    for file in sorted(named):
        assert reader.run(db, f"SELECT count(*) FROM read_parquet('{file}')", fetch, where="t")[0][0] >= 0
        assert reader.run(db, f"SELECT count(*) FROM parquet_metadata('{file}')", fetch, where="t")[0][0] > 0
    metadata = next(folder.rglob("*.metadata.json"))
    for sql in [
        *(f"SELECT count(*) FROM read_parquet('{file}')" for file in sorted(unnamed)),
        *(f"SELECT * FROM parquet_metadata('{file}')" for file in sorted(unnamed)),
        f"SELECT count(*) FROM read_parquet('{folder}/**/*.parquet')",
        f"SELECT file FROM glob('{folder}/**')",
        f"SELECT file FROM glob('{sorted(named)[0]}')",
        f"SELECT content FROM read_text('{metadata}')",
        f"SELECT * FROM read_json('{metadata}')",
        f"SELECT * FROM read_blob('{folder.parent}/banco.catalog.db')",  # the catalog beside it
    ]:
        with pytest.raises(reader.QueryError) as refused:
            reader.run(db, sql, fetch, where="t")
        assert str(refused.value) == store.FILES.format(where="t"), sql


#: Catalog queries a reader may run: none of them shows a path of the server.
CATALOG = [
    "SHOW DATABASES",
    "SHOW ALL TABLES",
    "SELECT * FROM information_schema.schemata",
    "SELECT * FROM duckdb_schemas()",
    "SELECT * FROM duckdb_tables()",
    "SELECT * FROM pg_catalog.pg_database",
    "SELECT * FROM duckdb_memory()",
    "EXPLAIN ANALYZE SELECT count(*) FROM core.shoes",
    "SELECT current_database(), current_schema(), version()",
]


def test_no_path_of_the_server_is_shown(db):
    """Finding 6 of issue #33: duckdb_databases() showed the server's paths; now no catalog query a
    reader may run shows the serving file's path, its folder's, or the home folder's, and those
    that would are refused in one line."""
    hidden = [str(store.serving_path(db)), str(db.parent), str(Path.home())]
    for sql in CATALOG:
        shown = str(reader.run(db, sql, fetch, where="t"))
        assert not any(path in shown for path in hidden), (sql, shown)
    for name in ("the databases' paths", "the databases' paths as a view", "the database list", "the settings",
                 "the settings as postgres shows them", "a setting's value", "sql given as text"):  # fmt: skip
        with pytest.raises(reader.QueryError) as refused:
            reader.run(db, attack(name, db, Path("/nowhere")), fetch, where="t")
        assert "\n" not in str(refused.value) and not any(path in str(refused.value) for path in hidden)


def fetch(relation):
    return relation.fetchall()


def test_a_list_past_the_memory_cap_is_refused_at_once_outside_this_process(db):
    """Finding 5 of issue #33: `unnest(range(1e9))` built its 8 GB list past DuckDB's memory_limit (20.8 GB
    seen, 68 s); now its process cannot grow past the cap, so it fails at once, in one line, and this
    process holds nothing of it."""
    started = time.monotonic()
    with Peak() as peak, pytest.raises(reader.QueryError) as refused:
        reader.run(db, "SELECT unnest(range(1000000000))", fetch, where="t", limits=reader.Limits(memory="1GB"))
    assert str(refused.value) == "the query needed more than 1GB of memory and was stopped (BANCO_SQL_MEMORY)"
    assert time.monotonic() - started < 5
    assert peak.grown < 0.2 * GIB and peak.children < 1.5 * GIB, (peak.grown, peak.children)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*) FROM (SELECT unnest(range(100000000)))",  # 7.3 GB before, and it finished
        "SELECT length(repeat('x', 800000000)) AS n",  # a string built whole
        "SELECT len(list(range)) FROM range(300000000)",  # an aggregate built whole
    ],
)
def test_a_query_never_holds_more_than_the_cap_and_a_half_gigabyte(db, sql):
    """Whether it finishes or not: its process stays under the cap plus 0.5 GB, this one as it was."""
    with Peak() as peak:
        try:
            reader.run(db, sql, fetch, where="t", limits=reader.Limits(memory="1GB"))
        except reader.QueryError as error:
            assert MEMORY in str(error), error
    assert peak.grown < 0.2 * GIB and peak.children < 1.5 * GIB, (peak.grown, peak.children)


def test_a_result_past_its_limits_is_refused_before_its_caller_holds_it(db):
    """A caller holds at most BANCO_SQL_RESULT_SIZE and BANCO_SQL_RESULT_ROWS of a result whole; one that
    writes rows out as they come (`whole=False`) may take any number, a batch at a time."""
    limits = reader.Limits(result_size="64MB", result_rows=1000)
    with Peak() as peak, pytest.raises(reader.QueryError) as refused:
        reader.run(db, "SELECT range(20000000) AS big", fetch, where="t", limits=limits)
    assert str(refused.value).startswith("the result is larger than 64MB and was stopped (BANCO_SQL_RESULT_SIZE)")
    assert peak.grown < 0.2 * GIB
    with pytest.raises(reader.QueryError, match=r"more than 1,000 rows and was stopped \(BANCO_SQL_RESULT_ROWS\)"):
        reader.run(db, "SELECT * FROM range(5000)", fetch, where="t", limits=limits)
    counted = reader.run(db, "SELECT * FROM range(50000)", count_rows, where="t", limits=limits, whole=False)
    assert counted == 50000
    with pytest.raises(reader.QueryError, match="rows of the result are larger than 64MB"):
        reader.run(db, "SELECT repeat('x', 70000000) AS wide", count_rows, where="t", limits=limits, whole=False)


def count_rows(relation) -> int:
    return sum(batch.num_rows for batch in relation.to_arrow_reader(1000))


def test_names_and_types_arrive_as_duckdb_gave_them(db):
    """The rows cross from the query's process as Arrow: names used twice, an ENUM and DuckDB's own
    types come back as they were."""
    sql = "SELECT 1 AS n, 2 AS n, 'a'::ENUM('a', 'b') AS e, 1::HUGEINT AS h, INTERVAL 1 DAY AS i, 12.5::DECIMAL(18,4) d"

    def described(relation):
        return list(relation.columns), [str(dtype) for dtype in relation.dtypes], relation.fetchall()

    names, types, rows = reader.run(db, sql, described, where="t")
    assert names == ["n", "n", "e", "h", "i", "d"]
    assert types == ["INTEGER", "INTEGER", "ENUM('a', 'b')", "HUGEINT", "INTERVAL", "DECIMAL(18,4)"]
    assert rows[0][:4] == (1, 2, "a", 1)


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
        "SELECT 6 / 2 AS half, 7 // 2 AS whole",  # an operator is a function named '/'
        "SELECT * FROM range(3) JOIN LATERAL unnest([range, range * 2]) AS u(x) ON true",
        "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'core'",
        "PIVOT (SELECT 1 AS a, 2 AS b) ON a IN (1, 2) USING sum(b)",
        "SHOW DATABASES",
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
