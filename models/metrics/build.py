"""Recompute the marts from the core tables, for every gaming day or only some, and publish.

Each mart is one metric function of this package; this module reads the core tables, adds the
gaming day (and each shoe's, the day of its first coup), and writes the results. Every mart row
belongs to one gaming day, so a new day recomputes that day's rows and leaves the history alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from itertools import chain, product
from pathlib import Path

import polars as pl

from models.contract import BET_SCHEMA, EVENT_SCHEMA, MONEY, ROUND_SCHEMA
from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.metrics.combine import combine
from models.metrics.count_room import count_room, shift_spans, shift_wagers, table_shifts
from models.metrics.coup_edges import coup_edges
from models.metrics.coups import Coups, number
from models.metrics.dealer_errors import SCHEMA as ERRORS_SCHEMA
from models.metrics.dealer_errors import dealer_errors
from models.metrics.gaming_day import GamingDay, gaming_day, shoe_day
from models.metrics.money import (
    Rounding,
    commission_per_unit,
    commission_sums,
    commission_totals,
    table_day_sums,
    table_day_totals,
    wagers,
)
from models.metrics.pace import dealer_pace
from models.metrics.players import (
    PLAYER_COLUMNS,
    player_bets,
    player_day,
    player_sessions,
    players,
    players_of_totals,
    players_sql,
)
from models.metrics.ratings import coup_rows, joined_coup_rows, rate
from models.metrics.shoes import shoe_summary
from models.metrics.side_bets import side_bets
from models.metrics.statistical_report import statistical_report
from models.metrics.streaks import SHOE, bank_tenures, decision_runs, tenure_fit, with_banks
from models.metrics.surveillance import (
    surveillance_by_tables,
    surveillance_flags,
    surveillance_player_day,
    wager_edges_sql,
)
from models.metrics.ties import tie_frequency, ties_by_total
from models.metrics.wager_sums import stint_sums
from models.reports.rules import RULES
from models.settings import DEFAULTS, Settings
from models.warehouse import partials, schema, settlement, views
from models.warehouse.shards import Sharding
from models.warehouse.store import WarehouseError, current, write

ROUND_COLUMNS = (
    "table_id", "shoe_id", "round_no", "started_at", "game", "decks", "dealer_id", "bank_holder", "outcome",
    "player_total", "banker_total", "banker_third", "natural", "player_pair", "banker_pair", "cards_used",
    "player_cards", "banker_cards",
)  # fmt: skip
BET_COLUMNS = (
    "table_id", "shoe_id", "round_no", "game", "bet", "amount", "house_net", "commission", "theo", "player_id",
)  # fmt: skip
DAY = ["gaming_day"]
#: Player ids as categories, for the ratings (read from the files' dictionaries as they are scanned).
_CATEGORIES = (pl.col("player_id").cast(pl.Categorical),)


@dataclass(frozen=True)
class MartConfig:
    """How the marts are reckoned: the gaming day, commission rounding, the pay table; a rating's
    session gap (minutes), the comp reinvestment rate on theo, and dealer pace's break (minutes);
    surveillance's false-discovery rate and the table limits its Zender rule compares stakes with;
    the count room's tolerance (None: one chip of a shift's smallest denomination) and the
    regulators' rules whose flags make an investigation."""

    day: GamingDay = DEFAULTS.gaming_day
    rounding: Rounding = field(default_factory=Rounding)
    paytable: PayTable = DEFAULT_PAYTABLE
    session_gap: float = DEFAULTS.session_gap_minutes
    comp_rate: Decimal = DEFAULTS.comp_rate
    pace_break_minutes: float = DEFAULTS.pace_break_minutes
    surveillance_fdr: float = DEFAULTS.surveillance_fdr
    max_bet: Decimal = DEFAULTS.max_bet
    side_max: Decimal = DEFAULTS.side_max
    count_tolerance: Decimal | None = DEFAULTS.count_tolerance
    report_rules: tuple[str, ...] = DEFAULTS.report_rules

    @classmethod
    def from_settings(cls, settings: Settings, **chosen) -> MartConfig:
        """The marts' part of the project's settings; `chosen`: what the caller picks beside them
        (the commission's `rounding`, the `paytable`)."""
        return cls(
            day=settings.gaming_day,
            session_gap=settings.session_gap_minutes,
            comp_rate=settings.comp_rate,
            pace_break_minutes=settings.pace_break_minutes,
            surveillance_fdr=settings.surveillance_fdr,
            max_bet=settings.max_bet,
            side_max=settings.side_max,
            count_tolerance=settings.count_tolerance,
            report_rules=settings.report_rules,
            **chosen,
        )

    def __post_init__(self) -> None:
        if not self.session_gap > 0:
            raise ValueError(f"the session gap is a positive number of minutes, got {self.session_gap}")
        try:
            object.__setattr__(self, "comp_rate", Decimal(str(self.comp_rate)))
        except InvalidOperation:
            raise ValueError(f"the comp rate is a number from 0 to 1, got {self.comp_rate!r}") from None
        if not 0 <= self.comp_rate <= 1:
            raise ValueError(f"the comp rate is a share of theo from 0 to 1, got {self.comp_rate}")
        if not self.pace_break_minutes > 0:
            raise ValueError(f"the pace break is a positive number of minutes, got {self.pace_break_minutes}")
        if not 0 < self.surveillance_fdr < 1:
            raise ValueError(f"the surveillance false-discovery rate is between 0 and 1, got {self.surveillance_fdr}")
        for name in ("max_bet", "side_max"):
            try:
                object.__setattr__(self, name, Decimal(str(getattr(self, name))))
            except InvalidOperation:
                raise ValueError(f"the table's {name} is an amount, got {getattr(self, name)!r}") from None
            if not getattr(self, name) > 0:
                raise ValueError(f"the table's {name} is a positive amount, got {getattr(self, name)}")
        if self.count_tolerance is not None:
            try:
                object.__setattr__(self, "count_tolerance", Decimal(str(self.count_tolerance)))
            except InvalidOperation:
                raise ValueError(f"the count tolerance is an amount, got {self.count_tolerance!r}") from None
            if not (self.count_tolerance.is_finite() and self.count_tolerance >= 0):
                raise ValueError(f"the count tolerance is an amount of 0 or more, got {self.count_tolerance}")
        object.__setattr__(self, "report_rules", tuple(self.report_rules))
        if unknown := sorted(set(self.report_rules) - set(RULES)):
            raise ValueError(f"the report's rules are {', '.join(RULES)}, got {', '.join(unknown)}")


def compute_marts(
    rounds: pl.DataFrame,
    bets: pl.DataFrame,
    shoes: pl.DataFrame,
    config: MartConfig,
    errors: pl.DataFrame | None = None,
) -> dict[str, pl.DataFrame]:
    """Every day-grained mart from the core tables, as frames keyed by table name; `errors`: the
    dealers' quarantined rows (`dealer_errors`), none when not given."""
    return dict(each_mart(rounds, bets, shoes, config, errors))


def each_mart(
    rounds: pl.DataFrame,
    bets: pl.DataFrame,
    shoes: pl.DataFrame,
    config: MartConfig,
    errors: pl.DataFrame | None = None,
) -> Iterator[tuple[str, pl.DataFrame]]:
    """`compute_marts` one mart at a time, the largest first: a caller can store each while the next
    is computed."""
    coups = number(rounds, config.day)
    if coups is None:  # a coup's key twice: sorted and joined as text
        lazy = (
            rounds.lazy()
            .with_columns(gaming_day(pl.col("started_at"), config.day))
            .with_columns(shoe_day())
            .sort("shoe_day", *SHOE, "round_no")
            .collect()
            .lazy()
        )
    else:
        # by shoe day first, so that the per-tenure and per-run marts come out in gaming-day order
        lazy = coups.rows.gather(coups.order()).lazy()
    runs = decision_runs(lazy, in_order=True).collect()
    yield schema.MARTS_DECISION_RUNS, runs
    tenures = bank_tenures(lazy, in_order=True).collect()
    yield schema.MARTS_BANKER_STREAKS, with_banks(tenures, bets)
    # the money sums are taken once, per dealer's stint at a table on a day, and totalled from there
    # per table and per dealer (they pool exactly)
    stint = ("gaming_day", "dealer_id", "table_id")
    variance = settlement.house_expectation(config.paytable).select("game", "decks", "bet", "house_variance")
    variance = variance.with_columns(pl.col("decks").cast(pl.Int8))
    sums = None if coups is None else stint_sums(bets, coups, variance, config.rounding, config.paytable)
    if sums is None:
        placed = wagers(bets.lazy(), lazy).collect().lazy()
        sums = (
            commission_sums(placed, stint, config.rounding, config.paytable).collect().lazy(),
            table_day_sums(placed, variance, stint).collect().lazy(),
        )
    fees, money = sums
    yield schema.MARTS_COMMISSION, commission_totals(fees, ("table_id", "gaming_day"))
    yield schema.MARTS_COMMISSION_BY_DEALER, commission_totals(fees, ("dealer_id", "gaming_day"))
    yield schema.MARTS_TABLE_DAY, table_day_totals(money, ("table_id", "gaming_day"))
    # each dealer's stint at a table on a day: the drill-down reads this, never the wagers
    yield schema.MARTS_DEALER_DAY, table_day_totals(money, stint)
    errors = pl.DataFrame(schema=ERRORS_SCHEMA) if errors is None else errors
    yield schema.MARTS_DEALER_PACE, dealer_pace(lazy, errors, config.pace_break_minutes, in_order=True)
    # the ratings before the marts of shoes and ties: their rows are stored while those are computed
    yield from _rating_marts(bets, coups, lazy, variance, config)
    yield schema.MARTS_SHOE_SUMMARY, shoe_summary(lazy, shoes.lazy(), runs.lazy())
    yield (
        schema.MARTS_TIE_FREQUENCY_BY_SHOE,
        tie_frequency(
            lazy.with_columns(gaming_day="shoe_day"), ["table_id", "shoe_id", "gaming_day"], compared_within=DAY
        ),
    )
    yield schema.MARTS_TIE_FREQUENCY, tie_frequency(lazy, ["table_id", "gaming_day"], compared_within=DAY)
    yield schema.MARTS_TIE_FREQUENCY_BY_DEALER, tie_frequency(lazy, ["dealer_id", "gaming_day"], compared_within=DAY)
    yield schema.MARTS_TIES_BY_TOTAL, ties_by_total(lazy, ["table_id", "gaming_day"])
    yield schema.MARTS_COMMISSION_PER_UNIT, commission_per_unit(lazy, ("table_id", "gaming_day"), config.paytable)


def _rating_marts(
    bets: pl.DataFrame, coups: Coups | None, lazy: pl.LazyFrame, variance: pl.DataFrame, config: MartConfig
) -> Iterator[tuple[str, pl.DataFrame]]:
    """The player-rating marts and the side bets, from one pass over the wagers (ratings.py)."""
    if coups is None:
        rows = lazy.collect()
        at = joined_coup_rows(bets, rows)
    else:
        rows, at = coups.rows, coup_rows(bets, coups)
    rated = rate(rows, at, bets, variance, dt.timedelta(minutes=config.session_gap))
    sessions = player_sessions(rated)
    yield schema.MARTS_PLAYER_SESSIONS, sessions
    yield schema.MARTS_PLAYER_DAY, player_day(sessions, config.comp_rate)
    yield schema.MARTS_PLAYER_BETS, player_bets(rated.player_bets)
    yield schema.MARTS_SIDE_BETS, side_bets(rated.side_bets)
    yield from _surveillance_marts(rows, bets, sessions, config)


def _surveillance_marts(
    rows: pl.DataFrame, bets: pl.DataFrame, sessions: pl.DataFrame, config: MartConfig
) -> Iterator[tuple[str, pl.DataFrame]]:
    """Every bet's edge before each coup, each rating's evidence, each player's day and the flags
    (docs/surveillance.md)."""
    edges = coup_edges(rows, config.paytable, config.day)
    yield schema.MARTS_COUP_EDGES, edges
    watched = surveillance_by_tables(bets, rows, sessions, edges, max_bet=config.max_bet, side_max=config.side_max)
    yield schema.MARTS_SURVEILLANCE_SESSIONS, watched
    days = surveillance_player_day(watched)
    yield schema.MARTS_SURVEILLANCE_PLAYER_DAY, days
    yield schema.MARTS_SURVEILLANCE_FLAGS, surveillance_flags(watched, days, config.surveillance_fdr)


def _load(
    con, db: Path, days: Sequence[dt.date] | None, config: MartConfig, tables: Sequence[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The core rows the marts of `days` need (all of them when `days` is None): the days' coups,
    and every coup of the shoes those coups belong to; of the `tables` only, when given (with `days`)."""
    shoes = con.sql(f"SELECT * FROM {schema.CORE_SHOES}").pl()
    if days is None:
        if tables is not None:
            raise ValueError("the marts of some tables are built a gaming day at a time: name the days")
        # every row: Polars reads the tables' files itself, several times faster than DuckDB hands them over
        rounds = views.scan(con, schema.CORE_ROUNDS).select(ROUND_COLUMNS).collect()
        bets = views.scan(con, schema.CORE_BETS).select(BET_COLUMNS).with_columns(*_CATEGORIES).collect()
        return rounds, bets, shoes
    spans = " OR ".join(
        f"(started_at >= '{start.isoformat()}' AND started_at < '{end.isoformat()}')"
        for start, end in (config.day.bounds(day, day) for day in days)
    )
    if tables is not None:  # a shard's tables only, filtered as the rows are read
        listed = ", ".join("'" + table.replace("'", "''") + "'" for table in tables)
        spans = f"({spans}) AND table_id IN ({listed})" if tables else "FALSE"
    # a time range reads only the row groups of those days (rows land in time order)
    day_shoes = con.sql(f"SELECT DISTINCT table_id, shoe_id FROM {schema.CORE_ROUNDS} WHERE {spans}").pl()
    con.register("day_shoes", day_shoes)
    try:
        rounds, bets = (
            con.sql(
                f"SELECT {', '.join(map(_quoted, columns))} FROM {table} SEMI JOIN day_shoes USING (table_id, shoe_id)"
            ).pl()
            for columns, table in ((ROUND_COLUMNS, schema.CORE_ROUNDS), (BET_COLUMNS, schema.CORE_BETS))
        )
    finally:
        con.unregister("day_shoes")
    return rounds, bets.with_columns(*_CATEGORIES), shoes.join(day_shoes, on=["table_id", "shoe_id"], how="semi")


#: How far around the days the table events are read: a shift's neighbours at its table bound its
#: coups when it lacks an opener or a closer, and a shift lasts hours, not a week.
_EVENTS_MARGIN = dt.timedelta(days=7)
EVENT_COLUMNS = ("table_id", "shift_id", "event_id", "event", "recorded_at", "amount", "denominations")
SHIFT_COUP_COLUMNS = ("table_id", "shoe_id", "round_no", "started_at", "game", "decks")
_NO_BETS = {
    **{c: BET_SCHEMA[c] for c in ("table_id", "shoe_id", "round_no", "amount")},
    "game": pl.String, "bet": pl.String, "house_net": MONEY, "theo": settlement.THEO,
}  # fmt: skip


def _events(
    con, days: Sequence[dt.date] | None, config: MartConfig, tables: Sequence[str] | None = None
) -> pl.DataFrame:
    """core.table_events' rows around `days` (all when None), of `tables` (all when None); none
    where the warehouse has no such table (one of a release before the count room)."""
    name = schema.CORE_TABLE_EVENTS
    found = "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?"
    empty = pl.DataFrame(schema={column: EVENT_SCHEMA[column] for column in EVENT_COLUMNS})
    if not con.sql(found, params=name.split(".")).fetchall()[0][0]:
        return empty
    where = []
    if days is not None:
        spans = (config.day.bounds(day, day) for day in days)
        where.append(
            "("
            + " OR ".join(
                f"(recorded_at >= '{(start - _EVENTS_MARGIN).isoformat()}' "
                f"AND recorded_at < '{(end + _EVENTS_MARGIN).isoformat()}')"
                for start, end in spans
            )
            + ")"
        )
    if tables is not None:
        where.append(f"table_id IN ({_listed(tables)})" if tables else "FALSE")
    filtered = f" WHERE {' AND '.join(where)}" if where else ""
    events = con.sql(f"SELECT {', '.join(map(_quoted, EVENT_COLUMNS))} FROM {name}{filtered}").pl()
    return events.cast({column: empty.schema[column] for column in EVENT_COLUMNS})


def _shift_coups(con, spans: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The coups dealt within `spans` (table_id, since, until: `shift_spans`) and their wagers."""
    if spans.height == 0:
        return pl.DataFrame(schema={c: ROUND_SCHEMA[c] for c in SHIFT_COUP_COLUMNS}), pl.DataFrame(schema=_NO_BETS)
    # literal bounds too, so that only the row groups of the spans' times are read
    since = spans["since"].min()
    until = None if spans["until"].null_count() else spans["until"].max()
    near = f"r.started_at >= '{since.isoformat()}'" + (f" AND r.started_at < '{until.isoformat()}'" if until else "")
    con.register("shift_spans", spans)
    try:
        coups = con.sql(
            f"SELECT DISTINCT {', '.join('r.' + _quoted(c) for c in SHIFT_COUP_COLUMNS)} FROM {schema.CORE_ROUNDS} r "
            "JOIN shift_spans s ON r.table_id = s.table_id AND r.started_at >= s.since "
            f"AND (s.until IS NULL OR r.started_at < s.until) WHERE {near}"
        ).pl()
        con.register("shift_coups", coups.select("table_id", "shoe_id", "round_no"))
        bets = con.sql(
            f"SELECT {', '.join(map(_quoted, BET_COLUMNS))} FROM {schema.CORE_BETS} "
            "SEMI JOIN shift_coups USING (table_id, shoe_id, round_no)"
        ).pl()
    finally:
        con.unregister("shift_spans")
        con.unregister("shift_coups")
    return coups, bets


def count_marts(
    events: pl.DataFrame,
    coups: pl.DataFrame,
    bets: pl.DataFrame,
    config: MartConfig,
    days: Sequence[dt.date] | None = None,
) -> Iterator[tuple[str, pl.DataFrame]]:
    """marts.table_shift and marts.count_room of the shifts of `days` (all when None) from the table
    events and the coups (table_id, shoe_id, round_no, started_at, game, decks) and bets of their spans."""
    variance = settlement.house_expectation(config.paytable).select("game", "decks", "bet", "house_variance")
    placed = shift_wagers(bets, coups, variance)
    shifts = table_shifts(events, coups, placed, config.day, config.count_tolerance)
    if days is not None:
        shifts = shifts.filter(pl.col("gaming_day").is_in(list(days)))
    yield schema.MARTS_TABLE_SHIFT, shifts
    yield schema.MARTS_COUNT_ROOM, count_room(shifts)


def _count_marts_of(
    con, days: Sequence[dt.date], config: MartConfig, tables: Sequence[str] | None = None
) -> dict[str, pl.DataFrame]:
    """The count room's marts of `days` (of `tables` only, when given), read from the warehouse."""
    events = _events(con, days, config, tables)
    coups, bets = _shift_coups(con, shift_spans(events, config.day, days))
    return dict(count_marts(events, coups, bets, config, days))


def _every_mart(
    con, db: Path, config: MartConfig, loaded: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame] | None = None
) -> Iterator[tuple[str, pl.DataFrame]]:
    """Every mart of every day, from every core row (`loaded`: `_load`'s, when read already), the
    count room's too, one mart at a time; all is read before the first is computed (the marts are
    stored on the connection meanwhile)."""
    rounds, bets, shoes = _load(con, db, None, config) if loaded is None else loaded
    errors, events = _errors(con, None, config), _events(con, None, config)
    return chain(
        each_mart(rounds, bets, shoes, config, errors),
        count_marts(events, rounds.select(SHIFT_COUP_COLUMNS), bets, config),
    )


def _listed(names: Sequence[str]) -> str:
    return ", ".join("'" + name.replace("'", "''") + "'" for name in names)


def _errors(
    con, days: Sequence[dt.date] | None, config: MartConfig, tables: Sequence[str] | None = None
) -> pl.DataFrame:
    """The dealers' quarantined rows of `days` (all when None) at `tables` (all when None), for dealer pace."""
    bounds = None if days is None else [config.day.bounds(day, day) for day in days]
    return dealer_errors(con, bounds, tables, config.day)


def _quoted(name: str) -> str:
    return f'"{name}"'


def _refit(con, days: Sequence[dt.date] | None, streaks: pl.DataFrame, exists: bool) -> pl.DataFrame:
    """Refit the tenures of the months `days` fall in (all months when None, from `streaks`, the
    tenures just computed; `exists`: the fit is stored already); returns the new rows."""
    period = pl.col("gaming_day").dt.truncate("1mo")
    months = None if days is None else sorted({dt.date(day.year, day.month, 1) for day in days})
    if months is None:
        tenures = streaks
    else:
        # ranges on the day-ordered table read only the months' row groups
        spans = " OR ".join(
            f"(gaming_day >= DATE '{month}' AND gaming_day < DATE '{month}' + INTERVAL 1 MONTH)" for month in months
        )
        tenures = con.sql(
            "SELECT table_id, game, decks, gaming_day, decided, ended_by "
            f"FROM {schema.MARTS_BANKER_STREAKS} WHERE {spans}"
        ).pl()
    fit = tenure_fit(tenures.with_columns(period=period), by=["table_id", "game", "period"])
    con.register("mart_frame", fit)
    if months is None or not exists:
        con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_TENURE_FIT} AS SELECT * FROM mart_frame")
    elif fit.height:
        con.execute(f"DELETE FROM {schema.MARTS_TENURE_FIT} WHERE period IN (SELECT DISTINCT period FROM mart_frame)")
        con.execute(f"INSERT INTO {schema.MARTS_TENURE_FIT} BY NAME SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    return fit


def _rerate(con, comp_rate: Decimal, every: pl.DataFrame | None = None, touched: pl.DataFrame | None = None) -> int:
    """Total the players over every rating stored (all time), in marts.players: all of them (from
    `every`, the ratings, when a full rebuild has them at hand), or only the `touched` players' rows
    (player_id: those with a rating replaced); returns the rows written."""
    if every is not None:
        totals = players(every.lazy(), comp_rate)
    else:  # totalled where the ratings are stored: a day's build does not read the history out
        con.register("touched", pl.DataFrame(schema={"player_id": pl.String}) if touched is None else touched)
        only = "" if touched is None else "WHERE player_id IN (SELECT player_id FROM touched)"
        totals = players_of_totals(con.sql(players_sql(schema.MARTS_PLAYER_SESSIONS, only)).pl(), comp_rate)
    con.register("mart_frame", totals)
    if touched is None:
        con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_PLAYERS} AS SELECT * FROM mart_frame")
    else:
        con.execute(f"DELETE FROM {schema.MARTS_PLAYERS} WHERE player_id IN (SELECT player_id FROM touched)")
        con.execute(f"INSERT INTO {schema.MARTS_PLAYERS} BY NAME SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    if every is None:
        con.unregister("touched")
    return totals.height


def _report(con, rules: Sequence[str]) -> int:
    """marts.statistical_report taken again over every day of marts.count_room (tables x days: small,
    and a day's count changes the month, year and rolling figures after it); the rows written."""
    days = con.sql(f"SELECT table_id, gaming_day, game, drop, win, win_variance FROM {schema.MARTS_COUNT_ROOM}").pl()
    report = statistical_report(days, rules)
    con.register("mart_frame", report)
    con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_STATISTICAL_REPORT} AS SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    return report.height


def _players_kept(con) -> bool:
    """Whether marts.players is stored with this release's columns (so a day's build updates it)."""
    columns = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = ?"
    stored = [name for (name,) in con.execute(columns, [schema.MARTS_PLAYERS.split(".")[1]]).fetchall()]
    return stored == list(PLAYER_COLUMNS)


#: The marts stored (`name`, with its schema) and their columns' names (`columns`).
_MARTS = (
    "WITH marts AS (SELECT table_schema || '.' || table_name AS name, list(column_name) AS columns "
    "FROM information_schema.columns WHERE table_schema = 'marts' GROUP BY ALL)"
)


def _outdated(con, marts: dict[str, pl.DataFrame], fresh: bool = True) -> bool:
    """Whether any mart is missing from the warehouse or stored with other columns than it now has
    (with `fresh` False, a warehouse with no mart at all is not: its marts start with these days)."""
    stored = con.sql(f"{_MARTS} SELECT name, columns FROM marts").fetchall()
    if not stored and not fresh:
        return False
    columns = {name: set(names) for name, names in stored}
    return any(columns.get(name) != set(frame.columns) for name, frame in marts.items())


def build(db: Path, config: MartConfig = MartConfig(), days: Sequence[dt.date] | None = None) -> dict[str, int]:
    """Recompute the marts (of the given gaming days only, or all) and the tenure fit of their
    months, in one transaction; publish. Returns the rows written to each mart."""
    if not db.exists():
        raise WarehouseError(f"no warehouse at {db} yet: run `banco ingest PATH` first")
    with write(db) as con:
        _quiet_checkpoints(con)
        rounds, bets, shoes = _load(con, db, days, config)
        if rounds.height == 0 and days is not None:
            raise WarehouseError(_nothing_on(db, days))
        if rounds.height == 0:
            raise WarehouseError(f"the warehouse at {db} holds no rounds yet: run `banco ingest PATH` first")
        if days is None:  # each mart is stored while the next is computed
            every = _every_mart(con, db, config, (rounds, bets, shoes))
            return store_marts(con, every, None, config.comp_rate, config.report_rules)
        errors = _errors(con, days, config)
        marts = compute_marts(rounds, bets, shoes, config, errors) | _count_marts_of(con, days, config)
        return _store_days(con, db, config, days, marts)


def build_shard(
    db: Path, config: MartConfig, days: Sequence[dt.date], shard: str, sharding: Sharding, run_id: str
) -> dict[str, int]:
    """A sharded build's first stage, on any machine: the marts of `days` over the coups of `shard`'s
    tables alone, each day's stored apart (partials.py) as run `run_id` for `build_from_partials`;
    a day without coups on the shard stores empty marts. Returns the rows stored to each mart."""
    if shard not in sharding.names:
        raise ValueError(f"no shard {shard!r} among {sharding.count} shards: {', '.join(sharding.names)}")
    days = sorted(set(days))
    if not days:
        raise ValueError("a shard's marts are built a gaming day at a time: name the days")
    with current(db) as con:
        known = [table for (table,) in con.sql(f"SELECT DISTINCT table_id FROM {schema.CORE_SHOES}").fetchall()]
        tables = sharding.tables_in(shard, known)
        rounds, bets, shoes = _load(con, db, days, config, tables)
        errors = _errors(con, days, config, tables)
        counted = _count_marts_of(con, days, config, tables)
    marts = compute_marts(rounds, bets, shoes, config, errors) | counted
    rows = dict.fromkeys(marts, 0)
    for day in days:
        # a shoe that began the day before belongs to that day, and is stored with it
        kept = {name: frame.filter(pl.col("gaming_day") == day) for name, frame in marts.items()}
        partials.write(db, day, shard, sharding.count, kept, run_id)
        rows = {name: rows[name] + frame.height for name, frame in kept.items()}
    return rows


def build_from_partials(db: Path, config: MartConfig, days: Sequence[dt.date], sharding: Sharding) -> dict[str, int]:
    """A sharded build's second stage, on the serving host: every shard's marts of `days` (from
    `build_shard`) combined and stored, with the tenure fit of their months, as `build(db, config,
    days)` stores them; publish. Returns the rows written to each mart. When a mart is missing from
    a warehouse that holds others, or stored with other columns (an earlier release's), it rebuilds
    every day from the core tables instead, as `build(db, config)`, and the rows are those of every
    day; a warehouse with no marts yet starts with these days (a run over a range builds them all)."""
    days = sorted(set(days))
    with ThreadPoolExecutor(8) as reader:  # on an object store, most of a read is waiting for it
        parts = list(reader.map(lambda key: partials.read(db, *key, sharding.count), product(days, sharding.names)))
    marts = combine(parts, config.comp_rate, config.surveillance_fdr)
    if not marts or marts[schema.MARTS_TIE_FREQUENCY].height == 0:  # every coup has its table's row there
        raise WarehouseError(_nothing_on(db, days))
    with write(db) as con:
        _quiet_checkpoints(con)
        return _store_days(con, db, config, days, marts, fresh=False)


def _quiet_checkpoints(con) -> None:
    # DuckDB's checkpoint otherwise spends seconds vacuuming the marts' row groups (at ten million
    # coups) on the next few commits after a full rebuild; a full rebuild rewrites them compactly
    con.execute("SET max_vacuum_tasks = 0")


def _nothing_on(db: Path, days: Sequence[dt.date]) -> str:
    asked = ", ".join(str(day) for day in days)
    return f"the warehouse at {db} holds no coups of gaming day {asked}: nothing to build"


def _store_days(
    con, db: Path, config: MartConfig, days: Sequence[dt.date], marts: dict[str, pl.DataFrame], fresh: bool = True
) -> dict[str, int]:
    """Store the marts' rows of `days` (and refit their months), or, when the stored marts are
    outdated (`_outdated`), rebuild every day from the core tables; the rows written to each mart."""
    if _outdated(con, marts, fresh):
        # a mart is missing or its columns changed (a newer release): rebuild every day, not just these
        return store_marts(con, _every_mart(con, db, config), None, config.comp_rate, config.report_rules)
    # a shoe that began the day before belongs to that day
    kept = ((n, f.filter(pl.col("gaming_day").is_in(list(days)))) for n, f in marts.items())
    return store_marts(con, kept, days, config.comp_rate, config.report_rules)


def store_marts(
    con,
    marts: Iterable[tuple[str, pl.DataFrame]],
    days: Sequence[dt.date] | None,
    comp_rate: Decimal = DEFAULTS.comp_rate,
    report_rules: Sequence[str] = DEFAULTS.report_rules,
) -> dict[str, int]:
    """Replace the marts' rows (of `days`, or all), refit the tenures of their months, total the
    players over every stored rating (at `comp_rate`; of `days`, only the players who played on
    them) and take the statistical report again over every stored count-room day (flagging
    `report_rules`), in one transaction, each mart on a thread of its own as `marts` yields it; the
    rows written to each."""
    listed = ", ".join(f"DATE '{day}'" for day in days or ())  # literals let zone maps skip row groups

    def replace(name: str, frame: pl.DataFrame) -> int:
        # stored in gaming-day order, so a day's rows share a few row groups at the table's end:
        # replacing a day then touches those groups only, not one in every table's stretch
        in_day_order = frame if frame["gaming_day"].is_sorted() else frame.sort("gaming_day", maintain_order=True)
        con.register("mart_frame", in_day_order)
        touched = None
        if days is None or name not in stored:
            con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM mart_frame")
        else:
            if name == schema.MARTS_PLAYER_SESSIONS and schema.MARTS_PLAYERS in stored and _players_kept(con):
                # the players whose ratings change: those of the days, before and after
                before = con.sql(f"SELECT DISTINCT player_id FROM {name} WHERE gaming_day IN ({listed})").pl()
                touched = pl.concat([before, frame.select("player_id")]).unique()
            con.execute(f"DELETE FROM {name} WHERE gaming_day IN ({listed})")
            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM mart_frame")
        con.unregister("mart_frame")
        if name == schema.MARTS_BANKER_STREAKS:
            fitted[schema.MARTS_TENURE_FIT] = _refit(con, days, frame, schema.MARTS_TENURE_FIT in stored).height
        if name == schema.MARTS_PLAYER_SESSIONS:
            every = frame if days is None else None
            fitted[schema.MARTS_PLAYERS] = _rerate(con, comp_rate, every, touched)
        if name == schema.MARTS_COUNT_ROOM:
            fitted[schema.MARTS_STATISTICAL_REPORT] = _report(con, report_rules)
        return frame.height

    stored = {name for (name,) in con.sql(f"{_MARTS} SELECT name FROM marts").fetchall()}
    con.execute("BEGIN TRANSACTION")
    fitted: dict[str, int] = {}
    # one writer thread, so the connection runs one statement at a time; DuckDB and Polars both let
    # go of Python's lock, so the next mart is computed meanwhile
    with ThreadPoolExecutor(1) as writer:
        written = {name: writer.submit(replace, name, frame) for name, frame in marts}
    rows = {name: future.result() for name, future in written.items()}
    if schema.MARTS_COUP_EDGES in rows:  # every wager with its edge, read through the stored edges
        edged = wager_edges_sql(schema.CORE_BETS, schema.MARTS_COUP_EDGES)
        con.execute(f"CREATE OR REPLACE VIEW {schema.MARTS_WAGER_EDGES} AS {edged}")
    con.execute("COMMIT")
    return rows | fitted
