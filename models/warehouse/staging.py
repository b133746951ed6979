"""Where a file's rows wait until its transaction: staged batches, and the shoes already stored."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

SHOE = ["table_id", "shoe_id"]


@dataclass
class StoredShoes:
    """The shoes that already have rows in a core table or in this file's staged batches: only
    their new rows need looking up (for duplicates and reconciliation), so fresh shoes never scan
    the growing table."""

    table: str
    shoes: pl.DataFrame
    staged: list[Path] = field(default_factory=list)

    @classmethod
    def load(cls, con, table: str) -> StoredShoes:
        return cls(table, con.sql(f"SELECT DISTINCT table_id, shoe_id FROM {table}").pl())

    def relation(self) -> str:
        """SQL for the rows stored so far: the table, and the batches of the file being ingested."""
        if not self.staged:
            return self.table
        files = ", ".join(f"'{path}'" for path in self.staged)
        return f"(SELECT * FROM {self.table} UNION ALL BY NAME SELECT * FROM read_parquet([{files}]))"

    def known(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of `frame` whose shoe already has stored rows."""
        return frame.join(self.shoes, on=SHOE, how="semi") if self.shoes.height else frame.head(0)

    def add(self, frame: pl.DataFrame) -> None:
        self.shoes = pl.concat([self.shoes, frame.select(SHOE)], how="vertical_relaxed").unique()


@dataclass
class Stage:
    """A file's batches, written to Parquet beside the warehouse until the file is done; then one
    transaction moves them in. The warehouse never holds a half-ingested file, however large."""

    folder: Path
    files: dict[str, list[Path]] = field(default_factory=dict)

    def write(self, table: str, frame: pl.DataFrame) -> Path | None:
        if frame.height == 0:
            return None
        path = self.folder / f"{table}.{len(self.files.get(table, []))}.parquet"
        frame.write_parquet(path, compression="lz4", statistics=False)
        self.files.setdefault(table, []).append(path)
        return path

    def commit(self, con) -> None:
        """Insert every staged batch; the caller holds the transaction.

        Without insertion order to keep, DuckDB writes each table's new row groups to the file as it
        inserts them (in parallel), rather than holding them for the checkpoint to write, which then
        has almost nothing left to do. No reader relies on the physical order of rows."""
        con.execute("SET preserve_insertion_order = false")
        try:
            for table, paths in self.files.items():
                files = ", ".join(f"'{path}'" for path in paths)
                con.execute(f"INSERT INTO {table} SELECT * FROM read_parquet([{files}])")
        finally:
            con.execute("RESET preserve_insertion_order")
