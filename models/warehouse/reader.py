"""The one way SQL a user wrote, and every dashboard query, reads the warehouse: the newest serving
snapshot no other process holds open read-write (serving.py), on a connection locked down before its
first query, each query under a time limit.

The connection (sandbox.connect) is an in-memory DuckDB with the snapshot attached read-only: its
settings are its own (a file opened twice in one process would share one instance and one
configuration with the project's other readers). It is given the limits, its only file access (the
data files the snapshot's views name) and then a locked configuration, so no statement can widen them.
A user's query is first checked (store.refusal: one query, no function that reads other files or
shows the server), then runs in a process of its own whose address space is held to the memory cap
(sandbox.py), killed at the time limit; its rows come back as an Arrow stream that `fetch` reads, no
more of them than the result limits allow. The project's own queries run in this process.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from models import settings as project
from models.warehouse import sandbox, serving
from models.warehouse.location import Settings
from models.warehouse.store import (
    EXTENSIONS,
    FILES,
    SETTINGS,
    WRITE,
    SnapshotHeld,
    WarehouseError,
    published,
    refusal,
)

Result = TypeVar("Result")
#: How often a query's caller looks at the clock and at `stop`: an interrupt lands within milliseconds.
POLL_SECONDS = 0.1


class QueryError(WarehouseError):
    """A user's query refused, failed or stopped; the message is one line saying why."""


@dataclass(frozen=True)
class Limits:
    """What one query may use: memory (DuckDB's cap, and its process's for a user's query: nothing
    spills to disk), threads, time before it is stopped, and the bytes and rows of a result its
    caller holds whole."""

    memory: str = project.DEFAULTS.sql_memory
    threads: int = project.DEFAULTS.sql_threads
    timeout_seconds: float = project.DEFAULTS.sql_timeout_seconds
    result_size: str = project.DEFAULTS.sql_result_size
    result_rows: int = project.DEFAULTS.sql_result_rows

    @classmethod
    def from_env(cls) -> Limits:
        """The limits the settings set (BANCO_SQL_MEMORY, BANCO_SQL_THREADS, BANCO_SQL_TIMEOUT_SECONDS,
        BANCO_SQL_RESULT_SIZE, BANCO_SQL_RESULT_ROWS)."""
        try:
            s = project.Settings.from_env()
        except ValueError as error:  # a reader's caller (the dashboard) shows a WarehouseError's line
            raise WarehouseError(str(error)) from None
        return cls(s.sql_memory, s.sql_threads, s.sql_timeout_seconds, s.sql_result_size, s.sql_result_rows)


def _bytes(size: str, limits: Limits, variable: str) -> int:
    """`size` ("2GB", "500 MiB") in bytes, read as DuckDB reads its memory limit."""
    try:
        return _parsed(size)
    except duckdb.Error as error:
        given = f"BANCO_SQL_MEMORY={limits.memory!r}, BANCO_SQL_THREADS={limits.threads}"
        given = given if variable == "BANCO_SQL_MEMORY" else f"{variable}={size!r}"
        raise WarehouseError(f"cannot start a reader with {given}: {sandbox.line(error)}") from None


@functools.cache
def _parsed(size: str) -> int:
    return duckdb.connect().sql("SELECT parse_formatted_bytes(?)", params=[size]).fetchall()[0][0]


def connect(db: Path, limits: Limits, snapshot: Path | None = None) -> duckdb.DuckDBPyConnection:
    """The newest serving snapshot of the warehouse at `db` that no other process holds open read-write
    (or the file `snapshot` whose views read its tables at an earlier commit: travel.py), attached
    read-only to a locked connection."""
    return _connected(db, limits, snapshot)[0]


def _connected(db: Path, limits: Limits, snapshot: Path | None) -> tuple[duckdb.DuckDBPyConnection, str | None]:
    """connect's connection, and the line saying which newer snapshots it passed over (or None)."""

    def open_(file: Path) -> duckdb.DuckDBPyConnection:
        return sandbox.connect(file, db, limits.memory, limits.threads, remote=_remote(db))

    try:
        return (open_(snapshot), None) if snapshot is not None else serving.newest(db, published(db), open_)
    except sandbox.Unusable as error:
        raise WarehouseError(str(error)) from None
    except serving.Held as error:
        raise SnapshotHeld(str(error)) from None


def _remote(db: Path) -> bool:
    return Settings.of(db).local_folder is None


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
    whole: bool = True,
    notice: Callable[[str], None] | None = None,
) -> Result:
    """`fetch` of the relation `sql` gives, on a locked connection, stopped once it runs past the time
    limit or `stop()` turns true. A `user` query is first checked, then run in a process of its own
    (sandbox.py) whose rows `fetch` reads: at most BANCO_SQL_RESULT_SIZE of them, and
    BANCO_SQL_RESULT_ROWS rows, when `fetch` holds them `whole`; else (it writes them out as they come)
    at most that size per batch (sandbox.BATCH_ROWS). Any error it meets is a QueryError of one line
    naming `where`. The project's own queries (`user=False`) run in this process and raise DuckDB's
    errors as they are, but for being stopped. `snapshot`: the file read instead of the serving snapshot
    (connect). `notice` is given the line saying which newer serving snapshots were passed over, other
    processes holding them open read-write (by default it goes to stderr)."""
    limits = limits or Limits.from_env()
    notice = notice or (lambda words: print(f"{where}: warning: {words}", file=sys.stderr))
    if not user:
        return _here(db, sql, fetch, where, params, limits, stop, snapshot, notice)
    try:
        refused = refusal(sql, where)
    except duckdb.Error as error:
        raise QueryError(f"SQL error: {_line(error)}") from None
    if refused:
        raise QueryError(refused)
    return _isolated(db, sql, fetch, where, params, limits, stop, snapshot, whole, notice)


def _here(db, sql, fetch, where, params, limits, stop, snapshot, notice):
    con, passed_over = _connected(db, limits, snapshot)
    if passed_over:
        notice(passed_over)

    def work():
        relation = con.sql(sql, params=params or None)
        if relation is None:  # only a query returns rows, and only queries pass the check
            raise QueryError(_NO_ROWS.format(where=where))
        return fetch(relation)

    try:
        return _supervised(con.interrupt, work, limits, stop)
    finally:
        con.close()


_NO_ROWS = "the statement returned no rows: {where} shows what a query returns"


def _isolated(db, sql, fetch, where, params, limits, stop, snapshot, whole, notice):
    memory = _bytes(limits.memory, limits, "BANCO_SQL_MEMORY")
    size = _bytes(limits.result_size, limits, "BANCO_SQL_RESULT_SIZE")
    snapshots = (snapshot,) if snapshot is not None else tuple(published(db))
    request = sandbox.Request(db, snapshots, sql, params, limits.memory, memory, limits.threads, _remote(db))
    # where the child's rows arrive: a connection of this process, as locked as the child's
    receiver = duckdb.connect(":memory:", config={**sandbox.LOCKED, "memory_limit": limits.memory, "threads": 1})
    receiver.execute("SET enable_external_access = false; SET lock_configuration = true")
    try:
        child = sandbox.Child(request)
    except BaseException:
        receiver.close()
        raise

    def work():
        return fetch(child.relation(receiver, size=size, rows=limits.result_rows if whole else None))

    def interrupt() -> None:
        child.kill()
        receiver.interrupt()

    try:
        try:
            result = _supervised(interrupt, work, limits, stop)
        except QueryError:  # stopped at the time limit, or when asked
            raise
        except Exception as error:
            failed = _failed(child, child.end(), error, where, limits, whole)
            if failed is None:  # this process's own (a pipe closed under `banco sql | head`): as it is
                raise
            raise failed from None
        ended = child.end()
        if ended.get("notice"):
            notice(ended["notice"])
        if child.consumed and "ok" not in ended:  # the child failed after its last rows were read
            raise _failed(child, ended, None, where, limits, whole) or QueryError("the query ended without its rows")
        return result
    finally:
        child.close()
        receiver.close()


def _failed(
    child: sandbox.Child, ended: dict[str, Any], error: Exception | None, where: str, limits: Limits, whole: bool
) -> WarehouseError | None:
    """The one-line error for a user's query that did not finish: the result limits the caller met,
    else what the child said of its end, else DuckDB's error here; None for an error of this process's
    own that none of them explains."""
    past_the_cap = _MEMORY.format(memory=limits.memory)
    if child.too_large == "rows":
        return QueryError(
            f"the result has more than {limits.result_rows:,} rows and was stopped (BANCO_SQL_RESULT_ROWS): "
            "add a LIMIT, or write every row with `banco sql --format csv`"
        )
    if child.too_large == "size":
        held = "the result is" if whole else f"{sandbox.BATCH_ROWS:,} rows of the result are"
        return QueryError(
            f"{held} larger than {limits.result_size} and was stopped (BANCO_SQL_RESULT_SIZE): "
            "select fewer or narrower columns, or fewer rows"
        )
    if "unusable" in ended:
        return WarehouseError(ended["unusable"])
    if "held" in ended:
        return SnapshotHeld(ended["held"])
    if "none" in ended:
        return QueryError(_NO_ROWS.format(where=where))
    if "error" in ended:
        kind = getattr(duckdb, ended["error"], None)
        if isinstance(kind, type) and issubclass(kind, duckdb.Error):
            return QueryError(_explained(kind(ended["message"]), where, limits))
        if ended["error"] in ("MemoryError", "ArrowMemoryError") or "out of memory" in ended["message"].lower():
            return QueryError(past_the_cap)
        return QueryError(f"SQL error: {ended['message']}")
    if "signal" in ended:  # killed by no one here: most likely an allocation past the cap that aborted
        return QueryError(f"the query's process ended (signal {ended['signal']}): {past_the_cap}")
    if "exit" in ended:
        return QueryError(f"the query's process failed (exit status {ended['exit']}): {ended['said']}")
    if isinstance(error, duckdb.Error):
        return QueryError(_explained(error, where, limits))
    return None


def _supervised(
    interrupt: Callable[[], None], work: Callable[[], Result], limits: Limits, stop: Callable[[], bool] | None
) -> Result:
    """`work()` on a thread of its own while this one watches the clock, `stop` and Ctrl-C (which
    reaches only this thread, never one held inside a DuckDB query), and calls `interrupt` at the
    first of them."""
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
            interrupt()
    except KeyboardInterrupt:
        # again until the thread ends: a query the thread had not begun yet misses the first one
        interrupt()
        while not finished.wait(POLL_SECONDS):
            interrupt()
        raise
    if "error" not in outcome:
        return outcome["value"]
    if why is not None or isinstance(outcome["error"], duckdb.InterruptException):
        raise QueryError(why or "the query was interrupted") from None
    raise outcome["error"]


_MEMORY = "the query needed more than {memory} of memory and was stopped (BANCO_SQL_MEMORY)"


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
        return _MEMORY.format(memory=limits.memory)
    return f"SQL error: {message}"


_line = sandbox.line
