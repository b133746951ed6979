"""The serving snapshot written as a folder that opens anywhere: `banco.duckdb` holds the marts and
the other DuckDB tables, and views over copies of the Iceberg tables' data files in `data/`, named
by paths relative to the folder (DuckDB resolves them against its working directory or
`file_search_path`, never against the database file's folder)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from models.gaming_day import GamingDay
from models.warehouse import store, travel, views
from models.warehouse.export import cut as cutting
from models.warehouse.export import readme
from models.warehouse.location import Settings, local_path, object_store
from models.warehouse.schema import BUILT_FROM, INGEST_LOG, SNAPSHOTS, TABLES

FILE = "banco.duckdb"
DATA = "data"
README = "README.md"
#: The exported database's name on the writing connection.
TARGET = "exported"


@dataclass
class Written:
    """What an export wrote: its folder, rows per relation and how each was chosen, its data files."""

    folder: Path
    cut: cutting.Cut
    day: GamingDay
    rows: dict[str, int] = field(default_factory=dict)
    how: dict[str, str] = field(default_factory=dict)
    other_views: list[str] = field(default_factory=list)
    files: int = 0
    log_snapshot: int = 0
    pointed_at: dt.datetime | None = None
    built: travel.Commit | None = None
    made_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))

    def size(self) -> int:
        return sum(path.stat().st_size for path in self.folder.rglob("*") if path.is_file())


def refuse(folder: Path) -> None:
    """One-line ValueError for a folder an export may not write: it writes a new or empty one only."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is a file: export writes a new folder (or an empty one)")
    if folder.is_dir() and any(folder.iterdir()):
        raise ValueError(f"{folder} is not empty: export writes a new folder (or an empty one), never over files")


def write(db: Path, folder: Path, cut: cutting.Cut, day: GamingDay) -> Written:
    """Export the serving snapshot of the warehouse at `db` into `folder` (new or empty), keeping the
    rows `cut` keeps. Gaming days are the marts' (their build's settings), else `day`'s. Written in a
    hidden folder beside it and renamed into place: a failed export leaves nothing."""
    folder = folder.absolute()
    refuse(folder)
    con = store.read(db)
    try:
        commit, settings = travel.built(_rows(con, travel.BUILT))
        if settings is not None:
            day = GamingDay(settings["timezone"], int(settings["day_start_hour"]))
        cutting.prepare(con, cut, day)
        written = Written(folder, cut, day, built=commit)
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = folder.with_name(f".{folder.name}.export-{os.getpid()}")
        staging.mkdir()
        try:
            _fill(con, db, staging, written)
            (staging / README).write_text(readme.text(written))
            os.replace(staging, folder)  # over an empty folder, or none
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return written
    finally:
        con.close()


def _rows(con, sql: str) -> list[tuple]:
    return con.sql(sql).fetchall() if views.exists(con, BUILT_FROM) else []


def _fill(con, db: Path, staging: Path, written: Written) -> None:
    """Into `staging`: the data files of the Iceberg tables, then the database file naming them."""
    source = con.sql("SELECT current_database()").fetchall()[0][0]
    snapshots = con.sql(f"SELECT * FROM {SNAPSHOTS}").pl()
    listed = {name: views.locations(con, name) for name in TABLES}
    con.execute(f"SET file_search_path = '{_text(staging)}'")  # the views bind their relative paths
    con.execute(f"ATTACH '{_text(staging / FILE)}' AS {TARGET} (READ_WRITE, STORAGE_VERSION '{store.STORAGE_VERSION}')")
    try:
        con.execute(f"USE {TARGET}")
        found = "SELECT schema_name FROM duckdb_schemas() WHERE database_name = ? AND NOT internal"
        for (schema,) in con.execute(found, [source]).fetchall():
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {_name(schema)}")
        relative = {name: _data(con, db, staging, source, name, listed[name], written) for name in TABLES}
        _tables(con, source, written, snapshots, relative)
        _views(con, source, written)
        con.execute("CHECKPOINT")
    finally:
        con.execute(f"USE {_name(source)}")
        con.execute(f"DETACH {TARGET}")
    log = snapshots.filter(table_name=INGEST_LOG)
    if log.height:
        written.log_snapshot, written.pointed_at = log["snapshot_id"][0], log["pointed_at"][0]


def _data(con, db: Path, staging: Path, source: str, name: str, locations: list[str], written: Written) -> list[str]:
    """Table `name`'s data files copied into `staging`, as they are or cut down to one new file, and
    its view over them; their paths relative to `staging`."""
    schema, table = name.split(".")
    folder = PurePosixPath(DATA, schema, table)
    (staging / folder).mkdir(parents=True)
    select, how = cutting.rows(f"{_name(source)}.{name}", _columns(con, source, name), written.cut, iceberg=True)
    written.how[name] = how
    if how == "whole":  # numbered: two files of a table may share a name in different folders
        relative = [str(folder / f"{n:05d}-{PurePosixPath(location).name}") for n, location in enumerate(locations)]
        for location, path in zip(locations, relative, strict=True):
            _copy(db, location, staging / path)
        counted = f"{_name(source)}.{name}"
    else:
        relative = [str(folder / "cut.parquet")]
        counted = f"read_parquet('{_text(staging / relative[0])}')"
        con.execute(f"COPY ({select}) TO '{_text(staging / relative[0])}' (FORMAT parquet, COMPRESSION zstd)")
    written.rows[name] = con.sql(f"SELECT count(*) FROM {counted}").fetchall()[0][0]
    written.files += len(relative)
    con.execute(f"CREATE VIEW {name} AS {views.source(name, relative)}")
    return relative


def _copy(db: Path, location: str, path: Path) -> None:
    """A data file copied as it is: hard-linked when on this filesystem, else its bytes copied."""
    if "://" in local_path(location):
        object_store(Settings.of(db)).get(location, str(path))
        return
    try:
        os.link(local_path(location), path)
    except OSError:  # another filesystem, or links not allowed
        shutil.copyfile(local_path(location), path)


def _columns(con, database: str, name: str) -> set[str]:
    schema, table = name.split(".")
    found = (
        "SELECT column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = ? AND table_name = ? "
        "ORDER BY column_index"
    )
    return {row[0] for row in con.execute(found, [database, schema, table]).fetchall()}


def _tables(con, source: str, written: Written, snapshots, relative: dict[str, list[str]]) -> None:
    """The source's DuckDB tables (the marts, the build's ledger), with their own definitions, cut
    down; meta.snapshots naming the exported files."""
    found = "SELECT schema_name || '.' || table_name, sql FROM duckdb_tables() WHERE database_name = ? ORDER BY 1"
    for table, sql in con.execute(found, [source]).fetchall():
        con.execute(sql)
        if table == SNAPSHOTS:
            continue
        columns = _columns(con, source, table)
        select, written.how[table] = cutting.rows(f"{_name(source)}.{table}", columns, written.cut, iceberg=False)
        con.execute(f"INSERT INTO {table} {select}")
        written.rows[table] = con.sql(f"SELECT count(*) FROM {table}").fetchall()[0][0]
    rows = [
        (table, snapshot, len(relative.get(table, [])), written.rows.get(table, 0), relative.get(table, []), pointed)
        for table, snapshot, _, _, _, pointed in snapshots.rows()
    ]
    con.executemany(f"INSERT INTO {SNAPSHOTS} VALUES (?, ?, ?, ?, ?, ?)", rows)
    written.how[SNAPSHOTS], written.rows[SNAPSHOTS] = "naming the exported files", len(rows)


def _views(con, source: str, written: Written) -> None:
    """The source's other views (marts.wager_edges), as it defines them, in the order it made them."""
    found = (
        "SELECT schema_name || '.' || view_name, sql FROM duckdb_views() WHERE database_name = ? AND NOT internal "
        "ORDER BY view_oid"
    )
    for view, sql in con.execute(found, [source]).fetchall():
        if view not in TABLES:
            con.execute(sql)
            written.other_views.append(view)


def _name(name: str) -> str:
    """A name quoted for SQL."""
    return '"' + name.replace('"', '""') + '"'


def _text(value) -> str:
    """A value inside single quotes in SQL."""
    return str(value).replace("'", "''")
