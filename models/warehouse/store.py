"""The warehouse's writer (one at a time: a file lock) and a serving snapshot for readers.

The writer holds the Iceberg tables (iceberg.py) and `banco.duckdb` under `banco.duckdb.lock`:
the marts, and views over the tables at the warehouse's last commit. After each successful write
the file is copied and atomically renamed to `banco.serving.duckdb`, which readers open read-only:
a reader never holds the writer's file, and a reader with the old snapshot open keeps reading it,
and the data files its views name, undisturbed.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from models.settings import Settings
from models.warehouse import earlier
from models.warehouse.location import register

if TYPE_CHECKING:  # the Iceberg library is for writers: readers never import it
    from models.warehouse.iceberg import Tables
from models.warehouse.schema import INGEST_LOG, SNAPSHOTS


class WarehouseError(Exception):
    """A warehouse that cannot be used as asked; the message says what to do."""


def serving_path(path: Path) -> Path:
    return path.with_name(f"{path.stem}.serving{path.suffix}")


@contextmanager
def writer_lock(path: Path, wait_seconds: float = 600.0) -> Iterator[None]:
    """Hold the warehouse's single-writer lock, waiting for another writer up to `wait_seconds`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WarehouseError(
                        f"another writer has held {path} for {wait_seconds:.0f} s; try again later"
                    ) from None
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass
class Writer:
    """The warehouse as a writer holds it: a DuckDB connection (the serving writer's is the file,
    with the marts; a shard's is in memory) whose views read the Iceberg tables at the commit
    `point`, and the Iceberg tables."""

    con: duckdb.DuckDBPyConnection
    tables: Tables
    path: Path
    point: dict[str, int] = field(default_factory=dict)

    def commit(self, by: str, log_files: list[str] = ()) -> None:
        """The warehouse's commit (the log's, naming every table's snapshot), and the views on it."""
        self.look(self.tables.record(by, log_files))

    def look(self, point: dict[str, int] | None = None) -> None:
        """Point the views at `point`, or at the warehouse's latest commit (other writers' included)."""
        from models.warehouse import views

        if point is None:
            self.tables.loaded.pop(INGEST_LOG, None)  # the log as it is now, not as this writer last read it
            point = self.tables.commit_point()
        if point != self.point:
            views.point_at(self.con, self.tables, point)
            self.point = point

    def maintain(self) -> None:
        """Merge small files, expire old snapshots (never the ones the published serving file
        reads), and point the views at the result."""
        from models.warehouse import maintenance

        with self.tables.exclusive():
            maintenance.run(self.tables, keep=_published_snapshots(self.path))
            self.look()


@contextmanager
def writer(path: Path) -> Iterator[Writer]:
    """The serving writer, one at a time (a file lock): the warehouse file with every table in place,
    any half-done commit rolled back and an earlier release's layout moved in; publishes the serving
    snapshot afterwards."""
    with writer_lock(path):
        con = _connect(path)
        try:
            tables = open_tables(path)
            with tables.exclusive():
                migrated = prepare(con, tables, path)
            if migrated:  # tables moved out of the file: their space stays until rewritten
                con.close()
                _compact(path)
                con = _connect(path)
            yield Writer(con, tables, path, tables.commit_point())
            con.execute("CHECKPOINT")
        finally:
            con.close()
        publish(path)


@contextmanager
def shard_writer(path: Path) -> Iterator[Writer]:
    """A writer on any machine, beside others on other shards: the Iceberg tables and an in-memory
    DuckDB connection with views over them; no warehouse file, nothing published (the serving
    writer's job). Refuses a warehouse an earlier release wrote, which only the serving writer moves in."""
    _refuse_earlier(path)
    tables = open_tables(path)
    tables.recover()
    with _in_memory(path, tables) as (con, point):
        yield Writer(con, tables, path, point)


@contextmanager
def current(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB connection whose views read every table at the warehouse's latest commit:
    what a worker on any machine reads (no warehouse file, no lock, nothing written)."""
    with _in_memory(path, open_tables(path)) as (con, _):
        yield con


@contextmanager
def at(path: Path, tables: Tables, point: dict[str, int], file: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A new DuckDB file `file` whose views read the warehouse's tables at the commit `point` (an
    earlier one: travel.py), nothing else in it yet: a scratch warehouse, written by its caller alone."""
    from models.warehouse import views

    con = duckdb.connect(str(file))
    try:
        _limit(con)
        register(con, path)
        views.point_at(con, tables, point)
        yield con
        con.execute("CHECKPOINT")
    finally:
        con.close()


@contextmanager
def _in_memory(path: Path, tables: Tables) -> Iterator[tuple[duckdb.DuckDBPyConnection, dict[str, int]]]:
    """An in-memory DuckDB connection with views over the tables at their latest commit, and that commit."""
    from models.warehouse import views

    con = duckdb.connect()
    try:
        _limit(con)
        register(con, path)
        point = tables.commit_point()
        views.point_at(con, tables, point)
        yield con, point
    finally:
        con.close()


def _refuse_earlier(path: Path) -> None:
    """Raise when the warehouse file holds an earlier release's layout. A file the serving writer
    holds open cannot be opened beside it, and needs no look: that writer moved it in as it opened."""
    if not path.exists():
        return
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.IOException:
        return
    try:
        if earlier.needed(con):
            raise WarehouseError(earlier.EARLIER.format(db=path))
    finally:
        con.close()


@contextmanager
def write(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A writer's DuckDB connection (marts, and views over the tables); publishes afterwards."""
    with writer(path) as w:
        yield w.con


def _published_snapshots(path: Path) -> frozenset[int]:
    """The Iceberg snapshots the serving file's views read (none before the first publish)."""
    snapshot = serving_path(path)
    if not snapshot.exists():
        return frozenset()
    con = duckdb.connect()  # attached, not opened: the process may hold the file open elsewhere
    try:
        con.execute("ATTACH ? AS published (READ_ONLY)", [str(snapshot)])
        query = (
            "SELECT count(*) FROM duckdb_tables() "
            "WHERE database_name = 'published' AND schema_name || '.' || table_name = ?"
        )
        if not con.execute(query, [SNAPSHOTS]).fetchall()[0][0]:
            return frozenset()
        return frozenset(row[0] for row in con.sql(f"SELECT snapshot_id FROM published.{SNAPSHOTS}").fetchall())
    finally:
        con.close()


def open_tables(path: Path) -> Tables:
    """The warehouse's Iceberg tables; one line of WarehouseError when they cannot be opened."""
    from sqlalchemy.exc import SQLAlchemyError

    from models.logs.read import reason  # the log reader's Polars and Arrow: a reader of the snapshot never needs them
    from models.warehouse.iceberg import Tables

    try:
        return Tables.open(path)
    except (OSError, SQLAlchemyError, ValueError) as error:
        raise WarehouseError(f"cannot open the tables of {path}: {reason(error)}") from None


def _connect(path: Path) -> duckdb.DuckDBPyConnection:
    try:
        con = duckdb.connect(str(path))
    except duckdb.Error as error:
        raise WarehouseError(f"cannot open {path}: {error}") from None
    _limit(con)
    register(con, path)
    return con


def _limit(con) -> None:
    # Bounded memory however large the file: DuckDB spills to disk past this.
    con.execute(f"SET memory_limit = '{Settings.from_env().duckdb_memory}'")
    con.execute("SET enable_progress_bar = false")  # it would print into the commands' output


def prepare(con, tables: Tables, path: Path) -> bool:
    """At a writer's open: a warehouse of an earlier release moved onto the Iceberg tables (returns
    whether it was), tables a stopped writer left ahead of the warehouse's commit rolled back, and
    the views pointed at that commit."""
    tables.recover()
    from models.warehouse import migrate, views

    migrated = migrate.run(con, tables, path)
    views.point_at(con, tables, tables.commit_point())
    return migrated


def _compact(path: Path) -> None:
    """Rewrite the warehouse file without its free blocks (DuckDB never shrinks a file)."""
    fresh = path.with_name(f".{path.name}.compact")
    fresh.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{path}' AS old (READ_ONLY); ATTACH '{fresh}' AS fresh")
        con.execute("COPY FROM DATABASE old TO fresh; DETACH old; DETACH fresh")
    finally:
        con.close()
    os.replace(fresh, path)


def publish(path: Path) -> Path:
    """Copy the warehouse to a temporary file and rename it over the serving snapshot."""
    target = serving_path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copyfile(path, tmp)
    os.replace(tmp, target)
    return target


def snapshot_current(path: Path) -> bool:
    """Whether the serving snapshot was copied after the warehouse's last write (every write publishes)."""
    target = serving_path(path)
    return target.exists() and target.stat().st_mtime_ns >= path.stat().st_mtime_ns


#: What a reader is told for each kind of statement it does not run: readers run one query (a
#: SELECT, or an EXPLAIN of one) and refuse everything else up front, by statement type. DuckDB's
#: locked connection (reader.py) refuses most of these too, but in words that do not say why, and a
#: few it would run: COPY into the tables' own folder, CHECKPOINT, CREATE TEMP TABLE.
WRITE = "{where} is read-only: it runs queries on the serving snapshot, never writes"
FILES = "file access is not allowed in {where}: it reads the warehouse only"
DATABASES = "attaching or detaching databases is not allowed in {where}"
EXTENSIONS = "installing or loading extensions is not allowed in {where}"
SETTINGS = "settings cannot be changed in {where}: its limits are fixed (the BANCO_SQL_* settings)"
QUERIES_ONLY = "{where} runs queries only (SELECT, WITH, FROM, SHOW, DESCRIBE, SUMMARIZE, EXPLAIN)"
SERVER = "{name} is not allowed in {where}: it shows the server, not the warehouse"
FUNCTIONS = "the table function {name}() is not allowed in {where}: docs/warehouse.md lists those it allows"
_type = duckdb.StatementType
REFUSED = {
    _type.INSERT: WRITE, _type.UPDATE: WRITE, _type.DELETE: WRITE, _type.MERGE_INTO: WRITE, _type.CREATE: WRITE,
    _type.CREATE_FUNC: WRITE, _type.DROP: WRITE, _type.ALTER: WRITE, _type.VACUUM: WRITE,
    _type.COPY: FILES, _type.COPY_DATABASE: FILES, _type.EXPORT: FILES,
    _type.ATTACH: DATABASES, _type.DETACH: DATABASES,
    _type.LOAD: EXTENSIONS, _type.EXTENSION: EXTENSIONS,  # INSTALL is a LOAD
    _type.SET: SETTINGS, _type.VARIABLE_SET: SETTINGS, _type.PRAGMA: SETTINGS,  # SET, RESET, USE, PRAGMA
}  # fmt: skip
#: What EXPLAIN [ANALYZE] [(options)] explains: the statement after them.
EXPLAINED = re.compile(r"\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?(?P<statement>.*)", re.IGNORECASE | re.DOTALL)


def refusal(sql: str, where: str) -> str | None:
    """Why `where` does not run `sql`, in one line, or None for one query (raises duckdb.Error
    when it does not parse)."""
    statements = duckdb.extract_statements(sql)
    if not statements:
        return f"{where} needs a query: nothing was given"
    if len(statements) > 1:
        return f"{where} runs one query at a time: {len(statements)} statements were given"
    try:
        return _refusal(statements[0], where, explained=False)
    except ValueError:  # a statement type the Python API does not name (UPDATE EXTENSIONS)
        return QUERIES_ONLY.format(where=where)


#: The table functions a query may call: rows made up (range, unnest), JSON taken apart, the catalog
#: that describes the warehouse, and the data files of the snapshot's views read by name (meta.snapshots
#: lists them; DuckDB refuses any other file: sandbox.connect). The others read other files, run SQL
#: given as text (query, query_table), or show the server.
TABLE_FUNCTIONS = frozenset({
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree", "summary",
    "read_parquet", "parquet_scan", "parquet_metadata", "parquet_schema", "parquet_file_metadata",
    "parquet_kv_metadata", "parquet_full_metadata", "parquet_bloom_probe",
    "duckdb_columns", "duckdb_tables", "duckdb_views", "duckdb_schemas", "duckdb_types", "duckdb_functions",
    "duckdb_keywords", "duckdb_constraints", "duckdb_indexes", "duckdb_sequences", "duckdb_dependencies",
    "duckdb_optimizers", "duckdb_memory", "pragma_table_info", "table_info", "pragma_show", "show",
    "show_tables", "show_tables_expanded", "show_databases", "pragma_version", "version", "pragma_platform",
    "platform", "pragma_collations", "collations", "pg_timezone_names", "icu_calendar_names", "test_all_types",
    "histogram", "histogram_values",
})  # fmt: skip
#: Catalog views and functions, of any kind, that show the server's paths: the attached file's, and
#: the settings' values (the files a reader may read, the home and secret folders).
SHOWS_THE_SERVER = frozenset({
    "duckdb_databases", "pragma_database_list", "database_list", "duckdb_settings", "pg_settings",
    "current_setting", "duckdb_logs", "duckdb_logs_parsed", "duckdb_log_contexts",
})  # fmt: skip


def _refusal(statement, where: str, explained: bool) -> str | None:
    if statement.type == _type.SELECT:
        return _reaches(statement.query, where)
    if statement.type == _type.EXPLAIN and not explained:
        match = EXPLAINED.fullmatch(statement.query)
        inner = duckdb.extract_statements(match["statement"]) if match else []
        return _refusal(inner[0], where, explained=True) if len(inner) == 1 else QUERIES_ONLY.format(where=where)
    if statement.type == _type.PRAGMA and statement.query.lstrip().upper().startswith("IMPORT"):
        return FILES.format(where=where)  # IMPORT DATABASE is a PRAGMA
    return REFUSED.get(statement.type, QUERIES_ONLY).format(where=where)


def _reaches(query: str, where: str) -> str | None:
    """Why `where` refuses a query for a function or view it names, or None: read off DuckDB's own
    parse of it (json_serialize_sql), wherever it is named (a subquery, a CTE, a join)."""
    con = duckdb.connect()
    try:
        tree = json.loads(con.sql("SELECT json_serialize_sql(?)", params=[query]).fetchall()[0][0])
    finally:
        con.close()
    if tree.get("error"):  # a query DuckDB cannot write out is one it cannot vouch for
        return QUERIES_ONLY.format(where=where)
    named: dict[str, set[str]] = {"TABLE_FUNCTION": set(), "FUNCTION": set(), "BASE_TABLE": set()}
    _names(tree["statements"], named)
    for name in sorted(named["TABLE_FUNCTION"] - TABLE_FUNCTIONS):
        if name in SHOWS_THE_SERVER:
            return SERVER.format(name=f"{name}()", where=where)
        reads = name.startswith("read_") or name in ("glob", "sniff_csv")
        return (FILES if reads else FUNCTIONS).format(name=name, where=where)
    if any("/" in name for name in named["BASE_TABLE"]):  # a file's name: `FROM 'x/y.parquet'`
        return FILES.format(where=where)
    for name in sorted((named["FUNCTION"] | named["BASE_TABLE"]) & SHOWS_THE_SERVER):
        return SERVER.format(name=name, where=where)
    return None


def _names(node, named: dict[str, set[str]]) -> None:
    """Into `named`, by kind: the table functions, the other functions, and the tables or views `node` names."""
    if isinstance(node, list):
        for item in node:
            _names(item, named)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "TABLE_FUNCTION" and isinstance(node.get("function"), dict):
        named["TABLE_FUNCTION"].add(str(node["function"].get("function_name", "")).lower())
    elif node.get("class") == "FUNCTION":
        named["FUNCTION"].add(str(node.get("function_name", "")).lower())
    elif node.get("type") == "BASE_TABLE":
        named["BASE_TABLE"].add(str(node.get("table_name", "")).lower())
    for value in node.values():
        _names(value, named)


#: DuckDB types Polars can neither take in nor write out: they are shown as DuckDB's text for them.
AS_TEXT = {"interval", "blob", "bit", "bignum", "varint", "union", "time with time zone"}
NESTED = {"list", "array", "struct", "map"}


def printable(relation: duckdb.DuckDBPyRelation, nested_as_json: bool) -> duckdb.DuckDBPyRelation:
    """An ad-hoc query's columns, each in a type Polars can print and write: a few as text, and
    with `nested_as_json` lists and structs as JSON text (CSV has no nested values)."""
    columns = []
    for position, (name, dtype) in enumerate(zip(relation.columns, relation.dtypes, strict=True), start=1):
        column = f"#{position}"  # by position: a query may name two columns alike
        if dtype.id in AS_TEXT:
            column = f"CAST({column} AS VARCHAR)"
        elif dtype.id in NESTED and nested_as_json:
            column = f"CAST(to_json({column}) AS VARCHAR)"
        quoted = '"' + name.replace('"', '""') + '"'
        columns.append(f"{column} AS {quoted}")
    return relation.project(", ".join(columns))


def published(path: Path) -> Path:
    """The serving snapshot of the warehouse at `path`, which readers open; it must exist."""
    snapshot = serving_path(path)
    if not snapshot.exists():
        raise WarehouseError(f"no warehouse at {path} yet: run `banco ingest PATH` or `banco up` first")
    return snapshot


def read(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the serving snapshot of the warehouse at `path`, for the project's
    own code; SQL a user wrote goes through reader.py's locked connection."""
    snapshot = published(path)
    try:
        con = duckdb.connect(str(snapshot), read_only=True)
    except duckdb.Error as error:
        raise WarehouseError(f"cannot open {snapshot}: {error}") from None
    if earlier.needed(con):  # its views read banco.lake/, which an earlier release wrote
        con.close()
        raise WarehouseError(earlier.EARLIER.format(db=path))
    register(con, path)
    return con
