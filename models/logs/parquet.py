"""Reading a Parquet round log in bounded batches, each row numbered from 1 in `_line` (the file's own
columns named with the reserved prefix `_` dropped).

Columns of any type come out as the checks read them: numbers, times and text as they are, lists and
structs as their JSON text, bytes as UTF-8 text, durations as ISO 8601 text (`P1D`), dates as dates.
Bytes that are not UTF-8 are written with escapes (`\\xff`) and their columns named in `NOT_UTF8`,
so that their row is quarantined and its neighbours go in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from models.logs.columns import without_reserved

#: Per row, the columns whose bytes are not UTF-8 text (a list; null where there are none). Only a
#: batch with such bytes has the column.
NOT_UTF8 = "_not_utf8"


def _holds_bytes(dtype: pl.DataType) -> bool:
    """The type is bytes or nests them (Polars cannot write those as JSON)."""
    if dtype == pl.Binary:
        return True
    parts = [getattr(dtype, part, None) for part in ("inner", "key", "value")]
    parts += [field.dtype for field in getattr(dtype, "fields", None) or ()]
    return any(part is not None and _holds_bytes(part) for part in parts)


def _as_json(value) -> str:
    """A nested value as JSON, written the way Polars writes it, bytes as UTF-8 with escapes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_jsonable)


def _jsonable(value) -> str:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else str(value)


def _nested_as_json(frame: pl.DataFrame) -> pl.DataFrame:
    """Lists and structs as their JSON text, as a JSON Lines log's are read: no check takes them,
    so their rows are quarantined, quoting what the file held."""
    nested = [name for name, dtype in frame.schema.items() if dtype.is_nested() and not _holds_bytes(dtype)]
    # `{"name":value}` as Polars encodes a one-field struct, less the key and the braces
    encoded = {name: pl.struct(name).struct.json_encode() for name in nested}
    with_bytes = [name for name, dtype in frame.schema.items() if dtype.is_nested() and _holds_bytes(dtype)]
    return frame.with_columns(
        *(
            pl.when(pl.col(name).is_not_null())
            .then(encoded[name].str.slice(len(json.dumps(name, ensure_ascii=False)) + 2).str.strip_suffix("}"))
            .alias(name)
            for name in nested
        ),
        *(
            pl.Series(name, [None if v is None else _as_json(v) for v in frame[name].to_list()], pl.String)
            for name in with_bytes
        ),
    )


def _utf8(column: pl.Series) -> tuple[pl.Series, pl.Series | None]:
    """Bytes as text, and which rows' bytes were not UTF-8 (None when every row's were): those are
    written with escapes (`\\xff`), as Python writes them."""
    try:
        return column.cast(pl.String), None
    except pl.exceptions.PolarsError:  # some value is not UTF-8: told apart value by value
        text, bad = [], []
        for value in column.to_list():
            try:
                text.append(None if value is None else value.decode("utf-8"))
                bad.append(False)
            except UnicodeDecodeError:
                text.append(value.decode("utf-8", "backslashreplace"))
                bad.append(True)
        return pl.Series(column.name, text, pl.String), pl.Series(bad, dtype=pl.Boolean)


def _bytes_as_text(frame: pl.DataFrame) -> pl.DataFrame:
    """Bytes columns as text; where a row's bytes are not UTF-8, `NOT_UTF8` names the columns."""
    marks = []
    for name in [name for name, dtype in frame.schema.items() if dtype == pl.Binary]:
        text, bad = _utf8(frame[name])
        frame = frame.with_columns(text)
        if bad is not None:
            marks.append(pl.when(pl.lit(bad)).then(pl.lit(name)))
    if not marks:
        return frame
    named = pl.concat_list(marks).list.drop_nulls()
    return frame.with_columns(pl.when(named.list.len() > 0).then(named).alias(NOT_UTF8))


def _readable(frame: pl.DataFrame, dates: list[str]) -> pl.DataFrame:
    """The batch with every column of a type the checks read (see the module's docstring)."""
    dtypes = frame.schema
    if any(dtype.is_nested() for dtype in dtypes.values()):
        frame = _nested_as_json(frame)
    if any(dtype == pl.Binary for dtype in dtypes.values()):
        frame = _bytes_as_text(frame)
    durations = [name for name, dtype in dtypes.items() if isinstance(dtype, pl.Duration)]
    dates = [name for name in dates if dtypes.get(name, pl.Date) != pl.Date]
    if not durations and not dates:
        return frame
    return frame.with_columns(
        *(pl.col(name).dt.to_string("iso") for name in durations),  # Polars has no cast of these to text
        *(pl.col(name).cast(pl.Date) for name in dates),
    )


def batches(path: Path, batch_rows: int) -> Iterator[pl.DataFrame]:
    """The file's rows, `batch_rows` at a time."""
    # A date column is a date, though Polars reads one written from Arrow's date64 as timestamps
    dates = [field.name for field in pq.read_schema(path) if pa.types.is_date(field.type)]
    line = 1
    for frame in pl.scan_parquet(path).collect_batches(chunk_size=batch_rows, maintain_order=True):
        frame = without_reserved(frame)  # the file's own `_line`, `_not_utf8`, ... are not ours
        yield _readable(frame, dates).with_columns(_line=pl.int_range(line, line + frame.height, dtype=pl.Int64))
        line += frame.height
