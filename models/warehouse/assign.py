"""Landing files sorted by shard: the tables a file holds, read cheaply, decide which shard's worker ingests it.

A file goes to a shard when every table in it belongs to that shard. A file whose tables span shards, that
holds no table id, or that cannot be read goes under None: the run's last step ingests it alone. Table ids
are read as the ingest reads them (the same readers, trimmed, empty as none), so a file goes to the shard
its rows are stored in; rows without a table id belong to no shard and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from models.logs import streams
from models.logs.read import READ_ERRORS, UnreadableFile, columns_of, describe, read_batches
from models.warehouse.shards import Sharding

TABLE_ID = "table_id"
#: Text Polars may have spelt otherwise than the log (a number 7.50 as "7.5", 1e3 as "1000.0", an integer
#: past 64 bits, a list or an object): the ingest keeps the log's spelling, so such a file is read again
#: by the ingest's own reader. A short integer or a boolean reads the same either way.
RESPELT = r"^(-?[0-9]+[.eE].*|-?[0-9]{19,}|[\[{].*)$"


def _tables(column: pl.Series) -> frozenset[str]:
    """The distinct table ids of a column, trimmed as the checks trim them (models/logs/checks.py `_text`)."""
    text = column.cast(pl.String).str.strip_chars()
    return frozenset(text.filter(text.str.len_chars() > 0).unique().to_list())


def _parquet_tables(path: Path) -> frozenset[str] | None:
    """Only the table_id column is read, by the reader the ingest uses."""
    scan = pl.scan_parquet(path)
    dtype = scan.collect_schema()[TABLE_ID]
    if not (dtype in (pl.String, pl.Binary, pl.Categorical, pl.Enum) or dtype.is_integer()):
        return None  # a type no table logs (a time, a list): the file is left to ingest alone
    return _tables(scan.select(pl.col(TABLE_ID).unique()).collect().to_series())


def _plain_csv_tables(path: Path) -> frozenset[str] | None:
    """Polars reads only table_id, as the ingest reads a plain CSV; None where the ingest reads otherwise."""
    with streams.open_regular(path) as stream:
        if streams.lone_carriage_returns(stream.read(streams.BLOCK)):
            return None  # the ingest reads a copy with its line endings made `\n`
    try:
        scan = pl.scan_csv(path, infer_schema=False).select(pl.col(TABLE_ID).unique())
        return _tables(scan.collect().to_series())
    except pl.exceptions.ComputeError:  # a line Polars cannot take: the ingest reads the rest row by row
        return None


def _plain_jsonl_tables(path: Path) -> frozenset[str] | None:
    """Polars reads only table_id; None for a file it cannot read, or whose table ids may not be strings."""
    try:
        column = pl.scan_ndjson(path, schema={TABLE_ID: pl.String}).select(pl.col(TABLE_ID).unique()).collect()
    except pl.exceptions.ComputeError:  # a line that is no JSON object, bytes that are not UTF-8, ...
        return None
    values = column.to_series().drop_nulls()
    return None if values.str.contains(RESPELT).any() else _tables(values)


def _read_tables(path: Path) -> frozenset[str] | None:
    """Every row read by the ingest's own reader (for a compressed file, or one the fast readers cannot take)."""
    found: set[str] = set()
    for batch in read_batches(path):
        if TABLE_ID in batch.columns:  # a JSON Lines batch may have no record naming it
            found |= _tables(batch[TABLE_ID])
    return frozenset(found)


def tables_of(path: Path) -> frozenset[str] | None:
    """The table ids a landing file holds, read cheaply; None when it cannot be read or has no table_id column."""
    try:
        streams.check_regular(path)
        fmt, compression = describe(path)
        if fmt != "jsonl" and TABLE_ID not in columns_of(path):  # its header or schema says so
            return None
        if fmt == "parquet":
            return _parquet_tables(path)
        fast = None if compression else (_plain_csv_tables if fmt == "csv" else _plain_jsonl_tables)(path)
        return fast if fast is not None else _read_tables(path)
    except (UnreadableFile, *READ_ERRORS):
        return None


def by_shard(paths: Sequence[Path], sharding: Sharding) -> dict[str | None, list[Path]]:
    """The files under the shard every table of theirs belongs to, in the order given; under None those
    whose tables span shards, that hold none or that cannot be read. Every shard is a key, and None."""
    grouped: dict[str | None, list[Path]] = {name: [] for name in [*sharding.names, None]}
    for path in paths:
        shards = {sharding.of(table) for table in tables_of(path) or ()}
        grouped[shards.pop() if len(shards) == 1 else None].append(path)
    return grouped
