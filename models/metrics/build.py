"""Recompute the marts from the core tables, for every gaming day or only some, and publish.

Three parts: how the marts are reckoned (config.py), each mart computed from frames (marts.py), and
the warehouse read and written (loading.py, storing.py); this module runs them. Every mart row
belongs to one gaming day, so a new day recomputes that day's rows and leaves the history alone.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, product
from pathlib import Path

import duckdb
import polars as pl

from models.gaming_day import gaming_day
from models.metrics import ledger, staleness
from models.metrics.combine import combine
from models.metrics.config import MartConfig
from models.metrics.count_room import shift_spans
from models.metrics.days import coups_by_day
from models.metrics.loading import (
    BET_COLUMNS,
    ROUND_COLUMNS,
    core_rows,
    dealer_errors_of,
    quarantined_of_days,
    quarantined_of_spans,
    shift_coups,
    table_events,
)
from models.metrics.marts import compute_marts, count_marts, each_mart
from models.metrics.storing import TOTALS, outdated, quiet_checkpoints, store_marts, store_totals
from models.progress import Progress, quiet
from models.warehouse import partials, schema, travel, views
from models.warehouse.shards import Sharding
from models.warehouse.store import WarehouseError, current, writer

#: What callers of the builds import from here, besides the builds.
__all__ = ["BET_COLUMNS", "ROUND_COLUMNS", "MartConfig", "build", "build_from_partials", "build_shard", "compute_marts"]
#: The stages progress is told of.
READING, COMPUTING, TOTALLING = "reading what changed", "computing gaming days", "storing the players' totals"
PUBLISHING = "publishing the serving snapshot"
#: The marts as the project's defaults reckon them.
DEFAULT_CONFIG = MartConfig()
#: What computing or storing marts raises because of the rows themselves (a sum past its column's
#: decimal, a value out of range): the days, then the tables, are tried apart and the table-days that
#: fail are held back. A read that fails, a warehouse error or a mistake in the code fails the build.
ROW_ERRORS = (
    pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError, ArithmeticError,
    duckdb.OutOfRangeException, duckdb.ConversionException,
)  # fmt: skip


class NothingToBuild(WarehouseError):
    """A build refused before it began (no rounds, or none on the days asked): no failed build."""


def build(
    db: Path,
    config: MartConfig = DEFAULT_CONFIG,
    days: Sequence[dt.date] | None = None,
    every_day: bool = False,
    chunk_coups: int | None = None,
    progress: Progress = quiet,
) -> Built:
    """Recompute the marts of the given gaming days, or of every day a new row or a changed setting
    touched since the last build (of every day with `every_day`), a few days at a time, with the
    tenure fit of their months, the players' totals and the statistical report; publish. Returns the
    rows written to each mart, the days computed and reused (ledger.py) and the table-days held back.
    `chunk_coups`: about how many coups' marts are computed at a time (CHUNK_COUPS when None). A
    build that fails publishes nothing and is noted beside the warehouse until one succeeds
    (staleness.py). `progress` is told the days computed, and the mart being stored."""
    if not db.exists():
        raise WarehouseError(f"no warehouse at {db} yet: run `banco ingest PATH` first")
    with staleness.noted(db, unless=(NothingToBuild,)), writer(db) as w:
        built = build_on(w.con, config, travel.of(w.tables, w.point), days, every_day, chunk_coups, db, progress)
        progress(PUBLISHING, 0)  # as the writer lets go
        return built


def build_on(
    con,
    config: MartConfig,
    commit: travel.Commit | None,
    days: Sequence[dt.date] | None = None,
    every_day: bool = False,
    chunk_coups: int | None = None,
    db: Path | None = None,
    progress: Progress = quiet,
) -> Built:
    """`build`'s work on a writer's connection whose views read the tables at `commit`: the serving
    writer's, or a scratch warehouse's (travel.py, a report rebuilt as of a commit); the commit and
    the settings are noted beside the marts (ledger.record_commit). `db` names the warehouse in errors."""
    quiet_checkpoints(con)
    progress(READING, 0)
    # before anything is read: what lands meanwhile is new next time
    now, shoes_now = ledger.files(con), ledger.shoe_digests(con)
    held = coups_by_day(con, config.day)
    if held.height == 0:
        raise NothingToBuild(f"the warehouse at {db} holds no rounds yet: run `banco ingest PATH` first")
    every = held["gaming_day"].to_list()
    plan = ledger.plan(con, config, every, every_day)
    if days is not None:
        asked = sorted(set(days))
        if not set(asked) & set(every):
            raise NothingToBuild(_nothing_on(db, asked))
        plan = ledger.Plan(asked, [], plan.touched)
    built = _compute(con, config, plan, held, chunk_coups or CHUNK_COUPS, progress)
    if days is None:
        ledger.record_files(con, now, shoes_now)
    if commit is not None:
        ledger.record_commit(con, commit, config)
    built.held_back = ledger.held_back(con)
    return built


class Built(dict):
    """The rows a build wrote to each mart, with the gaming days it computed and those it reused."""

    def __init__(
        self, rows: dict[str, int], plan: ledger.Plan, seconds: dict[str, float] | None = None, kept_edges: int = 0
    ):
        super().__init__(rows)
        self.computed, self.reused, self.why = plan.days, plan.reused, plan.why
        #: The coups whose edges were kept from an earlier build, not computed.
        self.kept_edges = kept_edges
        #: Where the time went: seconds by stage (reading, each mart computed, storing).
        self.seconds = seconds or {}
        #: Every table-day the marts leave out, as the builds of its day noted it (this one's or earlier).
        self.held_back: list[ledger.HeldBack] = []


class Stopwatch:
    """Seconds by stage, summed over a build's chunks."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + time.perf_counter() - start

    def each(self, marts: Iterator[tuple[str, pl.DataFrame]]) -> Iterator[tuple[str, pl.DataFrame]]:
        """`marts` as they are computed, each one's time taken as its stage."""
        start = time.perf_counter()
        for name, frame in marts:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
            yield name, frame
            start = time.perf_counter()


def _compute(
    con, config: MartConfig, plan: ledger.Plan, held: pl.DataFrame, chunk_coups: int = 0, progress: Progress = quiet
) -> Built:
    """Compute and store the marts of `plan`'s days, whole days of about `chunk_coups` coups at a
    time (CHUNK_COUPS when 0); every day from the start, when a stored mart turns out an earlier
    release's. A chunk whose rows fail the computation is taken apart (`_apart`): the table-days that
    fail alone are held back, and noted with the days."""
    # (the settings' key holds the release's: with no day to compute, the stored marts are this one's)
    chunks = list(_chunks(plan.days, held, chunk_coups or CHUNK_COUPS))
    # one chunk (a night's day) stores its totals with its rows, re-totalling only its players
    run = _Run(con, config, plan.touched, totals=len(chunks) == 1, progress=progress, days=(0, len(plan.days)))
    held_back: list[ledger.HeldBack] = []
    try:
        for chunk in chunks:
            held_back += _apart(run.store, chunk, lambda day: _tables_on(con, day, config))
            run.days = (run.days[0] + len(chunk), run.days[1])
            progress(COMPUTING, *run.days)
    except _Outdated:  # a mart missing, or of other columns: every day again
        _forget_marts(con)
        why = plan.why or "a mart is missing or was stored by an earlier release"
        again = ledger.Plan(held["gaming_day"].to_list(), [], None, why)
        return _compute(con, config, again, held, chunk_coups, progress)
    if len(chunks) > 1:
        progress(TOTALLING, 0)
        with run.clock("store the totals"):
            run.rows |= store_totals(con, plan.days, config.comp_rate, config.report_rules)
    # noted once every chunk is stored: a build that fails half-way computes them all again
    ledger.record_days(con, plan.days, config)
    ledger.record_held_back(con, plan.days, held_back)
    return Built(run.rows, plan, run.clock.seconds, run.kept_edges)


class _Outdated(Exception):
    """A stored mart is missing, or of other columns than this release computes."""


@dataclass
class _Run:
    """A build's marts computed and stored a few days at a time, and what it adds up."""

    con: duckdb.DuckDBPyConnection
    config: MartConfig
    touched: pl.DataFrame | None
    totals: bool
    clock: Stopwatch = field(default_factory=Stopwatch)
    rows: dict[str, int] = field(default_factory=dict)
    kept_edges: int = 0
    checked: bool = False  # whether the stored marts were found this release's
    progress: Progress = quiet
    days: tuple[int, int] = (0, 0)  # the days computed so far, of how many

    def store(self, days: list[dt.date], tables: list[str] | None = None, keep: bool = True) -> None:
        """Compute the marts of `days` (of `tables` only, when given) and store them, in place of
        the days' rows, in one transaction (rolled back without `keep`: a trial)."""
        con, config, clock = self.con, self.config, self.clock
        with clock("read the core rows"):
            rounds, bets, shoes = core_rows(con, days, config, tables)
            errors = dealer_errors_of(con, days, config, tables)
            quarantined = quarantined_of_days(con, days, config, tables)
        with clock("read the kept edges"):
            known = _stored_edges(con, rounds, self.touched, config)
        # the count room reads the warehouse: before the writer takes the connection
        counted = dict(clock.each(_count_marts(con, days, config, tables, loaded=(rounds, bets))))
        marts = chain(clock.each(each_mart(rounds, bets, shoes, config, errors, known, quarantined)), counted.items())
        if not self.checked:  # the first marts computed: are the stored marts this release's?
            marts = dict(marts)
            if outdated(con, marts, fresh=False):
                raise _Outdated
            self.checked = True
            marts = marts.items()
        # each mart stored while the next is computed; the totals over every day once, at the end
        kept = ((name, frame.filter(pl.col("gaming_day").is_in(days))) for name, frame in self._told(marts))
        written = store_marts(con, kept, days, config.comp_rate, config.report_rules, self.totals, clock.seconds, keep)
        if keep:
            for name, count in written.items():  # (a mart taken over every day has the last store's rows)
                self.rows[name] = count + (0 if name in TOTALS else self.rows.get(name, 0))
            self.kept_edges += 0 if known is None else known.height

    def _told(self, marts: Iterator[tuple[str, pl.DataFrame]]) -> Iterator[tuple[str, pl.DataFrame]]:
        """`marts`, progress told the name of each as it is stored."""
        for name, frame in marts:
            self.progress(COMPUTING, *self.days, f"storing {name.removeprefix('marts.')}")
            yield name, frame


#: Compute (and keep, or only try) the marts of some days, of some tables (all when None).
Attempt = Callable[[list[dt.date], list[str] | None, bool], None]


def _apart(attempt: Attempt, days: list[dt.date], tables_on: Callable[[dt.date], list[str]]) -> list[ledger.HeldBack]:
    """`attempt(days)` kept; when their rows fail it (ROW_ERRORS), each day alone, and each of a
    failing day's tables (`tables_on(day)`) tried alone, then the day kept without those that failed
    (without any table, when none fails alone: together, they do). Returns the table-days held back."""
    try:
        attempt(days, None, True)
        return []
    except ROW_ERRORS as error:
        if len(days) > 1:
            return [kept for day in days for kept in _apart(attempt, [day], tables_on)]
        failed = error
    (day,) = days
    tables = tables_on(day)
    failing: dict[str, str] = {}
    for table in tables:
        try:
            attempt([day], [table], False)
        except ROW_ERRORS as alone:
            failing[table] = staleness.reason(alone)
    rest = [table for table in tables if table not in failing]
    if not failing:
        failing, rest = dict.fromkeys(tables, staleness.reason(failed)), []
    try:
        attempt([day], rest, True)
    except ROW_ERRORS as together:  # the rest fail together: the day is held back whole
        if not rest:
            raise
        failing |= dict.fromkeys(rest, staleness.reason(together))
        attempt([day], [], True)
    return [ledger.HeldBack(day, table, why) for table, why in sorted(failing.items())]


def _tables_on(con, day: dt.date, config: MartConfig, within: Sequence[str] | None = None) -> list[str]:
    """The tables with a coup on `day`, or a table event around it (of `within` only, when given)."""
    start, end = config.day.bounds(day, day)
    dealt = con.sql(
        f"SELECT DISTINCT table_id FROM {schema.CORE_ROUNDS} "
        f"WHERE started_at >= '{start.isoformat()}' AND started_at < '{end.isoformat()}'"
    ).pl()["table_id"]
    found = set(dealt.to_list()) | set(table_events(con, [day], config)["table_id"].to_list())
    return sorted(found if within is None else found & set(within))


#: About the coups whose marts are computed at a time (whole gaming days): memory stays that of a few
#: days' rows however large the warehouse.
CHUNK_COUPS = 500_000


def _chunks(days: Sequence[dt.date], held: pl.DataFrame, most: int) -> Iterator[list[dt.date]]:
    """`days` in order, whole days of at most `most` coups together (a larger day alone)."""
    coups = dict(held.iter_rows())
    chunk: list[dt.date] = []
    size = 0
    for day in sorted(days):
        if chunk and size + coups.get(day, 0) > most:
            yield chunk
            chunk, size = [], 0
        chunk.append(day)
        size += coups.get(day, 0)
    if chunk:
        yield chunk


def _stored_edges(con, rounds: pl.DataFrame, touched: pl.DataFrame | None, config: MartConfig) -> pl.DataFrame | None:
    """The stored edges of the coups of `rounds`' shoes but the `touched` ones (None when every
    shoe's edges are to be computed, or none are stored)."""
    if touched is None or rounds.height == 0 or not views.exists(con, schema.MARTS_COUP_EDGES):
        return None
    shoes = rounds.select("table_id", "shoe_id").unique().join(touched, on=["table_id", "shoe_id"], how="anti")
    day = gaming_day(pl.col("started_at"), config.day)
    first, last = rounds.select(first=day.min(), last=day.max()).row(0)
    con.register("kept_shoes", shoes)
    try:  # a shoe's edges carry its first coup's day: the earliest day of these coups
        return con.sql(
            f"SELECT * FROM {schema.MARTS_COUP_EDGES} SEMI JOIN kept_shoes USING (table_id, shoe_id) "
            f"WHERE gaming_day BETWEEN DATE '{first}' AND DATE '{last}'"
        ).pl()
    finally:
        con.unregister("kept_shoes")


def _forget_marts(con) -> None:
    """Drop every stored mart and the ledger: the next store creates them anew."""
    listed = con.sql(
        "SELECT table_schema || '.' || table_name, table_type FROM information_schema.tables "
        "WHERE table_schema = 'marts'"
    ).fetchall()
    for name, kind in listed:
        con.execute(f"DROP {'VIEW' if kind == 'VIEW' else 'TABLE'} IF EXISTS {name}")
    ledger.forget(con)


def build_shard(
    db: Path, config: MartConfig, days: Sequence[dt.date], shard: str, sharding: Sharding, run_id: str
) -> dict[str, int]:
    """A sharded build's first stage, on any machine: the marts of `days` over the coups of `shard`'s
    tables alone, each day's stored apart (partials.py) as run `run_id` for `build_from_partials`,
    with the table-days held back (`_apart`); a day without coups on the shard stores empty marts.
    Returns the rows stored to each mart."""
    if shard not in sharding.names:
        raise ValueError(f"no shard {shard!r} among {sharding.count} shards: {', '.join(sharding.names)}")
    days = sorted(set(days))
    if not days:
        raise ValueError("a shard's marts are built a gaming day at a time: name the days")
    computed: dict[dt.date, dict[str, pl.DataFrame]] = {}
    with current(db) as con:
        known = [table for (table,) in con.sql(f"SELECT DISTINCT table_id FROM {schema.CORE_SHOES}").fetchall()]
        tables = sharding.tables_in(shard, known)

        def attempt(some: list[dt.date], only: list[str] | None, keep: bool) -> None:
            marts = _marts_of(con, some, config, tables if only is None else only)
            for day in some if keep else ():  # a shoe that began the day before belongs to that day
                computed[day] = {name: frame.filter(pl.col("gaming_day") == day) for name, frame in marts.items()}

        held = _apart(attempt, days, lambda day: _tables_on(con, day, config, tables))
    rows: dict[str, int] = {}
    for day in days:
        kept = computed[day]
        # the day's held-back table-days go with its marts, for the second stage to note
        noted = pl.DataFrame([h for h in held if h.gaming_day == day], schema=ledger.HELD_SCHEMA, orient="row")
        partials.write(db, day, shard, sharding.count, kept | {schema.HELD_BACK: noted}, run_id)
        rows = {name: rows.get(name, 0) + frame.height for name, frame in kept.items()}
    return rows


def _marts_of(con, days: list[dt.date], config: MartConfig, tables: Sequence[str]) -> dict[str, pl.DataFrame]:
    """Every mart of `days` over the coups of `tables` alone."""
    rounds, bets, shoes = core_rows(con, days, config, tables)
    errors = dealer_errors_of(con, days, config, tables)
    quarantined = quarantined_of_days(con, days, config, tables)
    counted = _count_marts_of(con, days, config, tables)
    return compute_marts(rounds, bets, shoes, config, errors, quarantined=quarantined) | counted


def build_from_partials(db: Path, config: MartConfig, days: Sequence[dt.date], sharding: Sharding) -> Built:
    """A sharded build's second stage, on the serving host: every shard's marts of `days` (from
    `build_shard`) combined and stored, with the tenure fit of their months, as `build(db, config,
    days)` stores them; publish. Returns the rows written to each mart, with every table-day held
    back. When a mart is missing from a warehouse that holds others, or stored with other columns (an
    earlier release's), it rebuilds every day from the core tables instead, as `build(db, config)`,
    and the rows are those of every day; a warehouse with no marts yet starts with these days (a run
    over a range builds them all). A build that fails is noted as `build`'s is."""
    days = sorted(set(days))
    with staleness.noted(db, unless=(NothingToBuild,)):
        with ThreadPoolExecutor(8) as reader:  # on an object store, most of a read is waiting for it
            keys = product(days, sharding.names)
            parts = list(reader.map(lambda key: partials.read(db, *key, sharding.count), keys))
        # (a shard's partials of an earlier release have no held-back table-days)
        noted = [part.pop(schema.HELD_BACK, pl.DataFrame(schema=ledger.HELD_SCHEMA)) for part in parts]
        marts = combine(parts, config.comp_rate, config.surveillance_fdr)
        if not marts or marts[schema.MARTS_TIE_FREQUENCY].height == 0:  # every coup has its table's row there
            raise NothingToBuild(_nothing_on(db, days))
        with writer(db) as w:
            con, commit = w.con, travel.of(w.tables, w.point)
            quiet_checkpoints(con)
            if not outdated(con, marts, fresh=False):
                stored = Built(_store_days(con, config, days, marts), ledger.Plan(days, [], None))
                ledger.record_days(con, days, config)  # this release's, with these settings
                shards = pl.concat(noted).sort("gaming_day", "table_id")
                ledger.record_held_back(con, days, [ledger.HeldBack(*row) for row in shards.iter_rows()])
            else:  # a mart missing, or stored with other columns (an earlier release's): every day again
                _forget_marts(con)
                held = coups_by_day(con, config.day)
                stored = _compute(con, config, ledger.Plan(held["gaming_day"].to_list(), [], None), held)
            if commit is not None:  # the shards read the latest commit when they ran: this one, but for a late ingest
                ledger.record_commit(con, commit, config)
            stored.held_back = ledger.held_back(con)
            return stored


def _count_marts_of(
    con, days: Sequence[dt.date], config: MartConfig, tables: Sequence[str] | None = None
) -> dict[str, pl.DataFrame]:
    """The count room's marts of `days` (of `tables` only, when given), read from the warehouse."""
    return dict(_count_marts(con, days, config, tables))


def _count_marts(
    con,
    days: Sequence[dt.date],
    config: MartConfig,
    tables: Sequence[str] | None = None,
    loaded: tuple[pl.DataFrame, pl.DataFrame] | None = None,
) -> Iterator[tuple[str, pl.DataFrame]]:
    """`_count_marts_of` as it computes them, the wagers taken from `loaded` (rounds, bets) when
    they hold every coup of the shifts."""
    events = table_events(con, days, config, tables)
    # core_rows read every coup of these days: the shifts within them need no other
    covered = [config.day.bounds(day, day) for day in days]
    spans = shift_spans(events, config.day, days)
    coups, bets = shift_coups(con, spans, loaded, covered)
    yield from count_marts(events, coups, bets, config, days, quarantined_of_spans(con, spans, config))


def _store_days(con, config: MartConfig, days: Sequence[dt.date], marts: dict[str, pl.DataFrame]) -> dict[str, int]:
    """Store the marts' rows of `days` (and refit their months); the rows written to each mart."""
    # a shoe that began the day before belongs to that day
    kept = ((n, f.filter(pl.col("gaming_day").is_in(list(days)))) for n, f in marts.items())
    return store_marts(con, kept, days, config.comp_rate, config.report_rules)


def _nothing_on(db: Path, days: Sequence[dt.date]) -> str:
    asked = ", ".join(str(day) for day in days)
    return f"the warehouse at {db} holds no coups of gaming day {asked}: nothing to build"
