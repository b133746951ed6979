"""Reading a Parquet round log in bounded batches, each row numbered from 1 in `_line`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl


def _nested_as_json(frame: pl.DataFrame) -> pl.DataFrame:
    """Lists and structs as their JSON text, as a JSON Lines log's are read: no check takes them,
    so their rows are quarantined, quoting what the file held."""
    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested()]
    # `{"name":value}` as Polars encodes a one-field struct, less the key and the braces
    encoded = {name: pl.struct(name).struct.json_encode() for name in nested}
    return frame.with_columns(
        pl.when(pl.col(name).is_not_null())
        .then(encoded[name].str.slice(len(json.dumps(name, ensure_ascii=False)) + 2).str.strip_suffix("}"))
        .alias(name)
        for name in nested
    )


def batches(path: Path, batch_rows: int) -> Iterator[pl.DataFrame]:
    """The file's rows, `batch_rows` at a time."""
    line = 1
    for frame in pl.scan_parquet(path).collect_batches(chunk_size=batch_rows, maintain_order=True):
        frame = _nested_as_json(frame) if any(dtype.is_nested() for dtype in frame.dtypes) else frame
        yield frame.with_columns(_line=pl.int_range(line, line + frame.height, dtype=pl.Int64))
        line += frame.height
