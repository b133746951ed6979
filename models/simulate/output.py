"""Writing round logs as files: Parquet (default), CSV or JSON Lines, one pair of files per chunk."""

from __future__ import annotations

import base64
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from models.simulate.frames import as_frame

FORMATS = ("parquet", "csv", "jsonl")
#: Times and round numbers climb within a shoe: their deltas pack into a few bits.
DELTA_COLUMNS = ("started_at", "round_no")
#: Labels drawn afresh for each row: their bit-packed dictionary indices hardly compress, so
#: zstd would cost time for little (about a fifth more bytes in a bets file without it).
UNCOMPRESSED_COLUMNS = ("seat", "bet", "player_id", "bank_holder", "outcome")


def _timestamps_as_text(frame: pl.DataFrame) -> pl.DataFrame:
    """ISO 8601 with the offset, as text formats carry it (2026-11-01T06:09:04.843+01:00)."""
    return frame.with_columns(
        pl.col(pl.Datetime).dt.to_string("%Y-%m-%dT%H:%M:%S%.3f%:z"),
        pl.col(pl.Decimal).cast(pl.String),
    )


def _plain(kind: pa.DataType) -> pa.DataType:
    """The type a reader should see: text for dictionary-encoded labels, decimal128 for decimals."""
    if pa.types.is_dictionary(kind):
        return kind.value_type
    if pa.types.is_decimal(kind):
        return pa.decimal128(kind.precision, kind.scale)
    return kind


def write_parquet(table: pa.Table, path: Path) -> None:
    """Parquet straight from the Arrow table: its dictionaries become the file's dictionary pages.

    Every column but the cards, times and round numbers is dictionary-encoded: labels arrive with
    their dictionary, and amounts, payouts and small integers take few distinct values. The file's
    Arrow schema names plain text and decimal128 columns and the time zone, so readers see the
    contract's types rather than the dictionaries the writer was given.
    """
    delta = {name: "DELTA_BINARY_PACKED" for name in DELTA_COLUMNS if name in table.column_names}
    dictionary = [
        field.name
        for field in table.schema
        if field.name not in delta and (pa.types.is_dictionary(field.type) or not pa.types.is_string(field.type))
    ]
    # a column without nulls is written as required: no definition level per value
    table = pa.Table.from_arrays(
        table.columns,
        schema=pa.schema(
            [
                field.with_nullable(column.null_count > 0)
                for field, column in zip(table.schema, table.columns, strict=True)
            ]
        ),
    )
    plain = pa.schema([field.with_type(_plain(field.type)) for field in table.schema])
    with pq.ParquetWriter(
        path,
        table.schema,
        compression={name: "none" if name in UNCOMPRESSED_COLUMNS else "zstd" for name in table.column_names},
        use_dictionary=dictionary,
        column_encoding=delta,
        write_statistics=False,
        store_schema=False,
        store_decimal_as_integer=True,
    ) as writer:
        writer.write_table(table)
        writer.add_key_value_metadata({"ARROW:schema": base64.b64encode(plain.serialize().to_pybytes()).decode()})


def write_frame(frame: pl.DataFrame | pa.Table, path: Path, fmt: str) -> Path:
    """Write one frame; text formats keep decimals exact and timestamps with their offset."""
    path = path.with_suffix(f".{fmt}")
    tmp = path.with_name(f".{path.name}.partial")
    if fmt == "parquet" and isinstance(frame, pa.Table):
        write_parquet(frame, tmp)
    elif isinstance(frame, pa.Table):
        return write_frame(as_frame(frame), path, fmt)
    elif fmt == "parquet":
        frame.write_parquet(tmp, compression="zstd", compression_level=1, statistics=False)
    elif fmt == "csv":
        _timestamps_as_text(frame).write_csv(tmp)
    elif fmt == "jsonl":
        _timestamps_as_text(frame).write_ndjson(tmp)
    else:
        raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    tmp.replace(path)  # a watcher never sees a half-written file
    return path
