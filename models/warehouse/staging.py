"""Where a file's rows wait until its transaction: staged batches, and the shoes already stored."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

SHOE = ["table_id", "shoe_id"]


def _read_staged(path: Path, columns: list[str], shoes: pl.DataFrame) -> pl.DataFrame:
    """Columns of one staged batch's rows of `shoes` (mapped: only these columns are read; Arrow
    keeps the mapping alive while the rows point into it)."""
    with pa.memory_map(str(path)) as source:
        batch = pl.from_arrow(ipc.open_file(source).read_all().select(columns))
        return batch.join(shoes, on=SHOE, how="semi")


@dataclass
class StoredShoes:
    """The shoes that already have rows in a core table or in this file's staged batches: only
    their new rows need looking up (for duplicates and reconciliation), so fresh shoes never scan
    the growing table. `staged` holds each staged batch with the shoes it has rows of."""

    table: str
    shoes: pl.DataFrame
    staged: list[tuple[Path, pl.DataFrame]] = field(default_factory=list)

    @classmethod
    def load(cls, con, table: str) -> StoredShoes:
        return cls(table, con.sql(f"SELECT DISTINCT table_id, shoe_id FROM {table}").pl())

    def rows(self, con, shoes: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
        """`columns` of the stored rows of `shoes`: the table's, then those of the staged batches
        that have rows of these shoes (a shoe seldom spans more than two batches)."""
        shoes = shoes.select(SHOE).unique()
        con.register("wanted_shoes", shoes)
        quoted = ", ".join(f'"{name}"' for name in columns)
        found = [con.sql(f"SELECT {quoted} FROM {self.table} SEMI JOIN wanted_shoes USING (table_id, shoe_id)").pl()]
        con.unregister("wanted_shoes")
        for path, batch_shoes in self.staged:
            if batch_shoes.join(shoes, on=SHOE, how="semi").height:
                found.append(_read_staged(path, columns, shoes))
        return pl.concat(found, how="vertical_relaxed")

    def known(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of `frame` whose shoe already has stored rows."""
        return frame.join(self.shoes, on=SHOE, how="semi") if self.shoes.height else frame.head(0)

    def add(self, path: Path, frame: pl.DataFrame) -> None:
        """A staged batch of `frame`'s rows, whose shoes are stored from now on."""
        batch_shoes = frame.select(SHOE).unique()
        self.staged.append((path, batch_shoes))
        self.shoes = pl.concat([self.shoes, batch_shoes], how="vertical_relaxed").unique()


class Feed:
    """One table's staged batches streamed into it by a single INSERT on a thread of its own while
    the next batches are read and checked, so that DuckDB's writing and the checks share the two
    cores. The caller holds the transaction on `con` and uses no other statement on it until
    `finish` or `abort`; it reads committed rows through a cursor meanwhile."""

    def __init__(self, con, table: str) -> None:
        self.con, self.table = con, table
        self.paths: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.aborted = False

    def put(self, path: Path) -> None:
        """Stream a staged file in; the first one starts the INSERT (its schema is the stream's)."""
        if self.thread is None:
            self.con.register("fed", pa.RecordBatchReader.from_batches(_schema(path), self._batches()))
            self.thread = threading.Thread(target=self._insert, name=f"insert {self.table}", daemon=True)
            self.thread.start()
        self.paths.put(path)

    def _batches(self):
        while (path := self.paths.get()) is not None:
            if self.aborted:
                raise RuntimeError("ingest aborted")
            yield from _file_batches(path)

    def _insert(self) -> None:
        try:
            self.con.execute(f"INSERT INTO {self.table} SELECT * FROM fed")
        except BaseException as error:  # handed to the caller by finish()
            self.error = error

    def _stop(self) -> None:
        if self.thread is not None:
            self.paths.put(None)
            self.thread.join()
            self.thread = None
            self.con.unregister("fed")

    def finish(self) -> None:
        """Wait for every staged batch to be in; raise what the INSERT raised."""
        self._stop()
        if self.error is not None:
            raise self.error

    def abort(self) -> None:
        """Stop the INSERT with an error (the caller then rolls back)."""
        self.aborted = True
        self._stop()


@dataclass
class Stage:
    """A file's batches, written beside the warehouse as Arrow IPC (written and read back at
    memory speed) until the file is done, then moved in within one transaction: streamed in as they
    come for tables with a `Feed`, at `commit` for the others. The warehouse never holds a
    half-ingested file, however large."""

    folder: Path
    files: dict[str, list[Path]] = field(default_factory=dict)
    schemas: dict[str, pl.Schema] = field(default_factory=dict)
    feeds: dict[str, Feed] = field(default_factory=dict)

    def write(self, table: str, frame: pl.DataFrame) -> Path | None:
        if frame.height == 0:
            return None
        path = self.folder / f"{table}.{len(self.files.get(table, []))}.arrow"
        schema = self.schemas.setdefault(table, frame.schema)
        if frame.schema != schema:  # one stream per table: a column null all through a batch, say
            frame = frame.cast(dict(schema))
        frame.write_ipc(path, compression="uncompressed")
        self.files.setdefault(table, []).append(path)
        if table in self.feeds:
            self.feeds[table].put(path)
        return path

    def commit(self, con) -> None:
        """Finish the feeds and insert every other table's staged batches; the caller holds the
        transaction (with `preserve_insertion_order` off, see `ingest`)."""
        for feed in self.feeds.values():
            feed.finish()
        for table, paths in self.files.items():
            if table in self.feeds:
                continue
            con.register("staged", pa.RecordBatchReader.from_batches(_schema(paths[0]), _batches(paths)))
            try:
                con.execute(f"INSERT INTO {table} SELECT * FROM staged")
            finally:
                con.unregister("staged")

    def abort(self) -> None:
        for feed in self.feeds.values():
            feed.abort()


def _schema(path: Path) -> pa.Schema:
    with pa.OSFile(str(path)) as source:
        return ipc.open_file(source).schema


def _file_batches(path: Path):
    """A staged file's record batches, read when the stream reaches them."""
    with pa.OSFile(str(path)) as source:
        reader = ipc.open_file(source)
        for i in range(reader.num_record_batches):
            yield reader.get_batch(i)


def _batches(paths: list[Path]):
    for path in paths:
        yield from _file_batches(path)
