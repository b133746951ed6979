"""The dashboard's one way to read: a parameterized query on the serving snapshot, through a
short-lived locked connection (models/warehouse/reader.py), cached briefly and keyed on the newest
snapshot's modification time and on whether another process holds it (the previous one is read then).
Every query, the pages' and the console's, stops at the time limit, or sooner when its browser tab
closes or its page runs again."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

from models.settings import Settings
from models.warehouse import reader, serving, store
from models.warehouse.store import SnapshotHeld, WarehouseError, printable, serving_path

TTL_SECONDS = 60
#: How long the dashboard trusts its last look at whether another process holds the newest snapshot.
HELD_TTL_SECONDS = 5
CONSOLE = "the SQL console"
#: Console queries this server runs at once, each allowed the reader's memory cap: one more waits
#: for a slot up to `SLOT_WAIT_SECONDS`, then is told to try again.
CONSOLE_QUERIES = 2
CONSOLE_SLOTS = threading.BoundedSemaphore(CONSOLE_QUERIES)
SLOT_WAIT_SECONDS = 5.0


class Unavailable(Exception):
    """The warehouse cannot answer yet; `command` is what to run about it."""

    def __init__(self, message: str, command: str) -> None:
        super().__init__(message)
        self.command = command


def warehouse() -> Path:
    return Settings.from_env().db


def _version(db: Path) -> int:
    """The newest serving snapshot's modification time, and whether it is passed over (a new publish,
    or another process taking or letting go of the newest, is a new version)."""
    try:
        newest = serving.published(db)[0]
        return hash((newest.stat().st_mtime_ns, _passed_over(str(db), newest.stat().st_mtime_ns) is not None))
    except (IndexError, FileNotFoundError):
        raise Unavailable(f"No warehouse at {db} yet.", "banco up") from None


@st.cache_data(ttl=HELD_TTL_SECONDS, max_entries=16, show_spinner=False)
def _passed_over(db: str, newest: int) -> str | None:
    """What a reader says now of the newest snapshot (`newest` its mtime, the cache key) when another
    process holds it open read-write, or None."""
    return store.passed_over(Path(db))


def passed_over() -> str | None:
    """The line saying the pages read the previous serving snapshot, and why, or None."""
    db = warehouse()
    try:
        newest = serving.published(db)[0]
        return _passed_over(str(db), newest.stat().st_mtime_ns)
    except (IndexError, FileNotFoundError):
        return None


def _unopenable(error: WarehouseError) -> Unavailable:
    if "earlier release" in str(error):  # migrate.EARLIER: the one command that helps is in it
        return Unavailable(f"{error}.", f"banco migrate --db {warehouse()}")
    if isinstance(error, SnapshotHeld):  # a build would not help: the holder must let go
        words = str(error)
        fix = f'duckdb.connect("{serving_path(warehouse()).absolute()}", read_only=True)'
        return Unavailable(f"{words[:1].upper()}{words[1:]}.", fix)
    return Unavailable(f"The serving snapshot cannot be opened ({error}).", "banco build")


def _stopped() -> Callable[[], bool] | None:
    """Whether this script run has been told to stop: Streamlit asks it to when its session ends (the
    tab closed) and, with fast reruns (the default), when the page runs again. Its request is only
    acted on between Python statements, never inside a DuckDB query, so a watcher polls it; Streamlit
    offers no public way to read it."""
    ctx = get_script_run_ctx()
    requests = ctx.script_requests if ctx is not None else None
    if requests is None:
        return None
    return lambda: requests._state is not ScriptRequestType.CONTINUE


@st.cache_data(ttl=TTL_SECONDS, max_entries=256, show_spinner=False)
def _run(sql: str, params: dict[str, Any], db: str, version: int) -> pl.DataFrame:
    """`version` (_version) is only part of the cache key: a new publish is a new key. The connection
    lives for one query, so the next query reads the newest snapshot there is."""
    return reader.run(
        Path(db),
        sql,
        lambda relation: relation.pl(),
        where="the dashboard",
        params=params,
        stop=_stopped(),
        user=False,
        notice=_quiet,  # the banner above the page says it (banner.py)
    )


def _quiet(words: str) -> None:
    pass


def version() -> int:
    """The serving snapshot's version: the key for a cache of figures computed from all of it."""
    return _version(warehouse())


def frame(sql: str, params: dict[str, Any] | None = None) -> pl.DataFrame:
    """Rows of `sql` with `params` bound to its `$name` placeholders (values never enter the text)."""
    db = warehouse()
    try:
        return _run(sql, params or {}, str(db), _version(db))
    except reader.QueryError as error:  # stopped at the time limit
        message = str(error)
        longer = "BANCO_SQL_TIMEOUT_SECONDS=120 banco dashboard"
        raise Unavailable(f"{message[:1].upper()}{message[1:]}.", longer) from None
    except WarehouseError as error:
        raise _unopenable(error) from None
    except duckdb.CatalogException as error:  # ingested, but the marts were never built (or not all of them)
        detail = str(error).splitlines()[0].removeprefix("Catalog Error: ")
        raise Unavailable(f"The warehouse has no marts yet, or not all of them ({detail}).", "banco build") from None
    except duckdb.BinderException as error:  # a mart's column added since this warehouse was built
        detail = str(error).splitlines()[0].removeprefix("Binder Error: ")
        raise Unavailable(f"This warehouse was built by an earlier release ({detail}).", "banco build") from None
    except duckdb.IOException as error:
        raise Unavailable(
            f"The serving snapshot could not be read ({str(error).splitlines()[0]}): reload in a moment.", "banco build"
        ) from None


def require_marts(*names: str) -> None:
    """Stop with a message unless the snapshot holds every mart in `names` (e.g. "marts.players"): a
    warehouse built by an earlier release lacks the marts added since, until it is built again."""
    stored = frame("SELECT table_schema || '.' || table_name AS name FROM information_schema.tables")["name"]
    absent = [name for name in names if name not in stored]
    if absent:
        raise Unavailable(
            f"This warehouse was built before {', '.join(absent)} existed: build it again to add "
            f"{'it' if len(absent) == 1 else 'them'}.",
            "banco build",
        )


def console(sql: str, limit: int) -> pl.DataFrame:
    """An analyst's own query, uncached, checked and run by the locked reader; at most `limit` rows
    are fetched, so a query over every coup cannot exhaust the server. A refused, failed or stopped
    query raises reader.QueryError, its message one line."""
    db = warehouse()
    _version(db)

    def fetch(relation: duckdb.DuckDBPyRelation) -> pl.DataFrame:
        return printable(relation.limit(limit), nested_as_json=True).pl()  # the download is CSV

    if not CONSOLE_SLOTS.acquire(timeout=SLOT_WAIT_SECONDS):
        raise reader.QueryError(f"{CONSOLE} is running {CONSOLE_QUERIES} other queries: try again when one ends")
    try:
        return reader.run(db, sql, fetch, where=CONSOLE, stop=_stopped(), notice=_quiet)
    except reader.QueryError:
        raise
    except WarehouseError as error:
        raise _unopenable(error) from None
    finally:
        CONSOLE_SLOTS.release()
