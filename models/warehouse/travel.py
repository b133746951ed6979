"""Time travel: the warehouse's tables as an earlier commit of the log left them (iceberg.py).

A commit is named by its snapshot of meta.ingest_log (or of any table it names), or by a time: the
log's commit current then. Its tables are read in a scratch DuckDB file whose views read exactly the
data files of the snapshots it names, as the serving file's views read the latest commit's.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from models.warehouse.schema import BUILT_FROM, INGEST_LOG
from models.warehouse.store import WarehouseError, at, open_tables

if TYPE_CHECKING:  # the Iceberg library is for writers and travellers: a report's reader never imports it
    from models.warehouse.iceberg import Tables


@dataclass(frozen=True)
class Commit:
    """One commit of the warehouse: the log's snapshot, when it was made, every table's snapshot."""

    log_snapshot: int
    committed_at: dt.datetime
    point: dict[str, int]

    def recorded(self) -> dict[str, Any]:
        """The commit as a report's manifest records it."""
        return {
            "log_snapshot": self.log_snapshot,
            "committed_at": self.committed_at.isoformat(),
            "snapshots": dict(sorted(self.point.items())),
        }

    def describe(self) -> str:
        return f"commit {self.log_snapshot} of {self.committed_at.isoformat(timespec='seconds')}".replace("+00:00", "Z")


#: The commit the serving file's marts were built from, and their settings (ledger.record_commit).
BUILT = f"SELECT log_snapshot, committed_at, point, settings FROM {BUILT_FROM}"


def built(rows: list[tuple]) -> tuple[Commit | None, dict | None]:
    """The commit the marts were built from and their settings, from BUILT's rows (None: a build before
    builds noted them)."""
    if not rows:
        return None, None
    log_snapshot, committed_at, point, settings = rows[0]
    return Commit(log_snapshot, committed_at.astimezone(dt.UTC), json.loads(point)), json.loads(settings)


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time with its zone (`Z` or an offset); a naive one is a one-line ValueError."""
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not a snapshot id or an ISO 8601 time (e.g. 2026-11-03T12:00:00Z): {text!r}") from None
    if when.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone: add one (Z for UTC, or an offset such as +08:00)")
    return when


def find(db: Path, as_of: str) -> Commit:
    """The commit `as_of` names: a snapshot id (the log's, or another table's: the first commit that
    names it), or a time (the log's commit current then). One-line WarehouseError when there is none."""
    from models.warehouse.iceberg import point

    tables = open_tables(db)
    log = tables.table(INGEST_LOG)
    text = as_of.strip()
    if text.isdigit():
        wanted = int(text)
        found = log.snapshot_by_id(wanted) or next(
            (s for s in sorted(log.snapshots(), key=lambda s: s.timestamp_ms) if wanted in point(s).values()), None
        )
        if found is None:
            raise WarehouseError(f"no commit of the warehouse at {db} names snapshot {wanted} (never one, or expired)")
        return _commit(found)
    when = parse_time(text)
    history = log.history()
    if not history:
        raise WarehouseError(f"the warehouse at {db} has no commit yet")
    first = _instant(history[0].timestamp_ms)
    if when < first:
        raise WarehouseError(f"{text} is before the warehouse's first commit ({first:%Y-%m-%dT%H:%M:%S}Z)")
    current = [entry for entry in history if _instant(entry.timestamp_ms) <= when][-1]
    found = log.snapshot_by_id(current.snapshot_id)
    if found is None:
        raise WarehouseError(
            f"the warehouse's commit current at {text} ({current.snapshot_id}) has expired: "
            "BANCO_SNAPSHOT_RETENTION_HOURS says how long commits are kept"
        )
    return _commit(found)


def of(tables: Tables, point: dict[str, int]) -> Commit | None:
    """The commit `point` (as Tables.commit_point gives it) is, None before the first."""
    log = tables.table(INGEST_LOG).snapshot_by_id(point[INGEST_LOG]) if INGEST_LOG in point else None
    return None if log is None else _commit(log)


def _instant(ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC)


def _commit(log) -> Commit:
    from models.warehouse.iceberg import point

    return Commit(log.snapshot_id, _instant(log.timestamp_ms), point(log))


@contextmanager
def scratch(db: Path, commit: Commit, folder: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A scratch warehouse file in `folder` whose views read the tables at `commit`; a writer's
    connection to it (the marts built into it stay there). A snapshot not expired keeps its files."""
    with at(db, open_tables(db), commit.point, folder / "scratch.duckdb") as con:
        yield con


def snapshot_file(db: Path, commit: Commit, folder: Path) -> Path:
    """A scratch warehouse file in `folder` holding the tables at `commit` only, for a reader to attach."""
    with scratch(db, commit, folder):
        pass
    return folder / "scratch.duckdb"
