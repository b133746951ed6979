"""A warehouse of an earlier release moved onto the Iceberg tables, losslessly, at its first writer.

Earlier releases kept core.rounds and core.bets as Parquet files in `banco.lake/`, listed in
`meta.lake_files` and read through views (or, before that, as tables in the DuckDB file), and the
other four tables in the DuckDB file. Their rows are copied into the Iceberg tables and committed
(the log last, as every commit); only then are the old tables, views and folder removed. A writer
stopped part-way leaves the old warehouse whole, and the next one copies again from the start.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from models.warehouse import files
from models.warehouse.columns import frame_schema
from models.warehouse.iceberg import BY_KEY, Tables
from models.warehouse.schema import INGEST_LOG, TABLES

#: The earlier release's list of lake files.
LAKE_FILES = "meta.lake_files"
#: The tables the earlier release kept as lake files.
LAKE_TABLES = ("core.rounds", "core.bets")
#: Rows a data file of the migration holds.
FILE_ROWS = 1_000_000
BY = "migrate"


def lake_folder(db: Path) -> Path:
    """Where the earlier release kept core.rounds and core.bets: `banco.lake/` beside `banco.duckdb`."""
    return db.absolute().with_name(f"{db.stem}.lake")


def _relations(con) -> dict[str, str]:
    """The DuckDB file's tables and views by name: 'TABLE' or 'VIEW'."""
    kinds = dict(con.sql("SELECT schema_name || '.' || table_name, 'TABLE' FROM duckdb_tables()").fetchall())
    views = "SELECT schema_name || '.' || view_name, 'VIEW' FROM duckdb_views() WHERE NOT internal"
    return kinds | dict(con.sql(views).fetchall())


def needed(con) -> bool:
    """Whether the DuckDB file holds an earlier release's tables (anything but views)."""
    kinds = _relations(con)
    return LAKE_FILES in kinds or any(kinds.get(name) == "TABLE" for name in TABLES)


def run(con, tables: Tables, db: Path) -> bool:
    """Move an earlier release's warehouse onto the tables; returns whether there was one."""
    if not needed(con):
        return False
    if not _copied_before(tables):
        for name in TABLES:
            if name != INGEST_LOG:
                tables.add(name, _copy(con, tables, db, name), BY)
        tables.record(BY, _copy(con, tables, db, INGEST_LOG))
    kinds = _relations(con)
    con.execute("BEGIN TRANSACTION")
    for name in (*TABLES, LAKE_FILES):
        if name in kinds:
            con.execute(f"DROP {kinds[name]} {name}")
    con.execute("COMMIT")
    shutil.rmtree(lake_folder(db), ignore_errors=True)
    return True


def _copied_before(tables: Tables) -> bool:
    """Whether a migration was committed already (its writer stopped before removing the old tables)."""
    log = tables.table(INGEST_LOG)
    return any(snapshot.summary.additional_properties.get(BY_KEY) == BY for snapshot in log.snapshots())


def _copy(con, tables: Tables, db: Path, name: str) -> list[str]:
    """The old table's rows written as data files of the new one; returns their locations."""
    rows = _rows(con, db, name)
    written = []
    for start in range(0, rows.height, FILE_ROWS):
        part = rows.slice(start, FILE_ROWS)
        written.append(files.write(tables.io, tables.location(name, BY), name, part))
    return written


def _rows(con, db: Path, name: str) -> pl.DataFrame:
    """Every row of the old table, in the contract's columns and types."""
    schema = frame_schema(name)
    kinds = _relations(con)
    if name in LAKE_TABLES and kinds.get(name) != "TABLE":
        listed = con.sql(f"SELECT path FROM {LAKE_FILES} WHERE table_name = ? AND retired_at IS NULL", params=[name])
        paths = [lake_folder(db) / path for (path,) in listed.fetchall()]
        if not paths:
            return pl.DataFrame(schema=schema)
        # a file of an earlier release may hold more columns (content_hash): passed over
        frame = pl.scan_parquet(paths, extra_columns="ignore").select(schema.names()).collect()
    elif kinds.get(name) == "TABLE":
        quoted = ", ".join(f'"{column}"' for column in schema.names())
        frame = con.sql(f"SELECT {quoted} FROM {name}").pl()
    else:
        return pl.DataFrame(schema=schema)
    return frame.cast(dict(schema))
