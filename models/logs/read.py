"""Reading round-log files in bounded batches: CSV, JSON Lines (plain, gzip, zstd) and Parquet.

A file's kind (rounds, bets or table events) is told by its parsed columns. Every batch carries `_line`, the row's
line in the file (CSV counts its header as line 1; Parquet counts rows from 1). Input columns whose
names begin with `_` are dropped as read: that prefix is the pipeline's own (`_line`, `_unparsed`, the
checks' working columns). A file that cannot be read (not a regular file, not permitted, not the
format it claims, a compressed stream cut short, a header that is not UTF-8) raises `UnreadableFile`;
a line that cannot be made a row (not UTF-8, not a JSON object, too many fields) becomes one with
`_unparsed` set, to be quarantined.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from models.contract import BET_INPUT_COLUMNS, EVENT_INPUT_COLUMNS, ROUND_INPUT_COLUMNS
from models.logs import jsonl, parquet, streams
from models.logs.columns import RESERVED, without_reserved

BATCH_ROWS = 250_000
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".parquet": "parquet"}
COMPRESSIONS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}
#: Polars' errors on a CSV line the csv module reads on its own: more fields than the header, bytes
#: that are not UTF-8 (or a lone `\r` past the first block, which joins two lines into one).
ROW_BY_ROW = ("more fields than defined", "invalid utf-8")
READ_ERRORS = (OSError, EOFError, UnicodeError, pa.ArrowException, pl.exceptions.PolarsError, zstandard.ZstdError,
               csv.Error)  # fmt: skip


#: Every column the contract reads, of any kind of file: one named twice in a CSV header fails it.
CONTRACT_COLUMNS = frozenset((*ROUND_INPUT_COLUMNS, *BET_INPUT_COLUMNS, *EVENT_INPUT_COLUMNS))
#: Control characters as escapes: a file's name in a message cannot break its line.
CONTROLS = {code: f"\\x{code:02x}" for code in [*range(32), 127]}


def printable(text: str) -> str:
    """`text` with its control characters escaped (`\\n` as `\\x0a`)."""
    return text.translate(CONTROLS)


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
            f"not a round log by its name: {printable(path.name)} (csv, jsonl or parquet, csv/jsonl may be .gz or .zst)"
        )
    return fmt, compression


def looks_like_round_log(path: Path) -> bool:
    """A file a folder ingest takes: named as a log, even with a compression it cannot read (so
    that file is reported as failed rather than passed over); READMEs and the like are passed over."""
    return any(suffix.lower() in SUFFIXES for suffix in path.suffixes)


def reason(error: BaseException) -> str:
    """An error in a line of words: an OS error's own words without its number and path."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def unreadable(path: Path, error: BaseException) -> UnreadableFile:
    """`error`, met reading `path`, as the one line a failed file is logged with."""
    try:
        fmt, compression = describe(path)
        read_as = f" as {fmt}{f' ({compression})' if compression else ''}"
    except UnreadableFile:
        read_as = ""
    return UnreadableFile(f"cannot read {printable(path.name)}{read_as}: {reason(error)}")


@contextlib.contextmanager
def _plain_csv(path: Path, compression: str | None) -> Iterator[Path]:
    """The file Polars reads: the log itself when it is plain and its first block ends lines with
    `\\n` or `\\r\\n` (the usual case: nothing copied), otherwise a temporary copy, unpacked and with
    every line ending made `\\n` (Polars ends lines at `\\n` only, so a file of lone `\\r` would read
    as its header alone). One reader then streams every CSV in bounded batches."""
    with streams.open_log(path, compression) as stream:
        first = stream.read(streams.BLOCK)
        lone = streams.lone_carriage_returns(first)
        if compression is not None or lone:
            with tempfile.NamedTemporaryFile(suffix=".csv") as plain:
                content = itertools.chain([first], streams.blocks(stream))
                for block in streams.with_newlines(content) if lone else content:
                    plain.write(block)
                plain.flush()
                yield Path(plain.name)
            return
    yield path


def _csv_batches(path: Path, compression: str | None) -> Iterator[pl.DataFrame]:
    """Every column as text (an empty field is a null, as docs/round-log-format.md has it)."""
    with _plain_csv(path, compression) as source:
        line = 2
        try:
            batches = pl.scan_csv(source, infer_schema=False).collect_batches(
                chunk_size=BATCH_ROWS, maintain_order=True
            )
            for frame in batches:
                frame = without_reserved(frame)
                yield frame.with_columns(_line=pl.int_range(line, line + frame.height, dtype=pl.Int64))
                line += frame.height
        except pl.exceptions.ComputeError as error:
            if not any(text in str(error) for text in ROW_BY_ROW):
                raise
            # The rest is read row by row, from the first row not yet given: a line Polars could
            # not take becomes a row of its own to quarantine.
            yield from _csv_rows_from(source, first_line=line)


def _csv_rows_from(path: Path, first_line: int) -> Iterator[pl.DataFrame]:
    """The rows of a CSV file from line `first_line` on, as Polars reads them (text, an empty field a
    null, a short line padded with nulls), but a line with more fields than the header, or with
    bytes that are not UTF-8, becomes `_unparsed` (its fields written back as CSV, such bytes as
    `\\xff`) with why in `_unparsed_detail`. Any line ending ends a line."""
    with streams.open_regular(path) as raw:
        reader = csv.reader(io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline=""))
        header = _header_names(next(reader, [""]))
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


def _header_names(header: list[str]) -> list[str]:
    """A CSV header's names as Polars gives them (no byte-order mark, a repeated name suffixed),
    reserved names and all; raises UnicodeError for a header that is not UTF-8."""
    if not _utf8("".join(header)):
        raise UnicodeError("the header is not UTF-8")
    names, seen = [], Counter()
    for name in [header[0].removeprefix("\ufeff"), *header[1:]]:
        if seen[name] and name in CONTRACT_COLUMNS:  # which of the two is the row's? No guess
            raise csv.Error(f"its header names {printable(name)!r} twice")
        names.append(name if not seen[name] else f"{name}_duplicated_{seen[name] - 1}")
        seen[name] += 1
    return names


def _as_csv(fields: list[str]) -> str:
    written = io.StringIO()
    csv.writer(written, lineterminator="").writerow(fields)
    return written.getvalue()


def _utf8(text: str) -> bool:
    """Whether `text`, decoded with its bad bytes escaped, was UTF-8 throughout."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(text: str) -> str:
    """Text decoded with its bad bytes escaped, those bytes shown as `\\xff`."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _csv_rows(rows: list[list], header: list[str], columns: dict, first_line: int) -> pl.DataFrame:
    """A batch of CSV rows read by the csv module, typed and marked as `_csv_rows_from` says."""
    width = len(header)
    text, detail = [], []
    for number, fields in enumerate(rows):
        if not _utf8("".join(fields)):
            rows[number] = fields = [_shown(field) for field in fields]
            text.append(_as_csv(fields))
            detail.append("not UTF-8")
        elif len(fields) > width:
            text.append(_as_csv(fields))
            detail.append(f"{len(fields)} fields where the header has {width}")
        else:
            text.append(None)
            detail.append(None)
    fitting = [[field or None for field in fields] + [None] * (width - len(fields)) for fields in rows]
    frame = pl.DataFrame([fields[:width] for fields in fitting], schema=columns, orient="row")
    return without_reserved(frame).with_columns(
        _line=pl.int_range(first_line, first_line + len(rows), dtype=pl.Int64),
        _unparsed=pl.Series(text, dtype=pl.String),
        _unparsed_detail=pl.Series(detail, dtype=pl.String),
    )


def _parquet_batches(path: Path) -> Iterator[pl.DataFrame]:
    streams.check_regular(path)
    yield from parquet.batches(path, BATCH_ROWS)


def read_batches(path: Path) -> Iterator[pl.DataFrame]:
    """The file's rows in batches; raises UnreadableFile with a one-line reason."""
    fmt, compression = describe(path)
    try:
        if fmt == "parquet":
            yield from _parquet_batches(path)
        elif fmt == "csv":
            yield from _csv_batches(path, compression)
        else:
            yield from jsonl.batches(path, compression, BATCH_ROWS)
    except UnreadableFile:
        raise
    except READ_ERRORS as error:
        raise unreadable(path, error) from None


def _csv_header(path: Path, compression: str | None) -> list[str]:
    """The names of a CSV file's header, parsed as CSV (a quoted `"x,bet"` is one name)."""
    with streams.open_log(path, compression) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="")
        return _header_names(next(csv.reader(text), [""]))


def columns_of(path: Path) -> list[str]:
    """The file's column names without reading its rows (a JSON Lines file's: its first record's),
    reserved names left out."""
    fmt, compression = describe(path)
    try:
        if fmt == "parquet":
            streams.check_regular(path)
            names = pq.read_schema(path).names
        elif fmt == "csv":
            names = _csv_header(path, compression)
        else:
            names = list(jsonl.first_record(path, compression))
    except READ_ERRORS as error:
        raise unreadable(path, error) from None
    return [name for name in names if not name.startswith(RESERVED)]


#: The column that tells a file's kind, in the order they are looked for; a file with none is rounds.
KIND_COLUMNS = (("bet", "bets"), ("event", "events"))


def kind_of(path: Path) -> str:
    """`bets` when the file has a `bet` column, else `events` when it has an `event` column (for
    JSON Lines: any record has the key), otherwise `rounds`. Raises UnreadableFile first for what is
    no regular file, then for a name that is no round log's."""
    try:
        streams.check_regular(path)
    except OSError as error:
        raise unreadable(path, error) from None
    fmt, compression = describe(path)
    if fmt != "jsonl":
        columns = columns_of(path)
        return next((kind for column, kind in KIND_COLUMNS if column in columns), "rounds")
    try:
        if jsonl.is_a_document(path, compression):  # no line of it is a row: the file fails, not each line
            raise UnreadableFile(
                f"cannot read {printable(path.name)} as jsonl: it is one JSON document, not JSON Lines "
                "(one object a line)"
            )
        return next((kind for column, kind in KIND_COLUMNS if jsonl.names(path, compression, column)), "rounds")
    except READ_ERRORS as error:
        raise unreadable(path, error) from None
