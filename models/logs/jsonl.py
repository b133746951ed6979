"""Reading JSON Lines round logs: each line decoded and parsed on its own, every value as the text
the checks read, and a line that cannot be a row kept as `_unparsed` with why."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from models.logs import streams
from models.logs.columns import UNPARSED, without_reserved


def batches(path: Path, compression: str | None, batch_rows: int) -> Iterator[pl.DataFrame]:
    """The file's rows, `batch_rows` lines at a time, each numbered by its physical line in `_line`."""
    with streams.open_log(path, compression) as stream:
        lines: list[bytes] = []
        first_line = 1
        for chunk in streams.line_chunks(stream):
            lines += chunk.splitlines()
            while len(lines) >= batch_rows:
                yield _frame(lines[:batch_rows], first_line)
                del lines[:batch_rows]
                first_line += batch_rows
        if lines:
            yield _frame(lines, first_line)


class _Number(float):
    """A JSON number with a fraction or an exponent, keeping the text the log wrote it in."""

    __slots__ = ("text",)


def _number(text: str) -> _Number:
    number = _Number(text)
    number.text = text
    return number


#: One decoder for every line (`json.loads` with a hook would build one a line: docs/benchmarks-history.md).
_DECODER = json.JSONDecoder(parse_float=_number)


class Refused(str):
    """Why a line is no row, and the quarantine reason it is given (`bad_type` unless told)."""

    reason = "bad_type"


class _KeyTwice(Refused):
    reason = "duplicate_key"


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _Twice(twice)
    return record


class _Twice(Exception):
    pass


#: The same decoder keeping every key's pairs, for the few lines that may name a key twice.
_PAIRS_DECODER = json.JSONDecoder(parse_float=_number, object_pairs_hook=_pairs)


def _key_twice(line: bytes, record: dict) -> str | None:
    """The first key the line gives twice (None for none), without parsing it again where it plainly
    has none: when no quote is followed by whitespace, each key ends in `":`, so as many `":` as keys
    read means each key once (more: a key again, a nested object or `":` inside a string: parsed again)."""
    if line.count(b'":') == len(record) and b'" ' not in line and b'"\t' not in line and b'"\r' not in line:
        return None
    try:
        _PAIRS_DECODER.decode(line.decode("utf-8"))
    except _Twice as twice:
        return str(twice)
    return None


def _as_text(value) -> str | None:
    """A JSON value as the checks read every field: as text, spelled as the log wrote it (`1e3`,
    `true`, a number its digits, never through a float), a list or object as its JSON text
    (`["AS", "KH"]`), so a detail or the raw row quotes what the log said."""
    if value is None or isinstance(value, str):
        return value
    return value.text if type(value) is _Number else json.dumps(value)


def parsed(line: bytes) -> dict[str, str | None] | Refused:
    """A JSON line as a row of text, or why it cannot be one. Each line is decoded on its own, so a
    line that is not UTF-8 is one bad row, not a failed file; a key given twice (which `json` would
    settle silently, the last value winning) makes the line a `duplicate_key`."""
    try:
        record = _DECODER.decode(line.decode("utf-8"))
        if not isinstance(record, dict):
            return Refused("not a JSON object")
        twice = _key_twice(line, record)
        if twice is not None:
            return _KeyTwice(f"a key is given twice: {json.dumps(twice[:64])}")
        # text and nulls as they are, without a call each (most values of a log are text)
        return {key: v if v is None or type(v) is str else _as_text(v) for key, v in record.items()}
    except UnicodeDecodeError:
        return Refused("not UTF-8")
    except RecursionError:
        return Refused("nested too deeply to read")
    except json.JSONDecodeError:
        return Refused("not a JSON object")
    except ValueError:  # an integer past Python's limit of digits
        return Refused("a number too long to read")


def _frame(lines: list[bytes], first_line: int) -> pl.DataFrame:
    """Parse JSON lines; a line that is not a JSON object keeps its text in `_unparsed`."""
    records, numbers, unparsed = [], [], []
    for offset, line in enumerate(lines):
        if not line.strip():
            continue
        record = parsed(line)
        if isinstance(record, str):
            text = line.decode("utf-8", "backslashreplace")
            why = {"_unparsed_detail": str(record), "_unparsed_reason": record.reason}
            unparsed.append({"_line": first_line + offset, "_unparsed": text} | why)
            continue
        records.append(record)
        numbers.append(first_line + offset)
    frames = []
    if records:
        frame = without_reserved(pl.DataFrame(records, infer_schema_length=None))
        frames.append(frame.with_columns(_line=pl.Series(numbers, dtype=pl.Int64)))
    if unparsed:
        frames.append(pl.DataFrame(unparsed, schema={"_line": pl.Int64} | dict.fromkeys(UNPARSED, pl.String)))
    if not frames:
        return pl.DataFrame(schema={"_line": pl.Int64})
    return pl.concat(frames, how="diagonal_relaxed")


def opening(path: Path, compression: str | None) -> tuple[int, bytes, dict[str, str | None] | str] | None:
    """A JSON Lines file's first line that is not blank: its number, its bytes, and its record or why
    it is none."""
    with streams.open_log(path, compression) as stream:
        for number, line in enumerate(streams.lines(stream), start=1):
            if line.strip():
                return number, line, parsed(line)
    return None


def is_a_document(path: Path, compression: str | None) -> bool:
    """Whether the file is one JSON document (an array, or an object spread over lines, as a pretty
    printer writes it) rather than JSON Lines: its first line is `[...`, or `{` alone."""
    first = opening(path, compression)
    if first is None or isinstance(first[2], dict):
        return False
    text = first[1].strip()
    return text.startswith(b"[") or text == b"{"


def first_record(path: Path, compression: str | None) -> dict:
    """A JSON Lines file's first record: the first line that is not blank, when it is an object."""
    first = opening(path, compression)
    return first[2] if first and isinstance(first[2], dict) else {}


def names_bet(path: Path, compression: str | None) -> bool:
    """Whether any record of a JSON Lines file has a `bet` key."""
    return names(path, compression, "bet")


def names(path: Path, compression: str | None, key: str) -> bool:
    """Whether any record of a JSON Lines file has `key`: a writer may leave a missing value's key
    out, so the first record alone does not tell. A block without `"key"` is passed over unparsed."""
    quoted = f'"{key}"'.encode()
    with streams.open_log(path, compression) as stream:
        for chunk in streams.line_chunks(stream):
            if quoted not in chunk:
                continue
            for line in chunk.splitlines():
                record = parsed(line) if quoted in line else None
                if isinstance(record, dict) and key in record:
                    return True
    return False
