"""The dashboard's one way to read: a parameterized query on the serving snapshot, through a
short-lived read-only connection, cached briefly and keyed on the snapshot's modification time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from models.warehouse.store import WarehouseError, printable, read, serving_path
from pipelines.settings import Settings

TTL_SECONDS = 60


class Unavailable(Exception):
    """The warehouse cannot answer yet; `command` is what to run about it."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


def warehouse() -> Path:
    return Settings.from_env().db


def _version(db: Path) -> int:
    """The serving snapshot's modification time (a new publish is a new version)."""
    try:
        return serving_path(db).stat().st_mtime_ns
    except FileNotFoundError:
        raise Unavailable(f"No warehouse at {db} yet.", "banco up") from None


def _unopenable(error: WarehouseError) -> Unavailable:
    return Unavailable(f"The serving snapshot cannot be opened ({error}); it may be being replaced.", "banco build")


@st.cache_data(ttl=TTL_SECONDS, max_entries=256, show_spinner=False)
def _run(sql: str, params: dict[str, Any], db: str, version: int) -> pl.DataFrame:
    """`version` (the snapshot's mtime) is only part of the cache key: a new publish is a new key.
    The connection lives for one query, so it never holds the snapshot while a new one is renamed in."""
    con = read(Path(db))
    try:
        return con.sql(sql, params=params or None).pl()
    finally:
        con.close()


def frame(sql: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    """Rows of `sql` with `params` bound to its `$name` placeholders (values never enter the text)."""
    db = warehouse()
    try:
        return _run(sql, params or {}, str(db), _version(db))
    except WarehouseError as error:
        raise _unopenable(error) from None
    except duckdb.CatalogException as error:  # ingested, but the marts were never built (or not all of them)
        detail = str(error).splitlines()[0].removeprefix("Catalog Error: ")
        raise Unavailable(f"The warehouse has no marts yet, or not all of them ({detail}).", "banco build") from None
    except duckdb.IOException as error:
        raise Unavailable(
            f"The serving snapshot is being replaced ({str(error).splitlines()[0]}): reload in a moment.", "banco build"
        ) from None


def console(sql: str, limit: int) -> pl.DataFrame:
    """An analyst's own query, uncached, on a read-only connection (writes fail there); at most
    `limit` rows are fetched, so a query over every coup cannot exhaust the server."""
    db = warehouse()
    _version(db)
    try:
        con = read(db)
    except WarehouseError as error:
        raise _unopenable(error) from None
    try:
        relation = con.sql(sql)
        if relation is None:  # a statement that returns no rows
            raise duckdb.InvalidInputException("the statement returned no rows: write a query")
        return printable(relation.limit(limit), nested_as_json=True).pl()  # the download is CSV
    finally:
        con.close()
