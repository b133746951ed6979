"""A warehouse of an earlier release moved onto the Iceberg tables, losslessly, at its first writer.

Earlier releases kept core.rounds and core.bets as Parquet files in `banco.lake/`, listed in
`meta.lake_files` and read through views (or, before that, as tables in the DuckDB file), and the
other four tables in the DuckDB file. Their rows are copied into the Iceberg tables and committed
(the log last, as every commit); only then are the old tables, views and folder removed. A writer
stopped part-way leaves the old warehouse whole: the next one rolls back whatever it had committed
of the copy (as any stopped commit, `Tables.recover`) and copies again, or, if the log's commit was
made, only removes the old tables.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import polars as pl

from models.warehouse import files
from models.warehouse.columns import template
from models.warehouse.earlier import EARLIER, LAKE_FILES, lake_folder, needed, relations
from models.warehouse.iceberg import BY_KEY, Tables
from models.warehouse.schema import INGEST_LOG, TABLES

__all__ = ["EARLIER", "LAKE_FILES", "lake_folder", "needed", "run"]  # what an earlier release left, named here too
#: The tables the earlier release kept as lake files.
LAKE_TABLES = ("core.rounds", "core.bets")
#: Rows a data file of the migration holds (and rows held in memory at once).
FILE_ROWS = 1_000_000
BY = "migrate"
#: The summary key of the migration's log commit: the rows moved into each table (JSON: name -> rows).
MOVED_KEY = "banco.migrated"


class MigrationError(ValueError):
    """An earlier release's warehouse that cannot be moved as it is; the message says why."""


def run(con, tables: Tables, db: Path) -> bool:
    """Move an earlier release's warehouse onto the tables; returns whether there was one."""
    if not needed(con):
        if lake_folder(db).exists() and moved(tables) is not None:  # a writer stopped before removing it
            shutil.rmtree(lake_folder(db), ignore_errors=True)
        return False
    if moved(tables) is None:  # the tables of a copy stopped part-way were rolled back (Tables.recover)
        _refuse_if_rows(tables, db)
        rows = {}
        for name in TABLES:
            if name != INGEST_LOG:
                locations, rows[name] = _copy(con, tables, db, name)
                tables.add(name, locations, BY)
        locations, rows[INGEST_LOG] = _copy(con, tables, db, INGEST_LOG)
        # the log's commit, naming every table's copy, is the warehouse's: the copy is in from here
        tables.add(INGEST_LOG, locations, BY, {MOVED_KEY: json.dumps(rows)})
    _drop(con)
    shutil.rmtree(lake_folder(db), ignore_errors=True)
    return True


def moved(tables: Tables) -> dict[str, int] | None:
    """The rows the migration's commit moved into each table, or None when there was none."""
    for snapshot in reversed(tables.table(INGEST_LOG).snapshots()):
        if _by(snapshot) == BY:
            return json.loads(snapshot.summary.additional_properties.get(MOVED_KEY, "{}"))
    return None


def _by(snapshot) -> str | None:
    return snapshot.summary.additional_properties.get(BY_KEY) if snapshot.summary else None


def _refuse_if_rows(tables: Tables, db: Path) -> None:
    """Copying into tables that already hold rows would store those rows beside the old ones."""
    held = [name for name in TABLES if _rows(tables, name)]
    if held:
        raise MigrationError(
            f"{db} holds an earlier release's tables, but the Iceberg tables at {tables.settings.catalog_uri} "
            f"already hold rows ({', '.join(held)}): moving them in would store rows twice; point "
            "BANCO_CATALOG_URI and BANCO_WAREHOUSE_URI at empty tables, or restore the DuckDB file that goes with them"
        )


def _rows(tables: Tables, name: str) -> int:
    snapshot_id = tables.snapshot_id(name)
    return 0 if snapshot_id is None else sum(rows for _, rows in tables.files(name, snapshot_id))


def _copy(con, tables: Tables, db: Path, name: str) -> tuple[list[files.Written], int]:
    """The old table's rows written as data files of the new one, `FILE_ROWS` at a time (DuckDB
    streams them: a table of tens of millions of rows never sits in memory); returns their
    locations and the rows written."""
    source = _source(con, db, name)
    if source is None:
        return [], 0
    written, rows, pending = [], 0, []

    def flush() -> None:
        frame = pl.concat(pending, how="vertical_relaxed")
        written.append(files.write(tables.io, tables.location(name, BY), name, frame))
        pending.clear()

    try:
        for batch in con.sql(source).to_arrow_reader(FILE_ROWS):
            pending.append(pl.from_arrow(batch))  # files.write casts to the contract's types (times to UTC)
            rows += batch.num_rows
            if sum(part.height for part in pending) >= FILE_ROWS:
                flush()
    except duckdb.Error as error:  # a listed lake file gone or broken: nothing is removed
        raise MigrationError(f"cannot move {name} of {db}: {str(error).strip().splitlines()[0]}") from None
    if pending:
        flush()
    return written, rows


def _source(con, db: Path, name: str) -> str | None:
    """The SELECT of every row of the old table, in the contract's columns by name (a file or table
    of an earlier release may hold more, such as `content_hash`), in the order its view read them;
    None when it has no rows anywhere."""
    columns = ", ".join(f'"{column}"' for column, _ in template(name).columns)
    kinds = relations(con)
    if kinds.get(name) == "TABLE":
        return f"SELECT {columns} FROM {name}"
    if name not in LAKE_TABLES or LAKE_FILES not in kinds:
        return None
    # the listed files by their place in the lake: the view names them by an absolute path, which
    # is wrong once the warehouse was moved; a retired file is a merged file's part
    listed = con.sql(
        f"SELECT path FROM {LAKE_FILES} WHERE table_name = ? AND retired_at IS NULL ORDER BY added_at, path",
        params=[name],
    ).fetchall()
    if not listed:
        return None
    paths = ", ".join("'" + str(lake_folder(db) / path).replace("'", "''") + "'" for (path,) in listed)
    return f"SELECT {columns} FROM read_parquet([{paths}])"


def _drop(con) -> None:
    """The old tables, views and list of lake files gone, in one transaction."""
    kinds = relations(con)
    con.execute("BEGIN TRANSACTION")
    try:
        for name in (*TABLES, LAKE_FILES):
            if name in kinds:
                con.execute(f"DROP {kinds[name]} {name}")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
