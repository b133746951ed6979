"""Where a file's rows wait until its transaction: staged batches, and the shoes already stored."""

from __future__ import annotations

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


@dataclass
class Stage:
    """A file's batches, written beside the warehouse as Arrow IPC (written and read back at
    memory speed) until the file is done; then one transaction streams them in. The warehouse never
    holds a half-ingested file, however large."""

    folder: Path
    files: dict[str, list[Path]] = field(default_factory=dict)
    schemas: dict[str, pl.Schema] = field(default_factory=dict)

    def write(self, table: str, frame: pl.DataFrame) -> Path | None:
        if frame.height == 0:
            return None
        path = self.folder / f"{table}.{len(self.files.get(table, []))}.arrow"
        schema = self.schemas.setdefault(table, frame.schema)
        if frame.schema != schema:  # one stream per table: a column null all through a batch, say
            frame = frame.cast(dict(schema))
        frame.write_ipc(path, compression="uncompressed")
        self.files.setdefault(table, []).append(path)
        return path

    def commit(self, con) -> None:
        """Insert every staged batch; the caller holds the transaction.

        Without insertion order to keep, DuckDB writes each table's new row groups to the file as it
        inserts them, rather than holding them for the checkpoint to write, which then has almost
        nothing left to do. No reader relies on the physical order of rows."""
        con.execute("SET preserve_insertion_order = false")
        try:
            for table, paths in self.files.items():
                con.register("staged", _batches(paths))
                try:
                    con.execute(f"INSERT INTO {table} SELECT * FROM staged")
                finally:
                    con.unregister("staged")
        finally:
            con.execute("RESET preserve_insertion_order")


def _batches(paths: list[Path]) -> pa.RecordBatchReader:
    """The staged files' record batches as one stream, each file read as the stream reaches it."""
    with pa.OSFile(str(paths[0])) as first:
        schema = ipc.open_file(first).schema

    def batches():
        for path in paths:
            with pa.OSFile(str(path)) as source:
                reader = ipc.open_file(source)
                for i in range(reader.num_record_batches):
                    yield reader.get_batch(i)

    return pa.RecordBatchReader.from_batches(schema, batches())
