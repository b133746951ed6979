"""Where a file's rows wait until its commit: staged data files, and the shoes already stored."""

from __future__ import annotations

import contextlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import polars as pl

from models.warehouse import files
from models.warehouse.columns import frame_schema
from models.warehouse.iceberg import Tables
from models.warehouse.schema import INGEST_LOG, TABLES

SHOE = ["table_id", "shoe_id"]
#: Table events are looked up by their key (table_id, event_id): a table's events grow all year, and a
#: new file's events are nearly all new keys (shifts.py looks their shifts up apart).
EVENT_GROUP = ["table_id", "event_id"]
#: Batches whose data files may be being written at once.
IN_FLIGHT = 2


def shoe_key(group: list[str] = SHOE) -> pl.Expr:
    """One number for a row's shoe (`_shoe`; or the `group` a table's rows are looked up by):
    comparing it is cheaper than comparing two texts."""
    return pl.struct(group).hash(seed=7).alias("_shoe")


def with_shoe_key(frame: pl.DataFrame, group: list[str] = SHOE) -> pl.DataFrame:
    return frame if "_shoe" in frame.columns else frame.with_columns(shoe_key(group))


@dataclass
class StoredShoes:
    """The shoes that already have rows in a core table or in this file's staged batches: only
    their new rows need looking up (for duplicates and reconciliation), so fresh shoes never scan
    the growing table. `staged` holds each staged batch (a lake file not listed yet) with the shoes
    it has rows of; the rows of the batches whose files may still be being written stay in memory
    too (`recent`, as many as `IN_FLIGHT`), since a shoe that runs past the end of one batch is
    looked up by the next. Table events are kept so by their key (`group`, EVENT_GROUP)."""

    table: str
    in_table: pl.DataFrame
    io: object  # the FileIO the staged files are read back through
    staged: list[tuple[str, pl.DataFrame]] = field(default_factory=list)
    recent: dict[str, pl.DataFrame] = field(default_factory=dict)
    group: list[str] = field(default_factory=lambda: list(SHOE))  # the columns a "shoe" is

    @classmethod
    def load(cls, con, table: str, io, group: list[str] = SHOE) -> StoredShoes:
        shoes = con.sql(f"SELECT DISTINCT {', '.join(group)} FROM {table}").pl()
        return cls(table, with_shoe_key(shoes, group), io, group=list(group))

    def rows(self, con, shoes: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
        """`columns` of the stored rows of `shoes`: the table's, then those of the staged batches
        that have rows of these shoes (a shoe seldom spans more than two batches)."""
        shoes = shoes.select(self.group).unique()
        keys = with_shoe_key(shoes, self.group)["_shoe"].implode()
        types = frame_schema(self.table)
        found = [types.to_frame().select(columns)]
        # the few wanted keys against the table's many shoes: a scan of numbers, no hash of texts
        if self.in_table["_shoe"].is_in(keys).any():
            con.register("wanted_shoes", shoes)
            quoted = ", ".join(f'"{name}"' for name in columns)
            using = ", ".join(self.group)
            rows = con.sql(f"SELECT {quoted} FROM {self.table} SEMI JOIN wanted_shoes USING ({using})").pl()
            found.append(rows.cast({name: types[name] for name in columns}))  # DuckDB's UTC is Etc/UTC
            con.unregister("wanted_shoes")
        for path, batch_shoes in self.staged:
            if batch_shoes["_shoe"].is_in(keys).any():
                # the recent batches are in memory (picked by the one-number key: a batch has a
                # quarter of a million rows); an older one's file is written
                if path in self.recent:
                    rows = with_shoe_key(self.recent[path], self.group)
                    found.append(rows.filter(pl.col("_shoe").is_in(keys)).select(columns))
                else:
                    rows = files.read(self.io, [path], self.table, columns)
                    found.append(rows.join(shoes, on=self.group, how="semi"))
        return pl.concat(found, how="vertical_relaxed")

    def known(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of `frame` (with `_shoe`) whose shoe may already have stored rows (a shared key
        only costs a lookup that finds nothing)."""
        # each part is unique already; a key twice across parts costs a semi join nothing
        keys = pl.concat(
            [self.in_table.select("_shoe"), *(batch_shoes.select("_shoe") for _, batch_shoes in self.staged)]
        )
        return frame.join(keys, on="_shoe", how="semi") if keys.height else frame.head(0)

    def add(self, path: str, frame: pl.DataFrame) -> None:
        """A staged batch of `frame`'s rows (as written to `path`), whose shoes are stored from now on."""
        self.staged.append((path, with_shoe_key(frame, self.group).select(*self.group, "_shoe").unique("_shoe")))
        self.recent[path] = frame
        while len(self.recent) > IN_FLIGHT:  # the oldest one's file is written by now
            del self.recent[next(iter(self.recent))]

    def settle(self, paths, committed: bool) -> None:
        """A file's staged batches (`paths`) are in the table now, or nowhere."""
        done = [batch_shoes for path, batch_shoes in self.staged if path in paths]
        if committed and done:
            self.in_table = pl.concat([self.in_table, *done], how="vertical_relaxed").unique()
        self.staged = [(path, batch_shoes) for path, batch_shoes in self.staged if path not in paths]
        self.recent = {}


@dataclass
class Stage:
    """A file's rows until the file is done, as data files of their tables, not yet committed: then
    committed table by table, the log last (iceberg.py), or left for maintenance to remove. Files
    are written on threads of their own while the next batch is checked, `IN_FLIGHT` at most:
    Arrow writes a file on one core, and two at once keep both of a small machine's cores busy."""

    tables: Tables
    by: str  # the ingest's id, in every file's name and every snapshot's summary
    files: dict[str, list[Future[files.Written]]] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    writing: deque[Future] = field(default_factory=deque)
    writer: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(IN_FLIGHT, "stage"))

    def write(self, table: str, frame: pl.DataFrame) -> str | None:
        """Start writing `frame`'s rows as a data file of `table`; returns its location."""
        if frame.height == 0:
            return None
        location = self.tables.location(table, self.by)
        while len(self.writing) >= IN_FLIGHT:  # memory stays bounded
            self.writing.popleft().result()
        writing = self.writer.submit(files.write, self.tables.io, location, table, frame)
        self.writing.append(writing)
        self.files.setdefault(table, []).append(writing)
        self.rows[location] = frame.height
        return location

    def written(self) -> None:
        """Wait for every file being written; the first error, if any, is raised here."""
        writing, self.writing = list(self.writing), deque()
        wait(writing)
        for done in writing:
            done.result()

    def commit(self, replaced: frozenset[str] = frozenset()) -> None:
        """Commit every table's staged files but the log's, each in one snapshot (the tables in
        `replaced` get them as their whole new contents); the log's commit, which makes them the
        warehouse's, is the caller's."""
        self.written()
        for table in TABLES:
            if table == INGEST_LOG or table not in self.files:
                continue
            commit = self.tables.replace if table in replaced else self.tables.add
            commit(table, [writing.result() for writing in self.files[table]], self.by)

    def abort(self) -> None:
        """Wait for the writers; the files written stay uncommitted, for maintenance to remove."""
        with contextlib.suppress(Exception):  # the file is given up anyway: its error is the writer's
            self.written()

    def close(self) -> None:
        self.writer.shutdown(wait=True)
