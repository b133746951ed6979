"""Shards: groups of tables whose work (ingest, marts) runs apart, side by side or on other machines.

Dedup and reconciliation are local to a table, so two shards never touch the same rows. A table's
shard is fixed by its id (crc32 modulo the shard count, the setting `shards`: BANCO_SHARDS): every process
that knows the count agrees on it without asking anyone.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass

import polars as pl

#: The command line's ceiling on shards (`banco simulate --shards`, `banco cluster up --shards`): a run's
#: tables are spread over at most this many; each file written looks every table's shard up among them.
MAX_SHARDS = 64


@dataclass(frozen=True)
class Sharding:
    """How many shards the tables fall into."""

    count: int

    def __post_init__(self):
        if self.count < 1:
            raise ValueError(f"BANCO_SHARDS must be 1 or more, not {self.count}")

    @property
    def names(self) -> list[str]:
        """The shards' names, `s0` .. `s{count-1}`."""
        return [f"s{index}" for index in range(self.count)]

    def of(self, table_id: str) -> str:
        """The shard a table belongs to."""
        return f"s{zlib.crc32(table_id.encode()) % self.count}"

    def tables_in(self, shard: str, table_ids: Iterable[str]) -> list[str]:
        """The tables among `table_ids` that belong to `shard`."""
        return sorted(table for table in set(table_ids) if self.of(table) == shard)

    def column(self, table_ids: str = "table_id") -> pl.Expr:
        """Each row's shard, as Polars computes it: `of` once for each distinct table id."""

        def shards(ids: pl.Series) -> pl.Series:
            named = {table: self.of(table) for table in ids.unique().drop_nulls()}
            return ids.replace_strict(named, default=None, return_dtype=pl.String)

        return pl.col(table_ids).map_batches(shards, return_dtype=pl.String)
