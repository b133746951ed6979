"""Ingest round-log files into the warehouse: every row accepted, quarantined or counted a duplicate.

A row's path (docs/warehouse.md): the read-ahead (readahead.py) reads, hashes and checks each
file's batches on a thread of its own; each batch goes through its kind's step (steps.py) into
staged data files; at the file's end its tables are committed one by one and then its log row,
whose commit is the warehouse's (iceberg.py). A crash before that leaves nothing a reader sees,
and the next writer rolls the tables back; running again completes it. A file already ingested
(same sha256) is skipped. Rounds files go before bets files, and table-events files last.
"""

from __future__ import annotations

import datetime as dt
import os
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from models import collector
from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.logs.read import UnreadableFile, kind_of, looks_like_round_log, printable, reason, unreadable
from models.progress import Progress, quiet
from models.settings import Settings
from models.warehouse import files, iceberg, schema, shoes
from models.warehouse.columns import frame_schema
from models.warehouse.readahead import FILE_ERRORS, Batch, Broken, Opened, digest_or_empty, landed, read_ahead, sha256
from models.warehouse.shards import Sharding
from models.warehouse.staging import EVENT_GROUP, SHOE, Stage, StoredShoes
from models.warehouse.steps import FileContext, bets_step, events_step, rounds_step
from models.warehouse.store import Writer, shard_writer, writer

__all__ = ["FileResult", "Summary", "expand", "found", "ingest", "last_ingested", "sha256"]
STEPS = {"rounds": rounds_step, "bets": bets_step, "events": events_step}
#: The order a run takes its files in: a bet names its round; events need neither.
KINDS = tuple(STEPS)
#: The stages progress is told of.
INGESTING, MAINTAINING = "ingesting files", "maintaining the tables and publishing"


@dataclass
class FileResult:
    """What became of one file's rows."""

    path: Path
    kind: str | None = None
    rows_read: int = 0
    accepted: int = 0
    duplicates: int = 0
    quarantined: Counter = field(default_factory=Counter)
    status: str = "ok"  # ok, failed, skipped (already ingested)
    error: str | None = None
    digest: str = ""  # the file's sha256, empty when its bytes could not be read
    started: dt.datetime | None = None
    commit_seconds: float = 0.0  # spent committing its tables and its log row


@dataclass(frozen=True)
class Summary:
    """What one ingest run did, over all its files: what `banco ingest`, the Dagster asset and
    `banco up` report."""

    files: int
    new: int
    skipped: int
    failed: list[FileResult]
    rows_read: int
    accepted: int
    duplicates: int
    quarantined: Counter

    @classmethod
    def of(cls, results: list[FileResult]) -> Summary:
        return cls(
            files=len(results),
            new=sum(r.status == "ok" for r in results),
            skipped=sum(r.status == "skipped" for r in results),
            failed=[r for r in results if r.status == "failed"],
            rows_read=sum(r.rows_read for r in results),
            accepted=sum(r.accepted for r in results),
            duplicates=sum(r.duplicates for r in results),
            quarantined=sum((r.quarantined for r in results), Counter()),
        )

    def headline(self) -> str:
        return (
            f"{self.files} files ({self.skipped} already ingested, {len(self.failed)} failed): "
            f"{self.rows_read:,} rows read, {self.accepted:,} accepted, "
            f"{sum(self.quarantined.values()):,} quarantined, {self.duplicates:,} duplicates"
        )

    def lines(self) -> list[str]:
        """The headline, then the count of each reason and each failed file, a line each."""
        reasons = [f"  quarantined {reason}: {count:,}" for reason, count in sorted(self.quarantined.items())]
        return [self.headline(), *reasons, *(f"  failed {printable(str(r.path))}: {r.error}" for r in self.failed)]


def found(paths: list[Path]) -> list[Path]:
    """Each path named that is no folder (whatever it is, there or not), and the round logs inside
    each folder named, in a stable order: every entry named like a log, whatever it is (a file, a
    FIFO, a folder, a link to nothing), and every folder that could not be listed, each to be logged
    once. A folder's search passes over names that start with `.` or `_` (such as the simulator's
    fault labels) and a warehouse's own table folder, and does not follow links to folders."""
    entries = []
    for path in paths:
        entries += _search(path) if os.path.isdir(path) else [path]  # False where it cannot be looked at
    return list(dict.fromkeys(entries))


def _search(folder: Path) -> list[Path]:
    entries: list[Path] = []
    for top, folders, names in os.walk(folder, onerror=lambda error: entries.append(Path(error.filename))):
        here = Path(top)
        folders[:] = [name for name in folders if _searched(name) and not _is_tables(here / name)]
        named = (here / name for name in (*folders, *names) if _searched(name))
        entries.extend(path for path in named if looks_like_round_log(path))
    return sorted(entries)


def _searched(name: str) -> bool:
    return name[0] not in "._"


def _is_tables(folder: Path) -> bool:
    """Whether the folder holds a warehouse's tables; one that cannot be looked into is searched
    (and so logged as a folder that cannot be listed)."""
    try:
        return iceberg.is_table_folder(folder)
    except OSError:
        return False


def expand(paths: list[Path]) -> list[Path]:
    """The regular files among what `found` finds (what the landing sensor watches)."""
    return [path for path in found(paths) if os.path.isfile(path)]


def _failure(path: Path, error: BaseException) -> str:
    """A failed file's error in one line of words."""
    if isinstance(error, UnreadableFile):
        return str(error)  # one line already
    if isinstance(error, OSError):  # met outside the reader: hashing a file gone, or not permitted
        return str(unreadable(path, error))
    return f"cannot ingest {printable(path.name)}: {reason(error)}"


def ingest(
    db: Path,
    paths: list[Path],
    table: PayTable = DEFAULT_PAYTABLE,
    shard: str | None = None,
    progress: Progress = quiet,
) -> list[FileResult]:
    """Ingest files and folders (rounds, then bets, then table events) as the serving writer, which then maintains the
    tables and publishes the serving snapshot; or, given the `shard` the files' tables belong to, as
    one of several writers on any machine, which only commits. Either holds the ingest lock of the
    shards it writes (the serving writer: every shard of BANCO_SHARDS). `progress` is told the files
    and rows read as they go."""
    with collector.paused():
        return _ingest(db, paths, table, shard, progress)


def _ingest(db: Path, paths: list[Path], table: PayTable, shard: str | None, progress: Progress) -> list[FileResult]:
    kinds, results = {}, []
    for path in found(paths):
        try:
            kinds[path] = kind_of(path)
        except FILE_ERRORS as error:
            results.append(FileResult(path, status="failed", error=_failure(path, error), digest=digest_or_empty(path)))
    ordered = sorted(kinds, key=lambda p: KINDS.index(kinds[p]))  # stable: found's order within a kind
    serving = shard is None
    with (writer if serving else shard_writer)(db) as w, w.tables.ingesting(_shards(shard)):
        w.look()  # as the last writer of these shards left it
        run = Run(w, table, progress=progress)
        run.log(results)
        run.done = set(run.ingested())
        results += run.files(read_ahead(landed(((path, kinds[path]) for path in ordered), run.done)), len(ordered))
        if serving:
            progress(MAINTAINING, 0)
            w.maintain()
    return results


def _shards(shard: str | None) -> list[str]:
    return Sharding(Settings.from_env().shards).names if shard is None else [shard]


@dataclass
class Run:
    """One ingest run's writer, its pay table, and the shoes each core table already holds."""

    writer: Writer
    paytable: PayTable
    done: set[str] = field(default_factory=set)  # sha256 of every file ingested
    progress: Progress = quiet

    def __post_init__(self):
        con, io = self.writer.con, self.writer.tables.io
        self.stored = {
            kind: StoredShoes.load(con, table, io, EVENT_GROUP if kind == "events" else SHOE)
            for kind, table in KIND_TABLES.items()
        }

    def ingested(self) -> list[str]:
        query = f"SELECT sha256 FROM {schema.INGEST_LOG} WHERE status = 'ok'"
        return [row[0] for row in self.writer.con.sql(query).fetchall()]

    def files(self, stream: Iterator[Opened | Batch | Broken], total: int = 0) -> list[FileResult]:
        """Each file of the stream (of `total` files) ingested whole, or failed, or skipped."""
        results, current, rows = [], None, 0
        self.progress(INGESTING, 0, total)
        for item in stream:
            if isinstance(item, Opened):
                if current is not None:
                    results.append(current.finish())
                self.progress(INGESTING, len(results), total, f"{rows:,} rows read")
                current = OneFile(self, item)
            elif not current.failed:
                current.take(item)
                rows += item.rows.height if isinstance(item, Batch) else 0
                self.progress(INGESTING, len(results), total, f"{rows:,} rows read")
        if current is not None:
            results.append(current.finish())
        self.progress(INGESTING, len(results), total, f"{rows:,} rows read")
        return results

    def log(self, results: list[FileResult], by: str = "") -> None:
        """Commit log rows of files that failed or went in: the warehouse's commit."""
        if not results:
            return
        by = by or _ingest_id("log")
        now = dt.datetime.now(dt.UTC)
        rows = pl.DataFrame(
            [
                {
                    "path": str(r.path), "sha256": r.digest, "kind": r.kind,
                    "rows_read": r.rows_read, "rows_accepted": r.accepted,
                    "rows_quarantined": sum(r.quarantined.values()), "rows_duplicate": r.duplicates,
                    "status": r.status, "error": r.error, "started_at": r.started or now, "finished_at": now,
                }
                for r in results
            ],
            schema=frame_schema(schema.INGEST_LOG),
        )  # fmt: skip
        tables = self.writer.tables
        written = files.write(tables.io, tables.location(schema.INGEST_LOG, by), schema.INGEST_LOG, rows)
        self.writer.commit(by, [written])


KIND_TABLES = {"rounds": schema.CORE_ROUNDS, "bets": schema.CORE_BETS, "events": schema.CORE_TABLE_EVENTS}


def _ingest_id(kind: str) -> str:
    return f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S}-{kind}-{uuid.uuid4().hex[:8]}"


class OneFile:
    """One file being ingested: its context, batches taken one by one, then committed or failed."""

    def __init__(self, run: Run, opened: Opened):
        self.run, self.opened, self.failed = run, opened, opened.error is not None or opened.skipped
        self.error = opened.error
        self.started = dt.datetime.now(dt.UTC)
        self.committing: float | None = None
        if opened.skipped or opened.digest in run.done:
            self.ctx = None
            return
        self.by = _ingest_id(opened.kind)
        stored = run.stored[opened.kind]
        self.ctx = FileContext(
            run.writer.con, str(opened.path), self.started, run.paytable, stored, Stage(run.writer.tables, self.by)
        )
        self.failed = self.error is not None

    def take(self, item: Batch | Broken) -> None:
        if isinstance(item, Broken):
            self._fail(item.error)
            return
        try:
            STEPS[self.opened.kind](self.ctx, item)
        except FILE_ERRORS as error:
            self._fail(error)

    def _fail(self, error: BaseException) -> None:
        self.failed, self.error = True, error

    def finish(self) -> FileResult:
        """Commit the file's tables, then its log row; or log it failed; or report it skipped."""
        opened = self.opened
        if self.ctx is None:
            return FileResult(opened.path, kind=opened.kind, status="skipped")
        if not self.failed:
            try:
                self.ctx.stage.written()  # the data files finished outside the commit lock
            except FILE_ERRORS as error:
                self._fail(error)
        with self.run.writer.tables.exclusive():
            return self._settle()

    def _settle(self) -> FileResult:
        """Under the commit lock: the file's tables and its log row, or its failure, committed."""
        opened = self.opened
        try:
            if not self.failed:
                try:
                    self._commit()
                except FILE_ERRORS as error:
                    self._fail(error)
        finally:
            self.ctx.stage.abort()
            self.ctx.stage.close()
            self.ctx.stored.settle(self.ctx.stage.rows, committed=not self.failed)
        if self.failed and self.committing is not None:  # some of its tables may be in: taken back
            self.run.writer.tables.recover()
        counts = self.ctx.counts
        if self.failed:
            result = FileResult(opened.path, kind=opened.kind, status="failed", error=_failure(opened.path, self.error))
        else:
            result = FileResult(
                opened.path, opened.kind, counts.rows_read, counts.accepted, counts.duplicates, counts.quarantined
            )
        result.digest, result.started = opened.digest, self.started
        committing = self.committing or time.perf_counter()
        self.run.log([result], self.by)
        result.commit_seconds = time.perf_counter() - committing
        if result.status == "ok":
            self.run.done.add(opened.digest)
        return result

    def _commit(self) -> None:
        """The file's tables committed one by one (core.shoes rewritten for a rounds file); the
        log's commit, which makes them the warehouse's, follows."""
        ctx = self.ctx
        replaced = frozenset()
        if self.opened.kind == "rounds":  # read before the file's rows are in: the table holds earlier rows only
            self.run.writer.look()  # other shards' writers may have committed shoes since
            whole = shoes.refreshed(ctx.con, ctx.shoe_parts, ctx.overdrawn, ctx.stored.in_table)
            if whole is not None:
                ctx.stage.write(schema.CORE_SHOES, whole)
                replaced = frozenset({schema.CORE_SHOES})
        ctx.stage.written()
        self.committing = time.perf_counter()  # the Iceberg commits' own cost starts here
        ctx.stage.commit(replaced)


def last_ingested(con) -> dict[str, dt.datetime]:
    """When each path's latest successful ingest finished."""
    rows = con.sql(f"SELECT path, max(finished_at) FROM {schema.INGEST_LOG} WHERE status = 'ok' GROUP BY path")
    return dict(rows.fetchall())
