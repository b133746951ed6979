"""Whether the marts lag the warehouse, and why, in the one wording every reader shows (`banco build`,
`banco report`, the dashboard): a build that failed leaves a note beside the warehouse until a build
succeeds, and each build notes the table-days it held back from the marts (meta.held_back)."""

from __future__ import annotations

import datetime as dt
import json
import os
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from models.warehouse import schema

#: What a reader runs on the serving snapshot for the held-back table-days (gaming_day, table_id,
#: reason); a snapshot built before builds noted them has no such table.
HELD_BACK = f"SELECT gaming_day, table_id, reason FROM {schema.HELD_BACK} ORDER BY ALL"
#: How many held-back table-days a warning names (`banco build` lists every one).
NAMED = 5
#: The longest reason kept: an error's first line can quote a whole expression.
REASON_CHARS = 300


@dataclass(frozen=True)
class Failure:
    """A build that failed: when, and why in one line."""

    at: dt.datetime
    reason: str


def note_path(db: Path) -> Path:
    """Where a failed build is noted: `banco.build-failed.json` beside `banco.duckdb`, which readers
    reach without the writer."""
    return db.with_name(f"{db.stem}.build-failed.json")


def reason(error: BaseException) -> str:
    """`error` in one line: its kind and its first line."""
    text = str(error).strip()
    line = f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 3] + "..."


@contextmanager
def noted(db: Path, unless: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Note a build of the warehouse `db` that fails, with its traceback, beside it (not for the
    `unless` errors: a refusal to build is no failure); a build that succeeds clears the note."""
    try:
        yield
    except unless:
        raise
    except Exception as error:
        at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        _write(note_path(db), {"failed_at": at, "reason": reason(error), "traceback": traceback.format_exc()})
        raise
    note_path(db).unlink(missing_ok=True)


def _write(path: Path, note: dict) -> None:
    """Write the note whole or not at all: a reader never sees half of one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(note, indent=2) + "\n")
    os.replace(temporary, path)


def failure(db: Path) -> Failure | None:
    """The failed build noted beside `db`, or None when the last build succeeded."""
    path = note_path(db)
    try:
        note = json.loads(path.read_text())
        return Failure(dt.datetime.fromisoformat(note["failed_at"]), str(note["reason"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):  # a note all the same: a build failed
        try:
            at = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC)
        except OSError:
            return None
        return Failure(at, f"its note {path.name} cannot be read")


def failed_line(db: Path, error: BaseException) -> str:
    """What `banco build` says of a build that failed as a whole."""
    return (
        f"the build failed ({reason(error)}); nothing was published: the marts are still those of the last "
        f"build that succeeded (the traceback is in {note_path(db)})"
    )


def held_back_line(day: dt.date, table: str, why: str) -> str:
    """What `banco build` says of one table-day it held back."""
    return f"held back {table} on {day} from the marts: {why}"


def warning(failed: Failure | None, held: Sequence[tuple[dt.date, str, str]]) -> str | None:
    """What a reader of the marts is told when they lag the warehouse, or None when they do not: the
    build that failed, and the table-days held back (gaming_day, table_id, reason)."""
    said = []
    if failed is not None:
        said.append(
            f"The marts are stale: the last build, at {failed.at.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC, failed "
            f"({failed.reason}); they are still those of the last build that succeeded."
        )
    if held:
        named = ", ".join(f"{table} on {day}" for day, table, _ in held[:NAMED])
        more = f" and {len(held) - NAMED} more" if len(held) > NAMED else ""
        days = "table-day" if len(held) == 1 else "table-days"
        said.append(
            f"The marts leave out {len(held)} {days} whose rows the build could not compute: {named}{more} "
            f"({held[0][2]}); {schema.HELD_BACK} lists them."
        )
    return " ".join(said) or None


def of_serving(db: Path, where: str) -> str | None:
    """Why the serving marts of `db` lag the warehouse (a build that failed, table-days held back), or None;
    read through the locked reader as `where`."""
    import duckdb

    from models.warehouse import reader

    try:
        held = reader.run(db, HELD_BACK, lambda relation: relation.fetchall(), where=where, user=False)
    except duckdb.CatalogException:  # built before builds noted them
        held = []
    return warning(failure(db), held)
