"""A careless reader: another process holding a serving snapshot open read-write, as a notebook's plain
`duckdb.connect(path)` does, until the test lets go; and two published snapshots that differ, for
tests that must tell which one a reader read."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from models.warehouse.store import publish

HOLD = "import duckdb, sys; con = duckdb.connect(sys.argv[1]); print('open', flush=True); sys.stdin.read()"


@contextmanager
def holding(path: Path) -> Iterator[int]:
    """A process of its own holding `path` open read-write while the block runs; its PID."""
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout.readline().strip() == b"open", "the holder could not open the snapshot"
        yield child.pid
    finally:
        child.stdin.close()  # it reads to the end of its input, then ends
        child.stdout.close()
        child.wait(30)


def two_snapshots(built: Path, folder: Path, dropped: int) -> Path:
    """A copy of the built warehouse's file in `folder` (its views read the built warehouse's data files)
    published twice: the newest without the first `dropped` players of marts.players. Returns the copy."""
    db = folder / "banco.duckdb"
    shutil.copyfile(built, db)
    publish(db)
    con = duckdb.connect(str(db))
    con.execute(
        f"DELETE FROM marts.players WHERE player_id IN (SELECT player_id FROM marts.players ORDER BY 1 LIMIT {dropped})"
    )
    con.close()
    publish(db)
    return db
