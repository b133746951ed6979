"""Ingest round-log files into the warehouse: every row accepted, quarantined or counted a duplicate.

One transaction per file: a crash mid-file leaves the warehouse as it was, and running again
completes it. A file already ingested (same sha256) is skipped. Order of checks (data.md): each row
on its own, then duplicates by natural key against rows already accepted, then each shoe in round
order. Bets come after the rounds of the same batch of files.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import itertools
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from models import collector
from models.contract import BET_INPUT_COLUMNS, NATURAL_KEY
from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.logs import streams
from models.logs.checks import check_bets, check_rounds
from models.logs.columns import RESERVED, UNPARSED
from models.logs.read import (
    UnreadableFile,
    describe,
    kind_of,
    looks_like_round_log,
    printable,
    read_batches,
    reason,
    unreadable,
)
from models.warehouse import lake, schema, settlement, shoes
from models.warehouse.duplicates import split_duplicates
from models.warehouse.reconciliation import reconcile
from models.warehouse.staging import SHOE, Stage, StoredShoes, with_shoe_key
from models.warehouse.store import write

KEY = list(NATURAL_KEY)
BET_KEY = [*KEY, "seat", "bet", "side"]
ROUND_CONTENT = [
    *KEY,
    "started_at",
    "player_cards",
    "banker_cards",
    "player2_cards",
    "game",
    "decks",
    "dealer_id",
    "bank_holder",
    "logged_outcome",
]
BET_CONTENT = [*BET_KEY, "amount", "payout", "player_id"]
#: A checked bet's own columns (its `_` working columns besides).
BET_COLUMNS = frozenset({*BET_INPUT_COLUMNS, "reason", "detail"})
CHECKS = {"rounds": check_rounds, "bets": check_bets}
#: What a file's ingest may raise and still leave the run going: one failed row in the log, and on
#: to the next file (a Polars panic is no Exception).
FILE_ERRORS = (Exception, pl.exceptions.PanicException)
#: A file's last batch of at least this many accepted rows is written as two lake files at once
#: (about 40 ms sooner done for a full batch); a smaller one is written in a few milliseconds, and
#: each file is one more footer for every query to open until the lake's files are merged.
SPLIT_ROWS = 100_000


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

    def add(self, other: FileResult) -> None:
        self.rows_read += other.rows_read
        self.accepted += other.accepted
        self.duplicates += other.duplicates
        self.quarantined.update(other.quarantined)


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
    fault labels) and a warehouse's own lake, and does not follow links to folders."""
    entries = []
    for path in paths:
        entries += _search(path) if os.path.isdir(path) else [path]  # False where it cannot be looked at
    return list(dict.fromkeys(entries))


def _search(folder: Path) -> list[Path]:
    entries: list[Path] = []
    for top, folders, files in os.walk(folder, onerror=lambda error: entries.append(Path(error.filename))):
        here = Path(top)
        folders[:] = [name for name in folders if _searched(name) and not _is_lake(here / name)]
        named = (here / name for name in (*folders, *files) if _searched(name))
        entries.extend(path for path in named if looks_like_round_log(path))
    return sorted(entries)


def _searched(name: str) -> bool:
    return name[0] not in "._"


def _is_lake(folder: Path) -> bool:
    """Whether the folder is a warehouse's lake; one that cannot be looked into is searched (and so
    logged as a folder that cannot be listed)."""
    try:
        return lake.is_lake(folder)
    except OSError:
        return False


def expand(paths: list[Path]) -> list[Path]:
    """The regular files among what `found` finds (what the landing sensor watches)."""
    return [path for path in found(paths) if os.path.isfile(path)]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with streams.open_regular(path) as handle:
        for block in streams.blocks(handle):
            digest.update(block)
    return digest.hexdigest()


def _digest(path: Path) -> str:
    """The file's sha256 for its log row, empty when its bytes cannot be read."""
    try:
        return sha256(path)
    except OSError:
        return ""


def _failure(path: Path, error: BaseException) -> str:
    """A failed file's error in one line of words."""
    if isinstance(error, UnreadableFile):
        return str(error)  # one line already
    if isinstance(error, OSError):  # met outside the reader: hashing a file gone, or not permitted
        return str(unreadable(path, error))
    return f"cannot ingest {printable(path.name)}: {reason(error)}"


def _with_raw(quarantined: pl.DataFrame, batch: pl.DataFrame, source: str) -> pl.DataFrame:
    """Quarantined rows with `raw`: the row exactly as read, as JSON text (or a broken JSON line).
    A CSV file's nulls were empty fields, and show as such."""
    if quarantined.height == 0:
        return quarantined.with_columns(raw=pl.lit(None, pl.String))
    columns = [name for name in batch.columns if not name.startswith("_")]
    rows = batch.join(quarantined.select("_line"), on="_line", how="semi")
    as_read = [pl.col(name).cast(pl.String) for name in columns]
    if describe(Path(source))[0] == "csv":
        as_read = [column.fill_null("") for column in as_read]
    text = pl.struct(as_read).struct.json_encode() if columns else None
    if "_unparsed" in rows.columns:
        text = pl.col("_unparsed") if text is None else pl.coalesce(pl.col("_unparsed"), text)
    return quarantined.join(rows.select("_line", raw=text), on="_line", how="left")


def _quarantine(stage: Stage, table: str, frame: pl.DataFrame, source: str, now: dt.datetime) -> None:
    if frame.height == 0:
        return
    frame = frame.with_columns(pl.lit(None, pl.String).alias(c) for c in KEY if c not in frame.columns)
    rows = frame.select(
        "raw", "reason", "detail",
        pl.col("table_id").cast(pl.String), pl.col("shoe_id").cast(pl.String),
        pl.col("round_no").cast(pl.Int32, strict=False),
        source_file=pl.lit(source), line_no=pl.col("_line"), ingested_at=pl.lit(now),
    )  # fmt: skip
    stage.write(table, rows)


QUARANTINE_OF = {schema.CORE_ROUNDS: schema.QUARANTINE_ROUNDS, schema.CORE_BETS: schema.QUARANTINE_BETS}


def _stage(stage: Stage, stored: StoredShoes, result: FileResult, accepted: pl.DataFrame,
           quarantined: pl.DataFrame, source: str, now: dt.datetime, last: bool) -> FileResult:  # fmt: skip
    """Stage a batch's accepted and quarantined rows, and count them in the file's result. A large
    last batch of the file is written as two lake files, one on each writer's thread: no later
    batch's checks are left to run beside its writing."""
    _quarantine(stage, QUARANTINE_OF[stored.table], quarantined, source, now)
    halves = last and accepted.height >= SPLIT_ROWS
    for part in accepted.iter_slices(accepted.height // 2 + 1) if halves else (accepted,):
        staged = stage.write(stored.table, part)  # a lake file: the table's columns only
        if staged:
            stored.add(staged, part)
    result.accepted = accepted.height
    result.quarantined.update(dict(quarantined["reason"].value_counts().iter_rows()))
    return result


def _checked(batch: pl.DataFrame, check) -> pl.DataFrame:
    """The batch through its row checks; a line the reader could not make a row of (a JSON line
    that is no object, a CSV line with more fields than the header) is `bad_type`."""
    checked = check(batch.drop(UNPARSED, strict=False))
    if "_unparsed" not in batch.columns:
        return checked
    unparsed = pl.col("_unparsed").is_not_null()
    return checked.join(batch.select("_line", *UNPARSED), on="_line", how="left").with_columns(
        reason=pl.when(unparsed).then(pl.lit("bad_type")).otherwise(pl.col("reason")),
        detail=pl.when(unparsed).then(pl.col("_unparsed_detail")).otherwise(pl.col("detail")),
    )


def _split(checked: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rows that failed a check, rows that passed)."""
    if checked["reason"].null_count() == checked.height:
        return checked.head(0), checked
    return checked.filter(pl.col("reason").is_not_null()), checked.filter(pl.col("reason").is_null())


def _ahead(items: Iterator) -> Iterator:
    """`items`, the first one taken now (an error taking it is raised when the items are taken,
    inside the file's transaction)."""
    try:
        first: list | Exception = list(itertools.islice(items, 1))
    except Exception as error:
        first = error

    def resumed():
        if isinstance(first, Exception):
            raise first
        yield from first
        yield from items

    return resumed()


def _hashed_while_reading(path: Path, batches: Iterator) -> tuple[str, Iterator]:
    """The file's sha256, computed on a thread of its own while the first batch is read, and the
    batches, that first one included."""
    with ThreadPoolExecutor(1, thread_name_prefix="sha256") as hasher:
        hashing = hasher.submit(sha256, path)
        batches = _ahead(batches)
        return hashing.result(), batches


def _first_checked(batches: Iterator[pl.DataFrame], check) -> Iterator[tuple[pl.DataFrame, pl.DataFrame | None]]:
    """Each batch with its checked rows where they are checked already: the first one's, now."""
    first = _ahead((batch, _checked(batch, check)) for batch in itertools.islice(batches, 1))
    return itertools.chain(first, ((batch, None) for batch in batches))


def _with_last(batches: Iterator) -> Iterator[tuple[object, bool]]:
    """Each batch, and whether it is the file's last (the next one is read first)."""
    batch = next(batches, None)
    while batch is not None:
        following = next(batches, None)
        yield batch, following is None
        batch = following


@dataclass
class TouchedShoes:
    """What a file's batches add to their shoes: the sums of their accepted rounds (summed on the
    writer's thread), and their rounds quarantined as overdrawn (for core.shoes)."""

    parts: list[Future] = field(default_factory=list)
    overdrawn: list[pl.DataFrame] = field(default_factory=list)


def _ingest_rounds(
    con, batch: pl.DataFrame, checked: pl.DataFrame, source: str, now: dt.datetime, stored: StoredShoes, stage: Stage,
    touched: TouchedShoes, last: bool,
) -> FileResult:  # fmt: skip
    result = FileResult(Path(source), kind="rounds", rows_read=batch.height)
    bad, good = _split(checked)
    good = with_shoe_key(good)
    new, result.duplicates, conflicts = split_duplicates(con, good, stored, KEY, ROUND_CONTENT)
    accepted, overdrawn = reconcile(con, new, stored)
    touched.parts.append(stage.later(shoes.shoe_parts, accepted))
    touched.overdrawn.append(overdrawn.select(*SHOE, "round_no"))
    quarantined = pl.concat([bad, conflicts, overdrawn], how="diagonal_relaxed")
    rows = accepted.with_columns(source_file=pl.lit(source), line_no=pl.col("_line"), ingested_at=pl.lit(now))
    return _stage(stage, stored, result, rows, _with_raw(quarantined, batch, source), source, now, last)


def _ingest_bets(
    con,
    batch: pl.DataFrame,
    checked: pl.DataFrame,
    source: str,
    now: dt.datetime,
    table: PayTable,
    stored: StoredShoes,
    stage: Stage,
    last: bool,
) -> FileResult:
    result = FileResult(Path(source), kind="bets", rows_read=batch.height)
    # The bet's own columns only: an extra input column named like one joined in below (`game`,
    # `net_unit`, ...) must not stand in for it. Extra columns stay in a quarantined row's `raw`.
    checked = checked.select(name for name in checked.columns if name in BET_COLUMNS or name.startswith(RESERVED))
    bad, good = _split(checked)
    good = with_shoe_key(good)
    new, result.duplicates, conflicts = split_duplicates(con, good, stored, BET_KEY, BET_CONTENT)
    con.register("bet_keys", new.select(KEY).unique())
    rounds = con.sql(
        f"SELECT r.table_id, r.shoe_id, r.round_no, r.game, r.decks, r.outcome, r.outcome2, r.has_cards, "
        f"r.player_total, r.banker_total, r.player2_total, r.player_third IS NOT NULL AS player_drew, "
        f"r.banker_third IS NOT NULL AS banker_drew, r.player_pair, r.banker_pair, "
        f"length(string_split(r.player2_cards, ' ')) = 3 AS player2_drew "
        f"FROM {schema.CORE_ROUNDS} r SEMI JOIN bet_keys USING (table_id, shoe_id, round_no)"
    ).pl()
    con.unregister("bet_keys")
    joined = new.join(rounds, on=KEY, how="left")
    orphans = joined.filter(pl.col("game").is_null()).with_columns(
        reason=pl.lit("orphan_bet"),
        detail=pl.format("no accepted round {} / {} / {}", pl.col("table_id"), pl.col("shoe_id"), pl.col("round_no")),
    )
    placed = joined.filter(pl.col("game").is_not_null())
    accepted, mismatch = settlement.settle(placed, table)
    accepted = accepted.with_columns(source_file=pl.lit(source), line_no=pl.col("_line"), ingested_at=pl.lit(now))
    quarantined = pl.concat([bad, conflicts, orphans, mismatch], how="diagonal_relaxed")
    return _stage(stage, stored, result, accepted, _with_raw(quarantined, batch, source), source, now, last)


def _log(con, result: FileResult, digest: str, started: dt.datetime) -> None:
    con.execute(
        f"INSERT INTO {schema.INGEST_LOG} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            str(result.path), digest, result.kind, result.rows_read, result.accepted,
            sum(result.quarantined.values()), result.duplicates, result.status, result.error,
            started, dt.datetime.now(dt.UTC),
        ],
    )  # fmt: skip


@dataclass(frozen=True)
class OpenedFile:
    """A file whose reading has begun: its reader, its sha256, and its batches, each with its checked
    rows where they are checked already (None otherwise)."""

    reader: Iterator[pl.DataFrame]
    digest: str
    batches: Iterator[tuple[pl.DataFrame, pl.DataFrame | None]]

    @classmethod
    def of(cls, path: Path, kind: str, ingested: frozenset[str]) -> OpenedFile:
        """Begin reading `path` (of `kind`): its first batch is read, and unless the file is one of
        those `ingested` (sha256s) already, checked, on the calling thread (a file not ingested
        before has none of its reading or checks left waiting for the warehouse)."""
        reader = read_batches(path)
        digest, batches = _hashed_while_reading(path, reader)
        if digest in ingested:  # skipped, unless the file's log is gone: then checked when it goes in
            return cls(reader, digest, ((batch, None) for batch in batches))
        return cls(reader, digest, _first_checked(batches, CHECKS[kind]))


def ingest_file(
    con, path: Path, opened: OpenedFile, kind: str, table: PayTable, stored: dict[str, StoredShoes], staging: Path,
    lake_folder: Path,
) -> FileResult:  # fmt: skip
    """One file: its batches are checked, staged and moved in within one transaction. A crash or an
    unreadable file leaves the warehouse as it was (the file is logged as failed when it can be)."""
    with contextlib.closing(opened.reader):
        done = con.execute(
            f"SELECT count(*) FROM {schema.INGEST_LOG} WHERE sha256 = ? AND status = 'ok'", [opened.digest]
        ).fetchall()  # fetch to the end: DuckDB 2 keeps an unfinished result busy
        if done[0][0]:
            return FileResult(path, kind=kind, status="skipped")
        return _ingest_new_file(
            con, path, kind, table, stored, staging, lake_folder, opened.digest, opened.batches
        )  # fmt: skip


def _ingest_new_file(
    con, path: Path, kind: str, table: PayTable, stored: dict[str, StoredShoes], staging: Path, lake_folder: Path,
    digest: str, batches: Iterator[tuple[pl.DataFrame, pl.DataFrame | None]],
) -> FileResult:  # fmt: skip
    """A file not ingested before: its batches checked, staged and moved in within one transaction."""
    check = CHECKS[kind]
    started = dt.datetime.now(dt.UTC)
    result = FileResult(path, kind=kind)
    stage = Stage(Path(tempfile.mkdtemp(prefix=f"{digest[:12]}-", dir=staging)), lake_folder)
    touched = TouchedShoes()
    try:
        con.execute("BEGIN TRANSACTION")
        reader = con.cursor()  # the checks read committed rows
        try:
            for (batch, rows), last in _with_last(batches):
                rows = _checked(batch, check) if rows is None else rows
                if kind == "rounds":
                    result.add(
                        _ingest_rounds(reader, batch, rows, str(path), started, stored["rounds"], stage, touched, last)
                    )
                else:
                    result.add(
                        _ingest_bets(reader, batch, rows, str(path), started, table, stored["bets"], stage, last)
                    )
            if kind == "rounds":  # before the file's rows are listed: the table holds only earlier rows
                parts = [part.result() for part in touched.parts]
                shoes.refresh(con, parts, touched.overdrawn, stored["rounds"].in_table)
            stage.commit(con)
            _log(con, result, digest, started)
            con.execute("COMMIT")
        except BaseException:
            stage.abort()
            con.execute("ROLLBACK")
            raise
        finally:
            reader.close()
    except FILE_ERRORS as error:
        result = FileResult(path, kind=kind, status="failed", error=_failure(path, error))
        _log(con, result, digest, started)
    finally:  # the staged rows are in the tables now, or nowhere
        stage.close()
        for table_shoes in stored.values():
            table_shoes.settle(stage.rows, committed=result.status == "ok")
        shutil.rmtree(stage.folder, ignore_errors=True)
    return result


def ingest(db: Path, paths: list[Path], table: PayTable = DEFAULT_PAYTABLE) -> list[FileResult]:
    """Ingest files and folders (rounds before bets), then publish the serving snapshot."""
    with collector.paused():
        return _ingest(db, paths, table)


def _ingest(db: Path, paths: list[Path], table: PayTable) -> list[FileResult]:
    kinds, results = {}, []
    for path in found(paths):
        try:
            kinds[path] = kind_of(path)
        except FILE_ERRORS as error:
            results.append(FileResult(path, status="failed", error=_failure(path, error)))
    ordered = sorted(kinds, key=lambda p: kinds[p] != "rounds")
    # Each file's first batch is read and checked (and its sha256 taken) ahead: the first file's
    # while the warehouse opens (before its log can tell whether the file is in already: at worst
    # one batch checked for nothing), the next one's while a file goes in.
    with ThreadPoolExecutor(1, thread_name_prefix="open") as opener:
        ahead = {path: opener.submit(OpenedFile.of, path, kinds[path], frozenset()) for path in ordered[:1]}
        with write(db) as con:
            # Without insertion order to keep, DuckDB writes a large insert's row groups to the file
            # as it goes, rather than holding them for the checkpoint to write. No reader relies on
            # the physical order of rows.
            con.execute("SET preserve_insertion_order = false")
            for result in results:
                _log(con, result, _digest(result.path), dt.datetime.now(dt.UTC))
            stored = {
                "rounds": StoredShoes.load(con, schema.CORE_ROUNDS),
                "bets": StoredShoes.load(con, schema.CORE_BETS),
            }
            staging = db.with_name(db.name + ".staging")
            shutil.rmtree(staging, ignore_errors=True)  # left by a writer that was killed
            staging.mkdir()
            ingested = frozenset(
                row[0] for row in con.sql(f"SELECT sha256 FROM {schema.INGEST_LOG} WHERE status = 'ok'").fetchall()
            )
            for path, following in itertools.zip_longest(ordered, ordered[1:]):
                opening = ahead.pop(path)
                if following is not None:  # queued behind this one: read while this file goes in
                    ahead[following] = opener.submit(OpenedFile.of, following, kinds[following], ingested)
                try:
                    opened = opening.result()
                except FILE_ERRORS as error:  # gone, or its bytes unreadable, since its kind was read
                    result = FileResult(path, kind=kinds[path], status="failed", error=_failure(path, error))
                    _log(con, result, _digest(path), dt.datetime.now(dt.UTC))
                    results.append(result)
                    continue
                results.append(ingest_file(con, path, opened, kinds[path], table, stored, staging, lake.folder(db)))
            shutil.rmtree(staging, ignore_errors=True)
            for name in schema.LAKE_TABLES:
                lake.compact(con, db, name)
    return results


def last_ingested(con) -> dict[str, dt.datetime]:
    """When each path's latest successful ingest finished."""
    rows = con.sql(f"SELECT path, max(finished_at) FROM {schema.INGEST_LOG} WHERE status = 'ok' GROUP BY path")
    rows = rows.fetchall()
    return dict(rows)
