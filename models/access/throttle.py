"""Repeated failed sign-ins slowed down: a few are free, then each waits twice as long as the last.

The failures are counted in a SQLite file beside the users file, so that neither a rerun, a new session,
Streamlit's "Clear cache" nor a restart forgets them, and every dashboard process on the machine sees
the same counts. A try is counted before its password is verified: tries made at once are held up too.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from models.access import AccessError
from models.access.users import User, authenticate

SCHEMA = """
CREATE TABLE IF NOT EXISTS failures (key TEXT PRIMARY KEY, failures INTEGER NOT NULL, last REAL NOT NULL);
CREATE INDEX IF NOT EXISTS failures_last ON failures (last);
"""


def _prepare(con: sqlite3.Connection, deadline: float) -> None:
    """WAL and the table, retried until `deadline`: a file's first switch to WAL can meet another
    connection's and fail at once with "database is locked", without waiting out the busy timeout."""
    while True:
        try:
            # a count lost to a power cut costs little; a commit that waits for the disk, every try
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode = WAL")
            con.executescript("PRAGMA synchronous = NORMAL;" + SCHEMA)
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def beside(users_file: Path) -> Path:
    """Where the failed sign-ins against `users_file` are counted: users.toml -> users.failures.sqlite."""
    return users_file.with_name(f"{users_file.stem}.failures.sqlite")


class Throttled(Exception):
    """A name or a client must wait `wait` seconds before it may try again."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"try again in {wait:.0f} s")
        self.wait = wait


class Throttle:
    """Failures per key (a user name, a client's address) in the SQLite file at `path`; `wait` is how long
    a key must wait before it may try again. A key quiet for `forget` seconds starts afresh."""

    def __init__(
        self, path: Path, *, free: int = 3, longest: float = 30.0, forget: float = 900.0, keys: int = 100_000
    ) -> None:
        self.path, self.free, self.longest, self.forget, self.keys = path, free, longest, forget, keys

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before the first read: two processes never both read the old count."""
        try:
            self.path.touch(mode=0o600, exist_ok=True)  # who tried which name from where: its owner's alone
            con = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        except (OSError, sqlite3.Error) as error:
            raise AccessError(f"failed sign-ins cannot be counted in {self.path}: {error}") from None
        try:
            _prepare(con, deadline=time.monotonic() + 10.0)
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.rollback()
                raise
            con.commit()
        except sqlite3.Error as error:
            raise AccessError(f"failed sign-ins cannot be counted in {self.path}: {error}") from None
        finally:
            con.close()

    def _held(self, con: sqlite3.Connection, key: str, now: float) -> float:
        row = con.execute("SELECT failures, last FROM failures WHERE key = ?", (key,)).fetchone()
        if row is None or row[0] < self.free or now - row[1] > self.forget:
            return 0.0
        failures, last = row
        # bounded by the longest wait, so a clock set back cannot hold a key for longer
        return min(max(0.0, last + min(2.0 ** (failures - self.free), self.longest) - now), self.longest)

    def _count(self, con: sqlite3.Connection, key: str, now: float) -> None:
        con.execute("DELETE FROM failures WHERE last < ?", (now - self.forget,))
        con.execute(
            "INSERT INTO failures VALUES (?, 1, ?) ON CONFLICT (key) DO UPDATE SET failures = failures + 1, "
            "last = excluded.last",
            (key, now),
        )
        # names sprayed at the form cannot fill the disk: the keys failed longest ago go first
        con.execute(
            "DELETE FROM failures WHERE key IN (SELECT key FROM failures ORDER BY last DESC, rowid DESC "
            "LIMIT -1 OFFSET ?)",
            (self.keys,),
        )

    def wait(self, key: str, now: float) -> float:
        with self._transaction() as con:
            return self._held(con, key, now)

    def failed(self, key: str, now: float) -> None:
        with self._transaction() as con:
            self._count(con, key, now)

    def reserve(self, keys: Sequence[str], now: float | None = None) -> None:
        """Count a try against every key at once, or raise Throttled (counting nothing) when one must wait.
        `now` is read once the file is this process's: a try that waited for another is not counted earlier."""
        with self._transaction() as con:
            now = time.time() if now is None else now  # wall-clock time: the counts outlive the process
            wait = max(self._held(con, key, now) for key in keys)
            if wait > 0:
                raise Throttled(wait)
            for key in keys:
                self._count(con, key, now)

    def released(self, key: str) -> None:
        """Take back a try that `reserve` counted and that succeeded."""
        with self._transaction() as con:
            con.execute("UPDATE failures SET failures = max(failures - 1, 0) WHERE key = ?", (key,))

    def cleared(self, key: str) -> None:
        with self._transaction() as con:
            con.execute("DELETE FROM failures WHERE key = ?", (key,))

    def authenticate(self, known: Mapping[str, User], name: str, password: str, client: str) -> User | None:
        """`users.authenticate`, held up while the name or the client (the address the try comes from) must
        wait (Throttled). The try counts before the password is verified; the right password clears the
        name's failures and takes back the client's try, whose earlier failures still count."""
        by_name, by_client = f"name:{name}", f"client:{client}"
        self.reserve((by_name, by_client))
        user = authenticate(known, name, password)
        if user is not None:
            self.cleared(by_name)
            self.released(by_client)
        return user
