"""The warehouse's writer (one at a time: a file lock) and the serving snapshots for readers.

The writer holds the Iceberg tables (iceberg.py) and `banco.duckdb` under `banco.duckdb.lock`:
the marts, and views over the tables at the warehouse's last commit. After each successful write
the file is written out as a new serving snapshot (serving.py names them), in a storage format every
DuckDB from 1.4 opens, which readers open read-only: a reader never holds the writer's file, a reader
with an older snapshot open keeps reading it, and the data files its views name, undisturbed, and
one that holds the newest read-write stops no one (the others read the previous one).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from models.settings import Settings
from models.warehouse import earlier, serving
from models.warehouse.location import register
from models.warehouse.serving import serving_path

if TYPE_CHECKING:  # the Iceberg library is for writers: readers never import it
    from models.warehouse.iceberg import Tables
from models.warehouse.schema import INGEST_LOG, SNAPSHOTS


class WarehouseError(Exception):
    """A warehouse that cannot be used as asked; the message says what to do."""


class SnapshotHeld(WarehouseError):
    """Other processes hold every serving snapshot open read-write; the message names them and the fix."""


#: The oldest storage format that holds what a serving snapshot needs: DuckDB 1.4 and newer opens it.
#: The writer's own file is kept in it too, so a snapshot is a plain copy of that file.
STORAGE_VERSION = "v1.4.0"
#: The storage version numbers (in a DuckDB file's header) DuckDB 1.4 and 1.5 read.
READABLE_BY_1X = range(64, 69)


def readable_by_1x(path: Path) -> bool:
    """Whether the DuckDB file at `path` is in a storage format DuckDB 1.x opens (its header says)."""
    with open(path, "rb") as file:
        header = file.read(20)
    return header[8:12] == b"DUCK" and int.from_bytes(header[12:20], "little") in READABLE_BY_1X


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
            maintenance.run(self.tables, keep=published_snapshots(self.path))
            self.look()


@contextmanager
def writer(path: Path) -> Iterator[Writer]:
    """The serving writer, one at a time (a file lock): the warehouse file with every table in place,
    any half-done commit rolled back and an earlier release's layout moved in; publishes the serving
    snapshot afterwards."""
    with writer_lock(path):
        if path.exists() and not readable_by_1x(path):  # written by an earlier release in 2.x's format
            _compact(path)
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


def published_snapshots(path: Path) -> frozenset[int] | None:
    """The Iceberg snapshots the published serving snapshots' views read (the current and the previous
    one: a publish removes the others), from the file beside each; none before the first publish.
    None when they cannot be known: an earlier release's snapshot, with no such file, held open."""
    kept: set[int] = set()
    for snapshot in serving.published(path):
        ids = serving.ids_file(snapshot)
        if ids.exists():
            kept.update(json.loads(ids.read_text()))
            continue
        con = duckdb.connect()  # attached, not opened: the process may hold the file open elsewhere
        try:
            con.execute("ATTACH ? AS published (READ_ONLY)", [str(snapshot)])
            kept.update(_snapshot_ids(con, "published"))
        except duckdb.Error:
            return None
        finally:
            con.close()
    return frozenset(kept)


def _snapshot_ids(con: duckdb.DuckDBPyConnection, database: str) -> list[int]:
    """The Iceberg snapshots the views of the attached `database` read (meta.snapshots; none without it)."""
    query = "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name || '.' || table_name = ?"
    if not con.execute(query, [database, SNAPSHOTS]).fetchall()[0][0]:
        return []
    return [row[0] for row in con.sql(f"SELECT snapshot_id FROM {database}.{SNAPSHOTS}").fetchall()]


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
    try:  # a new file is made in STORAGE_VERSION; a file keeps its own version as it is written
        con = duckdb.connect(str(path), config={"storage_compatibility_version": STORAGE_VERSION})
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
    """Rewrite the warehouse file in STORAGE_VERSION without its free blocks (DuckDB never shrinks a file)."""
    fresh = path.with_name(f".{path.name}.compact")
    fresh.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        con.execute(
            f"ATTACH '{path}' AS old (READ_ONLY); ATTACH '{fresh}' AS fresh (STORAGE_VERSION '{STORAGE_VERSION}')"
        )
        con.execute("COPY FROM DATABASE old TO fresh; DETACH old; DETACH fresh")
    finally:
        con.close()
    os.replace(fresh, path)


def publish(path: Path) -> Path:
    """Write the warehouse out as a new serving snapshot (a copy of its file, which is kept in
    STORAGE_VERSION), the Iceberg snapshots its
    views read beside it; point the link at it; remove every snapshot but it and the previous one. A
    process holding a snapshot open read-write stops none of it: no published file is written again."""
    _adopt(path)
    before = serving.published(path)
    target = serving.numbered(path, serving.number(before[0]) + 1 if before else 1)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    con = duckdb.connect()
    try:
        _limit(con)  # bounded memory, as every writer's connection
        con.execute("ATTACH ? AS warehouse (READ_ONLY)", [str(path)])
        ids = _snapshot_ids(con, "warehouse")
        if readable_by_1x(path):  # checkpointed by the writer: a copy of the file is the snapshot
            shutil.copyfile(path, tmp)
        else:  # a warehouse file the writer has not converted yet: written out in STORAGE_VERSION
            con.execute(f"ATTACH ? AS snapshot (STORAGE_VERSION '{STORAGE_VERSION}')", [str(tmp)])
            con.execute("COPY FROM DATABASE warehouse TO snapshot")
            con.execute("DETACH snapshot")
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    serving.ids_file(target).write_text(json.dumps(sorted(ids)))
    os.replace(tmp, target)
    link = serving_path(path)
    pointer = link.with_name(f".{link.name}.{os.getpid()}.link")
    pointer.unlink(missing_ok=True)
    pointer.symlink_to(target.name)
    os.replace(pointer, link)
    for old in before[1:]:  # a reader that has one open keeps reading it: the name goes, not the file
        for file in (old, serving.ids_file(old), old.with_name(old.name + ".wal")):
            file.unlink(missing_ok=True)
    return target


def _adopt(path: Path) -> None:
    """An earlier release's snapshot, a plain file under the link's name, numbered 0 (it is the previous
    one for the next publish), the Iceberg snapshots it reads noted beside it when it can be read."""
    link = serving_path(path)
    if link.is_symlink() or not link.is_file():
        return
    first = serving.numbered(path, 0)
    con = duckdb.connect()
    try:
        con.execute("ATTACH ? AS published (READ_ONLY)", [str(link)])
        serving.ids_file(first).write_text(json.dumps(sorted(_snapshot_ids(con, "published"))))
    except duckdb.Error:  # held open read-write: published_snapshots says its files cannot be known
        pass
    finally:
        con.close()
    os.replace(link, first)


def snapshot_current(path: Path) -> bool:
    """Whether the newest serving snapshot was written after the warehouse's last write (every write publishes)."""
    snapshots = serving.published(path)
    return bool(snapshots) and snapshots[0].stat().st_mtime_ns >= path.stat().st_mtime_ns


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


def published(path: Path) -> list[Path]:
    """The serving snapshots of the warehouse at `path`, newest first, which readers open; there must be one."""
    snapshots = serving.published(path)
    if not snapshots:
        raise WarehouseError(f"no warehouse at {path} yet: run `banco ingest PATH` or `banco up` first")
    return snapshots


def read(path: Path) -> duckdb.DuckDBPyConnection:
    """A read-only connection to the newest serving snapshot of the warehouse at `path` that no other
    process holds open read-write (one line on stderr when it passes one over), for the project's own
    code; SQL a user wrote goes through reader.py's locked connection."""

    def open_(snapshot: Path) -> duckdb.DuckDBPyConnection:
        try:
            return duckdb.connect(str(snapshot), read_only=True)
        except duckdb.Error as error:
            if serving.holder(error) is not None:
                raise
            raise WarehouseError(f"cannot open {snapshot}: {error}") from None

    try:
        con, passed_over = serving.newest(path, published(path), open_)
    except serving.Held as error:
        raise SnapshotHeld(str(error)) from None
    if passed_over:
        print(f"banco: warning: {passed_over}", file=sys.stderr)
    if earlier.needed(con):  # its views read banco.lake/, which an earlier release wrote
        con.close()
        raise WarehouseError(earlier.EARLIER.format(db=path))
    register(con, path)
    return con


def passed_over(path: Path) -> str | None:
    """What a reader would say now of the snapshots it passes over (other processes hold them open
    read-write), or None when it reads the newest; None too when it can read none (its error says so)."""

    def probe(snapshot: Path) -> None:
        con = duckdb.connect()
        try:
            con.execute("ATTACH ? AS probed (READ_ONLY)", [str(snapshot)])
        finally:
            con.close()

    try:
        return serving.newest(path, published(path), probe)[1]
    except (WarehouseError, serving.Held, duckdb.Error):
        return None
