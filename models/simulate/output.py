"""Writing round logs as files: Parquet (default), CSV or JSON Lines, one pair of files per chunk."""

from __future__ import annotations

from pathlib import Path

import polars as pl

FORMATS = ("parquet", "csv", "jsonl")


def _timestamps_as_text(frame: pl.DataFrame) -> pl.DataFrame:
    """ISO 8601 with the offset, as text formats carry it (2026-11-01T06:09:04.843+01:00)."""
    return frame.with_columns(
        pl.col(pl.Datetime).dt.to_string("%Y-%m-%dT%H:%M:%S%.3f%:z"),
        pl.col(pl.Decimal).cast(pl.String),
    )


def write_frame(frame: pl.DataFrame, path: Path, fmt: str) -> Path:
    """Write one frame; text formats keep decimals exact and timestamps with their offset."""
    path = path.with_suffix(f".{fmt}")
    tmp = path.with_name(f".{path.name}.partial")
    if fmt == "parquet":
        frame.write_parquet(tmp, compression="zstd", compression_level=1, statistics=False)
    elif fmt == "csv":
        _timestamps_as_text(frame).write_csv(tmp)
    elif fmt == "jsonl":
        _timestamps_as_text(frame).write_ndjson(tmp)
    else:
        raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    tmp.replace(path)  # a watcher never sees a half-written file
    return path
