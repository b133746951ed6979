"""The one read-ahead of an ingest: files read, hashed and checked batch by batch on a thread of
their own, one step ahead of the writer, as one stream of `Opened` files and their `Batch`es."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, Full, Queue

import polars as pl

from models.logs import streams
from models.logs.checks import check_bets, check_events, check_rounds
from models.logs.columns import UNPARSED
from models.logs.read import read_batches

CHECKS = {"rounds": check_rounds, "bets": check_bets, "events": check_events}
#: What a file's reading may raise and leave the run going: the file fails, the next one is read
#: (a Polars panic is no Exception).
FILE_ERRORS = (Exception, pl.exceptions.PanicException)


@dataclass(frozen=True)
class Opened:
    """A file about to be read (its batches follow it in the stream), or one that is not: already
    ingested (`skipped`), or unreadable (`error`)."""

    path: Path
    kind: str
    digest: str = ""
    skipped: bool = False
    error: BaseException | None = None


@dataclass(frozen=True)
class Batch:
    """Rows of a file as read (`rows`, with `_line` and any `_` working columns) and through the
    row checks (`checked`, with `reason` and `detail`)."""

    rows: pl.DataFrame
    checked: pl.DataFrame


@dataclass(frozen=True)
class Broken:
    """A file whose reading failed part-way: none of its batches count."""

    error: BaseException


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with streams.open_regular(path) as handle:
        for block in streams.blocks(handle):
            digest.update(block)
    return digest.hexdigest()


def checked(rows: pl.DataFrame, kind: str) -> pl.DataFrame:
    """The rows through their kind's checks; a line the reader could not make a row of (a JSON line
    that is no object, a CSV line with more fields than the header) is `bad_type`."""
    result = CHECKS[kind](rows.drop(UNPARSED, strict=False))
    if "_unparsed" not in rows.columns:
        return result
    unparsed = pl.col("_unparsed").is_not_null()
    told = [name for name in UNPARSED if name in rows.columns]
    why = pl.col("_unparsed_reason").fill_null("bad_type") if "_unparsed_reason" in told else pl.lit("bad_type")
    return result.join(rows.select("_line", *told), on="_line", how="left").with_columns(
        reason=pl.when(unparsed).then(why).otherwise(pl.col("reason")),
        detail=pl.when(unparsed).then(pl.col("_unparsed_detail")).otherwise(pl.col("detail")),
    )


def landed(files: Iterable[tuple[Path, str]], done: set[str]) -> Iterator[Opened | Batch | Broken]:
    """Each file (path, kind) as `Opened`, then its batches and a `Broken` if its reading fails;
    a file whose sha256 is in `done` (read as the stream gets to it) is only opened, skipped. Its
    hash is taken on a second thread while its first batch is read and checked."""
    with ThreadPoolExecutor(1, thread_name_prefix="sha256") as hasher:
        for path, kind in files:
            hashing = hasher.submit(sha256, path)
            batches = read_batches(path)
            try:
                first = [Batch(rows, checked(rows, kind)) for rows in _first(batches)]
                digest = hashing.result()
            except FILE_ERRORS as error:
                batches.close()
                yield Opened(path, kind, digest_or_empty(path), error=error)
                continue
            if digest in done:
                batches.close()
                yield Opened(path, kind, digest, skipped=True)
                continue
            yield Opened(path, kind, digest)
            try:
                yield from first
                for rows in batches:
                    yield Batch(rows, checked(rows, kind))
            except FILE_ERRORS as error:
                yield Broken(error)
            finally:
                batches.close()


def _first(batches: Iterator[pl.DataFrame]) -> list[pl.DataFrame]:
    batch = next(batches, None)
    return [] if batch is None else [batch]


def digest_or_empty(path: Path) -> str:
    """The file's sha256 for its log row, empty when its bytes cannot be read."""
    try:
        return sha256(path)
    except OSError:
        return ""


class _Raised:
    def __init__(self, error: BaseException):
        self.error = error


_END = object()


def read_ahead(items: Iterator, depth: int = 1) -> Iterator:
    """`items`, taken on a thread of their own `depth` ahead of the caller; an error taking one is
    raised to the caller in its place. Stopping early stops the thread."""
    queue: Queue = Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                queue.put(item, timeout=0.1)
                return True
            except Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
        except BaseException as error:
            put(_Raised(error))
        finally:
            put(_END)

    thread = threading.Thread(target=produce, name="read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            try:
                item = queue.get(timeout=0.1)
            except Empty:
                continue
            if item is _END:
                return
            if isinstance(item, _Raised):
                raise item.error
            yield item
    finally:
        stop.set()
        thread.join()
