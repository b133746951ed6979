"""Each warehouse table's columns as the contract gives them, in SQL, Polars and Arrow types."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import duckdb
import polars as pl
import pyarrow as pa

from models.warehouse.schema import TABLES


class Template(NamedTuple):
    """A table's columns as the contract gives them."""

    columns: list[tuple[str, str]]  # (name, SQL type)
    schema: pl.Schema  # the Polars types
    required: frozenset[str]  # the names of the NOT NULL ones


def template(table: str) -> Template:
    """The table's `Template`, read off its DDL."""
    return _templates()[table]


@cache
def _templates() -> dict[str, Template]:
    """Every table's `Template`, read off the DDL by one in-memory DuckDB (a connection costs a
    tenth of a second to open)."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    templates = {}
    for number, (table, columns) in enumerate(TABLES.items()):
        con.execute(f"CREATE TABLE template_{number} ({columns})")
        described = con.sql(f"DESCRIBE template_{number}").fetchall()
        schema = con.sql(f"SELECT * FROM template_{number}").pl().schema
        templates[table] = Template(
            columns=[(name, dtype) for name, dtype, *_ in described],
            schema=pl.Schema({name: _utc(dtype) for name, dtype in schema.items()}),
            required=frozenset(name for name, _, null, *_ in described if null == "NO"),
        )
    con.close()
    return templates


def _utc(dtype: pl.DataType) -> pl.DataType:
    """DuckDB names UTC `Etc/UTC`; the warehouse's frames say `UTC`."""
    return pl.Datetime("us", "UTC") if isinstance(dtype, pl.Datetime) else dtype


def frame_schema(table: str) -> pl.Schema:
    """The Polars types of a table's columns."""
    return template(table).schema


def arrow_schema(table: str) -> pa.Schema:
    """The table's Arrow schema, the NOT NULL columns required: what its Iceberg schema is made from."""
    required = template(table).required
    fields = pl.DataFrame(schema=frame_schema(table)).to_arrow(compat_level=pl.CompatLevel.oldest()).schema
    return pa.schema([field.with_nullable(field.name not in required) for field in fields])


def conform(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """The frame's columns of the table, in its order and types."""
    return frame.select(pl.col(name).cast(dtype) for name, dtype in frame_schema(table).items())


def empty(table: str) -> pl.DataFrame:
    return pl.DataFrame(schema=frame_schema(table))
