"""The serving snapshots' names, and which one a reader opens: each publish writes a new file,
`banco.serving.<n>.duckdb`, and points the link `banco.serving.duckdb` at it; a reader opens the newest
that no other process holds open read-write, and says in one line which it passed over, and who holds it.

Imports nothing but DuckDB's neighbours in the standard library: the SQL child (sandbox.py) uses it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

Opened = TypeVar("Opened")
#: DuckDB's words when another process holds a file open read-write, which no reader can then open.
HELD = re.compile(r"Conflicting lock is held in .*?\(PID (?P<pid>\d+)\)")
FIX = "open it with read_only=True (duckdb -readonly)"


class Held(Exception):
    """Every published snapshot is held open read-write by another process; the message names them."""


def serving_path(db: Path) -> Path:
    """The one stable name for outside tools: a symbolic link to the newest snapshot (a plain file
    where an earlier release published it)."""
    return db.with_name(f"{db.stem}.serving{db.suffix}")


def numbered(db: Path, number: int) -> Path:
    return db.with_name(f"{db.stem}.serving.{number}{db.suffix}")


def number(snapshot: Path) -> int:
    return int(snapshot.stem.rsplit(".", 1)[1])


def ids_file(snapshot: Path) -> Path:
    """The file beside a snapshot naming the Iceberg snapshots its views read (a JSON list): what
    maintenance keeps, read without opening the snapshot (another process may hold it). Its name has
    no suffix of a round log's, so an ingest of the folder passes over it."""
    return snapshot.with_suffix(".snapshot-ids")


def published(db: Path) -> list[Path]:
    """The published snapshots of the warehouse `db`, newest first; a plain file under the link's name
    (an earlier release's snapshot) last."""
    name = re.compile(rf"{re.escape(db.stem)}\.serving\.(\d+){re.escape(db.suffix)}")
    found = (name.fullmatch(path.name) for path in db.parent.glob(f"{db.stem}.serving.*{db.suffix}"))
    snapshots = [numbered(db, n) for n in sorted((int(match[1]) for match in found if match), reverse=True)]
    link = serving_path(db)
    if link.is_file() and not link.is_symlink():
        snapshots.append(link)
    return snapshots


def holder(error: BaseException) -> int | None:
    """The process holding a file that `error` (DuckDB's, or a message quoting it) failed to open."""
    found = HELD.search(str(error))
    return int(found["pid"]) if found else None


def newest(db: Path, snapshots: Sequence[Path], open_: Callable[[Path], Opened]) -> tuple[Opened, str | None]:
    """`open_` of the first of `snapshots` (newest first) that no other process holds open read-write,
    and the one line that says which it passed over and who holds them (None when it passed none).
    Raises Held when every one is held; any other error of `open_` as it is."""
    held: list[tuple[Path, int]] = []
    for snapshot in snapshots:
        try:
            opened = open_(snapshot)
        except Exception as error:
            if not snapshot.exists():  # removed by a publish since it was listed: the next one
                continue
            pid = holder(error)
            if pid is None:
                raise
            held.append((snapshot, pid))
            continue
        return opened, (_passed_over(held, snapshot) if held else None)
    if not held:
        raise Held(f"no serving snapshot of {db} can be read: each was replaced as it was opened; try again")
    raise Held(f"no serving snapshot of {db} can be read: {_holders(held)}; {_fix(held)}")


def _passed_over(held: list[tuple[Path, int]], read: Path) -> str:
    published = dt.datetime.fromtimestamp(read.stat().st_mtime, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{_holders(held)}, so this reads the previous snapshot, {read.name} (published {published}); {_fix(held)}"


def _holders(held: list[tuple[Path, int]]) -> str:
    return "; ".join(f"process {pid} holds {snapshot.name} open read-write" for snapshot, pid in held)


def _fix(held: list[tuple[Path, int]]) -> str:
    who = "that process" if len({pid for _, pid in held}) == 1 else "those processes"
    return f"{who} should {FIX}"
