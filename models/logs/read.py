"""Reading round-log files in bounded batches: CSV, JSON Lines (plain, gzip, zstd) and Parquet.

A file's kind (rounds or bets) is told by its columns. Every batch carries `_line`, the row's line
in the file (CSV counts its header as line 1; Parquet counts rows from 1). A file that cannot be read
(not the format it claims, truncated, not UTF-8) raises `UnreadableFile`.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from models.logs import parquet

BATCH_ROWS = 250_000
#: Beside a line the reader could not make a row of: its text, and why (the row's `bad_type` detail).
UNPARSED = ["_unparsed", "_unparsed_detail"]
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".parquet": "parquet"}
COMPRESSIONS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}


class UnreadableFile(Exception):
    """The file is not what it claims to be, or is broken; its message says why."""


def describe(path: Path) -> tuple[str, str | None]:
    """(format, compression) from the file name; raises UnreadableFile for anything else."""
    suffixes = [suffix.lower() for suffix in path.suffixes]
    compression = COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    if compression:
        suffixes = suffixes[:-1]
    fmt = SUFFIXES.get(suffixes[-1]) if suffixes else None
    if fmt is None or (fmt == "parquet" and compression):
        raise UnreadableFile(
            f"not a round log by its name: {path.name} (csv, jsonl or parquet, csv/jsonl may be .gz or .zst)"
        )
    return fmt, compression


def looks_like_round_log(path: Path) -> bool:
    """A file a folder ingest takes: named as a log, even with a compression it cannot read (so
    that file is reported as failed rather than passed over); READMEs and the like are passed over."""
    return any(suffix.lower() in SUFFIXES for suffix in path.suffixes)


def _open(path: Path, compression: str | None):
    if compression == "gzip":
        return gzip.open(path, "rb")
    if compression == "zstd":
        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    return open(path, "rb")


def _csv_batches(path: Path, compression: str | None) -> Iterator[pl.DataFrame]:
    """Every column as text (an empty field is a null, as data.md has it); a compressed file is
    unpacked to a temporary file first, so one reader streams every CSV in bounded batches."""
    with contextlib.ExitStack() as stack:
        if compression:
            plain = stack.enter_context(tempfile.NamedTemporaryFile(suffix=".csv"))
            with _open(path, compression) as packed:
                shutil.copyfileobj(packed, plain, 1 << 20)
            plain.flush()
            path = Path(plain.name)
        line = 2
        try:
            batches = pl.scan_csv(path, infer_schema=False).collect_batches(chunk_size=BATCH_ROWS, maintain_order=True)
            for frame in batches:
                yield frame.with_columns(_line=pl.int_range(line, line + frame.height, dtype=pl.Int64))
                line += frame.height
        except pl.exceptions.ComputeError as error:
            if "more fields than defined" not in str(error):
                raise
            # A line with more fields than the header: the rest is read row by row, from the
            # first row not yet given, and such lines become rows of their own to quarantine.
            yield from _ragged_csv_batches(path, first_line=line)


def _ragged_csv_batches(path: Path, first_line: int) -> Iterator[pl.DataFrame]:
    """The rows of a CSV file from line `first_line` on, as Polars reads them (text, an empty
    field a null, a short line padded with nulls), but a line with more fields than the header
    becomes `_unparsed` (its fields written back as CSV) with the count in `_unparsed_detail`."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = _named_as_polars(next(reader, [""]))
        columns = {name: pl.String for name in header}
        for _ in zip(range(first_line - 2), reader, strict=False):  # the rows already given
            pass
        rows: list[list] = []
        for fields in reader:
            rows.append(fields)
            if len(rows) == BATCH_ROWS:
                yield _csv_rows(rows, header, columns, first_line)
                first_line, rows = first_line + BATCH_ROWS, []
        if rows:
            yield _csv_rows(rows, header, columns, first_line)


def _named_as_polars(header: list[str]) -> list[str]:
    """A CSV header's names as Polars gives them: no byte-order mark, a repeated name suffixed."""
    names, seen = [], Counter()
    for name in [header[0].removeprefix("\ufeff"), *header[1:]]:
        names.append(name if not seen[name] else f"{name}_duplicated_{seen[name] - 1}")
        seen[name] += 1
    return names


def _csv_rows(rows: list[list], header: list[str], columns: dict, first_line: int) -> pl.DataFrame:
    """A batch of CSV rows read by the csv module, typed and marked as `_ragged_csv_batches` says."""
    width = len(header)
    fitting = [[field or None for field in fields] + [None] * (width - len(fields)) for fields in rows]
    frame = pl.DataFrame([fields[:width] for fields in fitting], schema=columns, orient="row")
    text, detail = [], []
    for fields in rows:
        if len(fields) > width:
            written = io.StringIO()
            csv.writer(written, lineterminator="").writerow(fields)
            text.append(written.getvalue())
            detail.append(f"{len(fields)} fields where the header has {width}")
        else:
            text.append(None)
            detail.append(None)
    return frame.with_columns(
        _line=pl.int_range(first_line, first_line + len(rows), dtype=pl.Int64),
        _unparsed=pl.Series(text, dtype=pl.String),
        _unparsed_detail=pl.Series(detail, dtype=pl.String),
    )


def _json_batches(path: Path, compression: str | None) -> Iterator[pl.DataFrame]:
    with _open(path, compression) as raw:
        stream = io.TextIOWrapper(raw, encoding="utf-8")
        lines, first_line = [], 1
        for number, text in enumerate(stream, start=1):
            lines.append(text)
            if len(lines) == BATCH_ROWS:
                yield _json_frame(lines, first_line)
                lines, first_line = [], number + 1
        if lines:
            yield _json_frame(lines, first_line)


def _as_text(value) -> str | None:
    """A JSON value as the checks read every field: as text, spelled as JSON wrote it (`true`,
    `["AS", "KH"]`), so a detail or the raw row quotes what the log said."""
    return value if value is None or isinstance(value, str) else json.dumps(value)


def _json_frame(lines: list[str], first_line: int) -> pl.DataFrame:
    """Parse JSON lines; a line that is not a JSON object keeps its text in `_unparsed`."""
    records, unparsed = [], []
    for offset, text in enumerate(lines):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
            if not isinstance(record, dict):
                raise ValueError
        except ValueError:
            unparsed.append(
                {"_line": first_line + offset, "_unparsed": text.rstrip("\n"), "_unparsed_detail": "not a JSON object"}
            )
            continue
        records.append({key: _as_text(value) for key, value in record.items()} | {"_line": first_line + offset})
    frames = [pl.DataFrame(records, infer_schema_length=None)] if records else []
    if unparsed:
        frames.append(pl.DataFrame(unparsed, schema={"_line": pl.Int64} | dict.fromkeys(UNPARSED, pl.String)))
    if not frames:
        return pl.DataFrame(schema={"_line": pl.Int64})
    return pl.concat(frames, how="diagonal_relaxed").with_columns(pl.col("_line").cast(pl.Int64))


def read_batches(path: Path) -> Iterator[pl.DataFrame]:
    """The file's rows in batches; raises UnreadableFile with a one-line reason."""
    fmt, compression = describe(path)
    try:
        if fmt == "parquet":
            yield from parquet.batches(path, BATCH_ROWS)
        elif fmt == "csv":
            yield from _csv_batches(path, compression)
        else:
            yield from _json_batches(path, compression)
    except UnreadableFile:
        raise
    except (
        OSError,
        EOFError,
        UnicodeDecodeError,
        pa.ArrowException,
        pl.exceptions.PolarsError,
        zstandard.ZstdError,
        csv.Error,
    ) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UnreadableFile(
            f"cannot read {path.name} as {fmt}{f' ({compression})' if compression else ''}: {reason}"
        ) from None


def kind_of(columns: list[str]) -> str:
    """`bets` when the file has a `bet` column, otherwise `rounds`."""
    return "bets" if "bet" in columns else "rounds"


def columns_of(path: Path) -> list[str]:
    """The file's column names without reading its rows (for ordering rounds before bets)."""
    fmt, compression = describe(path)
    try:
        if fmt == "parquet":
            return list(pq.read_schema(path).names)
        with _open(path, compression) as raw:
            first = io.BufferedReader(raw).readline() if compression else raw.readline()
        text = first.decode("utf-8-sig").strip()  # a byte-order mark is no part of the first name
        if fmt == "csv":
            return [name.strip().strip('"') for name in text.split(",")]
        record = json.loads(text) if text else {}
        return list(record) if isinstance(record, dict) else []
    except (OSError, EOFError, UnicodeDecodeError, ValueError, pa.ArrowException, zstandard.ZstdError) as error:
        raise UnreadableFile(f"cannot read {path.name} as {fmt}: {str(error).strip().splitlines()[0]}") from None
