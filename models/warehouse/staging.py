"""Where a file's rows wait until its transaction: staged batches, and the shoes already stored."""

from __future__ import annotations

import contextlib
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc

from models.warehouse import lake as lake_files
from models.warehouse.schema import LAKE_TABLES

SHOE = ["table_id", "shoe_id"]
#: Batches whose lake files may be being written at once.
IN_FLIGHT = 2


def shoe_key() -> pl.Expr:
    """One number for a row's shoe (`_shoe`): comparing it is cheaper than comparing two texts."""
    return pl.struct(SHOE).hash(seed=7).alias("_shoe")


def with_shoe_key(frame: pl.DataFrame) -> pl.DataFrame:
    return frame if "_shoe" in frame.columns else frame.with_columns(shoe_key())


@dataclass
class StoredShoes:
    """The shoes that already have rows in a core table or in this file's staged batches: only
    their new rows need looking up (for duplicates and reconciliation), so fresh shoes never scan
    the growing table. `staged` holds each staged batch (a lake file not listed yet) with the shoes
    it has rows of; the rows of the batches whose files may still be being written stay in memory
    too (`recent`, as many as `IN_FLIGHT`), since a shoe that runs past the end of one batch is
    looked up by the next."""

    table: str
    in_table: pl.DataFrame
    staged: list[tuple[Path, pl.DataFrame]] = field(default_factory=list)
    recent: dict[Path, pl.DataFrame] = field(default_factory=dict)

    @classmethod
    def load(cls, con, table: str) -> StoredShoes:
        return cls(table, with_shoe_key(con.sql(f"SELECT DISTINCT table_id, shoe_id FROM {table}").pl()))

    def rows(self, con, shoes: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
        """`columns` of the stored rows of `shoes`: the table's, then those of the staged batches
        that have rows of these shoes (a shoe seldom spans more than two batches)."""
        shoes = shoes.select(SHOE).unique()
        keys = with_shoe_key(shoes)["_shoe"].implode()
        types = lake_files.frame_schema(self.table)
        found = [types.to_frame().select(columns)]
        # the few wanted keys against the table's many shoes: a scan of numbers, no hash of texts
        if self.in_table["_shoe"].is_in(keys).any():
            con.register("wanted_shoes", shoes)
            quoted = ", ".join(f'"{name}"' for name in columns)
            rows = con.sql(f"SELECT {quoted} FROM {self.table} SEMI JOIN wanted_shoes USING (table_id, shoe_id)").pl()
            found.append(rows.cast({name: types[name] for name in columns}))  # DuckDB's UTC is Etc/UTC
            con.unregister("wanted_shoes")
        for path, batch_shoes in self.staged:
            if batch_shoes["_shoe"].is_in(keys).any():
                # the recent batches are in memory (picked by the one-number key: a batch has a
                # quarter of a million rows); an older one's file is written
                if path in self.recent:
                    rows = with_shoe_key(self.recent[path])
                    found.append(rows.filter(pl.col("_shoe").is_in(keys)).select(columns))
                else:
                    found.append(pl.read_parquet(path, columns=columns).join(shoes, on=SHOE, how="semi"))
        return pl.concat(found, how="vertical_relaxed")

    def known(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of `frame` (with `_shoe`) whose shoe may already have stored rows (a shared key
        only costs a lookup that finds nothing)."""
        # each part is unique already; a key twice across parts costs a semi join nothing
        keys = pl.concat(
            [self.in_table.select("_shoe"), *(batch_shoes.select("_shoe") for _, batch_shoes in self.staged)]
        )
        return frame.join(keys, on="_shoe", how="semi") if keys.height else frame.head(0)

    def add(self, path: Path, frame: pl.DataFrame) -> None:
        """A staged batch of `frame`'s rows (as written to `path`), whose shoes are stored from now on."""
        self.staged.append((path, with_shoe_key(frame).select(*SHOE, "_shoe").unique("_shoe")))
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
    """A file's batches until the file is done, then moved in within one transaction: the lake
    tables' rows as new lake files (listed at `commit`), the other tables' as Arrow IPC beside the
    warehouse (written and read back at memory speed, inserted at `commit`). The warehouse never
    holds a half-ingested file, however large. Lake files are written on threads of their own while
    the next batch is checked, `IN_FLIGHT` batches at most: Arrow writes a file on one core, and two
    files at once keep both of a small machine's cores busy."""

    folder: Path
    lake: Path
    files: dict[str, list[Path]] = field(default_factory=dict)
    rows: dict[Path, int] = field(default_factory=dict)
    schemas: dict[str, pl.Schema] = field(default_factory=dict)
    writing: deque[Future] = field(default_factory=deque)
    writer: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(IN_FLIGHT, thread_name_prefix="lake"))

    def write(self, table: str, frame: pl.DataFrame) -> Path | None:
        if frame.height == 0:
            return None
        if table in LAKE_TABLES:
            path = lake_files.new_path(self.lake, table)
            while len(self.writing) >= IN_FLIGHT:  # memory stays bounded
                self.writing.popleft().result()
            self.writing.append(self.writer.submit(lake_files.write_to, path, table, frame))
        else:
            path = self.folder / f"{table}.{len(self.files.get(table, []))}.arrow"
            schema = self.schemas.setdefault(table, frame.schema)
            if frame.schema != schema:  # one stream per table: a column null all through a batch, say
                frame = frame.cast(dict(schema))
            frame.write_ipc(path, compression="uncompressed")
        self.files.setdefault(table, []).append(path)
        self.rows[path] = frame.height
        return path

    def later(self, work, *args) -> Future:
        """Run `work(*args)` on a writer's thread, after the lake files already handed to them: for
        what the file needs only at its end."""
        return self.writer.submit(work, *args)

    def written(self) -> None:
        """Wait for every lake file being written; the first error, if any, is raised here."""
        writing, self.writing = list(self.writing), deque()
        wait(writing)
        for done in writing:
            done.result()

    def commit(self, con) -> None:
        """List the lake files and insert every other table's staged batches; the caller holds the
        transaction."""
        self.written()
        for table, paths in self.files.items():
            if table in LAKE_TABLES:
                lake_files.add(con, self.lake, table, [(path, self.rows[path]) for path in paths])
                continue
            con.register("staged", pa.RecordBatchReader.from_batches(_schema(paths[0]), _batches(paths)))
            try:
                con.execute(f"INSERT INTO {table} SELECT * FROM staged")
            finally:
                con.unregister("staged")

    def abort(self) -> None:
        """Remove the lake files written (no view lists them yet)."""
        with contextlib.suppress(Exception):  # the file is given up anyway: its error is the writer's
            self.written()
        for table, paths in self.files.items():
            if table in LAKE_TABLES:
                for path in paths:
                    path.unlink(missing_ok=True)

    def close(self) -> None:
        self.writer.shutdown(wait=True)


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
