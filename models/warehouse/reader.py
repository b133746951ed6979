"""The one way SQL a user wrote, and every dashboard query, reads the warehouse: the serving snapshot
on a connection locked down before its first query, each query under a time limit.

The connection is an in-memory DuckDB with the snapshot attached read-only: its settings are its
own (a file opened twice in one process would share one instance and one configuration with the
project's other readers). Before the query it is given the limits, its only file access (the lake's
Parquet files, which the views over `core.rounds` and `core.bets` read) and then a locked
configuration, so no statement can widen them; statements other than a query are refused up front
(store.REFUSED).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from models.warehouse import lake
from models.warehouse.store import EXTENSIONS, FILES, SETTINGS, WRITE, WarehouseError, published, refusal

Result = TypeVar("Result")
#: How often the watcher looks at the clock and at `stop`: an interrupt lands within milliseconds.
POLL_SECONDS = 0.1


class QueryError(WarehouseError):
    """A user's query refused, failed or stopped; the message is one line saying why."""


@dataclass(frozen=True)
class Limits:
    """What one query may use: DuckDB's memory cap (it does not spill to disk), its threads, and
    its time before it is interrupted."""

    memory: str = "2GB"
    threads: int = 2
    timeout_seconds: float = 30.0

    @classmethod
    def from_env(cls) -> Limits:
        """The limits `BANCO_SQL_MEMORY`, `BANCO_SQL_THREADS` and `BANCO_SQL_TIMEOUT_SECONDS` set."""
        memory = os.environ.get("BANCO_SQL_MEMORY", cls.memory)
        threads = _number("BANCO_SQL_THREADS", int, cls.threads)
        timeout = _number("BANCO_SQL_TIMEOUT_SECONDS", float, cls.timeout_seconds)
        return cls(memory, threads, timeout)


def _number(name: str, kind: type, default):
    text = os.environ.get(name)
    if text is None:
        return default
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value > 0 or value == float("inf"):
        raise WarehouseError(f"{name} must be {'a whole' if kind is int else 'a'} number above 0, not {text!r}")
    return value


def connect(db: Path, limits: Limits) -> duckdb.DuckDBPyConnection:
    """The serving snapshot of the warehouse at `db`, attached read-only to a locked connection."""
    snapshot = published(db)
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
        con.execute(f"ATTACH '{_quoted(snapshot)}' AS banco (READ_ONLY)")
        con.execute("USE banco")
        # allowed_directories can only be set once the database runs, and only before external access is off
        con.execute("SET allowed_directories = ?", [[f"{lake.folder(db)}/"]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        con.close()
        raise WarehouseError(f"cannot open {snapshot}: {_line(error)}") from None
    return con


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
) -> Result:
    """`fetch` of the relation `sql` gives, on a locked connection of its own, interrupted once it
    runs past the time limit or `stop()` turns true. A `user` query is first checked to be a query,
    and any error it meets is a QueryError of one line naming `where`; the project's own queries
    (`user=False`) raise DuckDB's errors as they are, but for being stopped."""
    limits = limits or Limits.from_env()
    if user:
        try:
            refused = refusal(sql, where)
        except duckdb.Error as error:
            raise QueryError(f"SQL error: {_line(error)}") from None
        if refused:
            raise QueryError(refused)
    con = connect(db, limits)
    try:
        with _deadline(con, limits, stop):
            relation = con.sql(sql, params=params or None)
            if relation is None:  # only a query returns rows, and only queries pass the check
                raise QueryError(f"the statement returned no rows: {where} shows what a query returns")
            return fetch(relation)
    except duckdb.Error as error:
        if not user:
            raise
        raise QueryError(_explained(error, where, limits)) from None
    finally:
        con.close()


@contextmanager
def _deadline(con: duckdb.DuckDBPyConnection, limits: Limits, stop: Callable[[], bool] | None) -> Iterator[None]:
    """Interrupt what `con` runs inside once the time limit passes or `stop()` turns true, from a
    watcher thread (DuckDB holds the calling thread until the query ends)."""
    done = threading.Event()
    why: list[str] = []

    def watch() -> None:
        deadline = time.monotonic() + limits.timeout_seconds
        while not done.wait(min(POLL_SECONDS, max(deadline - time.monotonic(), 0))):
            if time.monotonic() >= deadline:
                seconds = f"{limits.timeout_seconds:g} s"
                why.append(f"the query ran longer than {seconds} and was stopped (BANCO_SQL_TIMEOUT_SECONDS)")
            elif stop is not None and stop():
                why.append("the query was stopped: the page that ran it was closed or ran again")
            else:
                continue
            con.interrupt()
            return

    watcher = threading.Thread(target=watch, name="banco-sql-deadline", daemon=True)
    watcher.start()
    try:
        yield
    except duckdb.InterruptException:
        raise QueryError(why[0] if why else "the query was interrupted") from None
    finally:
        done.set()
        watcher.join()


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
