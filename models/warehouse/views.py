"""The warehouse's DuckDB file reads each Iceberg table through a view of the same name over exactly
the data files of one snapshot: the one the warehouse's commit names (iceberg.py). A reader of a
snapshot of the file keeps reading those files, which outlive later commits (maintenance.py)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import polars as pl

from models.warehouse.columns import frame_schema, template
from models.warehouse.location import local_path, polars_options
from models.warehouse.schema import SCHEMAS, SNAPSHOTS, TABLES

if TYPE_CHECKING:
    from models.warehouse.iceberg import Tables


def point_at(con, tables: Tables, point: dict[str, int]) -> None:
    """Every table's view over its files at the commit `point`, and `meta.snapshots` naming it, in
    one DuckDB transaction."""
    for schema in SCHEMAS:
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    con.execute("BEGIN TRANSACTION")
    try:
        for name in TABLES:
            files = tables.files(name, point[name]) if name in point else []
            con.execute(f"CREATE OR REPLACE VIEW {name} AS {source(name, [location for location, _ in files])}")
        con.execute(
            f"CREATE OR REPLACE TABLE {SNAPSHOTS} (table_name VARCHAR NOT NULL, snapshot_id BIGINT NOT NULL, "
            "files INTEGER NOT NULL, rows BIGINT NOT NULL, locations VARCHAR[] NOT NULL, "
            "pointed_at TIMESTAMPTZ NOT NULL)"
        )
        now = dt.datetime.now(dt.UTC)
        rows = []
        for name in TABLES:
            listed = tables.files(name, point[name]) if name in point else []
            locations = [location for location, _ in listed]
            rows.append([name, point.get(name, 0), len(listed), sum(n for _, n in listed), locations, now])
        con.executemany(f"INSERT INTO {SNAPSHOTS} VALUES (?, ?, ?, ?, ?, ?)", rows)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def source(name: str, locations: list[str]) -> str:
    """The SELECT a table's view is: its columns, by name, from its data files."""
    columns = template(name).columns
    if not locations:  # no file yet: the columns, typed, without rows
        return "SELECT " + ", ".join(f'CAST(NULL AS {dtype}) AS "{column}"' for column, dtype in columns) + " LIMIT 0"
    listed = ", ".join("'" + local_path(location).replace("'", "''") + "'" for location in locations)
    return "SELECT " + ", ".join(f'"{column}"' for column, _ in columns) + f" FROM read_parquet([{listed}])"


def exists(con, name: str) -> bool:
    """Whether the connection's database holds the table or view `name` (schema.table)."""
    found = "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?"
    return bool(con.sql(found, params=name.split(".")).fetchall()[0][0])


def locations(con, name: str) -> list[str]:
    """The data files the table's view reads, as DuckDB and Polars name them."""
    found = con.sql(f"SELECT locations FROM {SNAPSHOTS} WHERE table_name = ?", params=[name]).fetchall()
    return [local_path(location) for location in (found[0][0] if found else [])]


def scan(con, name: str) -> pl.LazyFrame:
    """The table's rows as Polars reads them straight from the files its view reads (several times
    faster than DuckDB hands them over). A column a file holds beyond the table's (one an earlier
    release stored, such as `content_hash`, or one dropped from the table since) is passed over,
    as the view and any Iceberg reader pass it over."""
    listed = locations(con, name)
    if not listed:
        return pl.LazyFrame(schema=frame_schema(name))
    remote = "://" in listed[0]  # local files are named by their path
    scanned = pl.scan_parquet(listed, extra_columns="ignore", storage_options=polars_options() if remote else None)
    return scanned.select(frame_schema(name).names()).cast(dict(frame_schema(name)))
