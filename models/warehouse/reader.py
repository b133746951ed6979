"""The one way SQL a user wrote, and every dashboard query, reads the warehouse: the serving snapshot
on a connection locked down before its first query, each query under a time limit.

The connection is an in-memory DuckDB with the snapshot attached read-only: its settings are its
own (a file opened twice in one process would share one instance and one configuration with the
project's other readers). Before the query it is given the limits, its only file access (the
warehouse's folder of Iceberg tables, whose Parquet files the views read) and then a locked
configuration, so no statement can widen them; statements other than a query are refused up front
(store.REFUSED).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from models import settings as project
from models.warehouse import earlier
from models.warehouse.location import Settings, register
from models.warehouse.store import EXTENSIONS, FILES, SETTINGS, WRITE, WarehouseError, published, refusal

Result = TypeVar("Result")
#: How often a query's caller looks at the clock and at `stop`: an interrupt lands within milliseconds.
POLL_SECONDS = 0.1


class QueryError(WarehouseError):
    """A user's query refused, failed or stopped; the message is one line saying why."""


@dataclass(frozen=True)
class Limits:
    """What one query may use: DuckDB's memory cap (it does not spill to disk), its threads, and
    its time before it is interrupted."""

    memory: str = project.DEFAULTS.sql_memory
    threads: int = project.DEFAULTS.sql_threads
    timeout_seconds: float = project.DEFAULTS.sql_timeout_seconds

    @classmethod
    def from_env(cls) -> Limits:
        """The limits the settings set (BANCO_SQL_MEMORY, BANCO_SQL_THREADS, BANCO_SQL_TIMEOUT_SECONDS)."""
        try:
            settings = project.Settings.from_env()
        except ValueError as error:  # a reader's caller (the dashboard) shows a WarehouseError's line
            raise WarehouseError(str(error)) from None
        return cls(settings.sql_memory, settings.sql_threads, settings.sql_timeout_seconds)


def connect(db: Path, limits: Limits, snapshot: Path | None = None) -> duckdb.DuckDBPyConnection:
    """The serving snapshot of the warehouse at `db` (or the file `snapshot` whose views read its
    tables at an earlier commit: travel.py), attached read-only to a locked connection."""
    snapshot = snapshot or published(db)
    config = {
        "memory_limit": limits.memory,
        "threads": limits.threads,
        "temp_directory": "",  # nothing spills to disk: a query past the memory cap fails
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }
    try:
        con = duckdb.connect(":memory:", config=config)
    except duckdb.Error as error:
        raise WarehouseError(
            f"cannot start a reader with BANCO_SQL_MEMORY={limits.memory!r}, BANCO_SQL_THREADS={limits.threads}: "
            f"{_line(error)}"
        ) from None
    try:
        register(con, db)  # an object store the views' files are on, before external access is off
        con.execute(f"ATTACH '{_quoted(snapshot)}' AS banco (READ_ONLY)")
        con.execute("USE banco")
        if earlier.needed(con):  # its views read banco.lake/, which is no reader's to read
            con.close()
            raise WarehouseError(earlier.EARLIER.format(db=db))
        # allowed_directories can only be set once the database runs, and only before external access is off
        con.execute("SET allowed_directories = ?", [[readable(db)]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        con.close()
        raise WarehouseError(f"cannot open {snapshot}: {_line(error)}") from None
    return con


def readable(db: Path) -> str:
    """The one folder a reader may read files in: the warehouse's tables (their views' data files)."""
    settings = Settings.of(db)
    folder = settings.local_folder
    return f"{folder.resolve()}/" if folder is not None else f"{settings.warehouse_uri}/"


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")


def run(
    db: Path,
    sql: str,
    fetch: Callable[[duckdb.DuckDBPyRelation], Result],
    *,
    where: str,
    params: dict[str, Any] | None = None,
    limits: Limits | None = None,
    stop: Callable[[], bool] | None = None,
    user: bool = True,
    snapshot: Path | None = None,
) -> Result:
    """`fetch` of the relation `sql` gives, on a locked connection of its own, interrupted once it
    runs past the time limit or `stop()` turns true. A `user` query is first checked to be a query,
    and any error it meets is a QueryError of one line naming `where`; the project's own queries
    (`user=False`) raise DuckDB's errors as they are, but for being stopped. `snapshot`: the file read
    instead of the serving snapshot (connect)."""
    limits = limits or Limits.from_env()
    if user:
        try:
            refused = refusal(sql, where)
        except duckdb.Error as error:
            raise QueryError(f"SQL error: {_line(error)}") from None
        if refused:
            raise QueryError(refused)
    con = connect(db, limits, snapshot)

    def work() -> Result:
        relation = con.sql(sql, params=params or None)
        if relation is None:  # only a query returns rows, and only queries pass the check
            raise QueryError(f"the statement returned no rows: {where} shows what a query returns")
        return fetch(relation)

    try:
        return _supervised(con, work, limits, stop)
    except duckdb.Error as error:
        if not user:
            raise
        raise QueryError(_explained(error, where, limits)) from None
    finally:
        con.close()


def _supervised(
    con: duckdb.DuckDBPyConnection, work: Callable[[], Result], limits: Limits, stop: Callable[[], bool] | None
) -> Result:
    """`work()`, which runs on `con`, on a thread of its own while this one watches the clock, `stop`
    and Ctrl-C (which reaches only this thread, never one held inside a DuckDB query), and interrupts
    `con` at the first of them."""
    outcome: dict[str, Any] = {}
    finished = threading.Event()  # not Thread.join: a join Ctrl-C broke may return before its thread ends

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error
        finally:
            finished.set()

    threading.Thread(target=target, name="banco-sql-query", daemon=True).start()
    deadline, why = time.monotonic() + limits.timeout_seconds, None
    try:
        while not finished.wait(min(POLL_SECONDS, max(deadline - time.monotonic(), 0.001))):
            if why is None and time.monotonic() >= deadline:
                seconds = f"{limits.timeout_seconds:g} s"
                why = f"the query ran longer than {seconds} and was stopped (BANCO_SQL_TIMEOUT_SECONDS)"
            elif why is None and stop is not None and stop():
                why = "the query was stopped: the page that ran it was closed or ran again"
            else:
                continue
            con.interrupt()
    except KeyboardInterrupt:
        # again until the thread ends: a query the thread had not begun yet misses the first one
        con.interrupt()
        while not finished.wait(POLL_SECONDS):
            con.interrupt()
        raise
    if "error" not in outcome:
        return outcome["value"]
    if isinstance(outcome["error"], duckdb.InterruptException):
        raise QueryError(why or "the query was interrupted") from None
    raise outcome["error"]


def _explained(error: duckdb.Error, where: str, limits: Limits) -> str:
    """DuckDB's error in one line that says why, for the refusals its locked connection makes itself."""
    message = _line(error)
    lowered = message.lower()
    if isinstance(error, duckdb.PermissionException):
        return (EXTENSIONS if "extension" in lowered else FILES).format(where=where)
    if "configuration has been locked" in lowered:
        return SETTINGS.format(where=where)
    if "read-only" in lowered or "read only" in lowered:
        return WRITE.format(where=where)
    if isinstance(error, duckdb.OutOfMemoryException):
        return f"the query needed more than {limits.memory} of memory and was stopped (BANCO_SQL_MEMORY)"
    return f"SQL error: {message}"


def _line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
