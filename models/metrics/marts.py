"""Every mart, computed from frames of the core rows: no reading, no writing (build.py does both).

`each_mart` yields the day-grained marts one at a time, the largest first, so that a caller can store
each while the next is computed; `count_marts` the count room's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence

import polars as pl

from models.gaming_day import gaming_day, shoe_day
from models.metrics import count_attribution
from models.metrics.config import MartConfig
from models.metrics.count_room import count_room, shift_wagers, table_shifts
from models.metrics.coup_edges import coup_edges
from models.metrics.coups import Coups, number
from models.metrics.dealer_errors import SCHEMA as ERRORS_SCHEMA
from models.metrics.decisions import GAMES as CHOICE_GAMES
from models.metrics.decisions import decision_summary, decisions
from models.metrics.money import (
    commission_per_unit,
    commission_sums,
    commission_totals,
    table_day_sums,
    table_day_totals,
    wagers,
)
from models.metrics.pace import dealer_pace
from models.metrics.players import player_bets, player_day, player_sessions
from models.metrics.ratings import coup_rows, joined_coup_rows, rate
from models.metrics.shoes import shoe_summary
from models.metrics.side_bets import side_bets
from models.metrics.streaks import SHOE, bank_tenures, decision_runs, with_banks
from models.metrics.surveillance import surveillance_by_tables, surveillance_flags, surveillance_player_day
from models.metrics.ties import tie_frequency, ties_by_total
from models.metrics.wager_sums import stint_sums
from models.money_units import MONEY
from models.ratios import quarantined_pct
from models.warehouse import schema, settlement

DAY = ["gaming_day"]


def compute_marts(
    rounds: pl.DataFrame,
    bets: pl.DataFrame,
    shoes: pl.DataFrame,
    config: MartConfig,
    errors: pl.DataFrame | None = None,
    edges: pl.DataFrame | None = None,
    quarantined: tuple[pl.DataFrame, pl.DataFrame] | None = None,
) -> dict[str, pl.DataFrame]:
    """Every day-grained mart from the core tables, as frames keyed by table name; `errors`: the
    dealers' quarantined rows (`dealer_errors`), none when not given; `edges`: marts.coup_edges'
    rows kept from an earlier build, of whole shoes (the other shoes' edges are computed);
    `quarantined`: the quarantined coups and wagers around the days (loading.quarantined_of_days)."""
    return dict(each_mart(rounds, bets, shoes, config, errors, edges, quarantined))


def each_mart(
    rounds: pl.DataFrame,
    bets: pl.DataFrame,
    shoes: pl.DataFrame,
    config: MartConfig,
    errors: pl.DataFrame | None = None,
    edges: pl.DataFrame | None = None,
    quarantined: tuple[pl.DataFrame, pl.DataFrame] | None = None,
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
    shoe_days = lazy.select("table_id", "shoe_id", gaming_day="shoe_day").unique().collect()
    holes = _quarantined_by_day(quarantined, shoe_days, config)
    yield schema.MARTS_TABLE_DAY, with_holes(table_day_totals(money, ("table_id", "gaming_day")), holes)
    # each dealer's stint at a table on a day: the drill-down reads this, never the wagers
    yield schema.MARTS_DEALER_DAY, table_day_totals(money, stint)
    errors = pl.DataFrame(schema=ERRORS_SCHEMA) if errors is None else errors
    yield schema.MARTS_DEALER_PACE, dealer_pace(lazy, errors, config.pace_break_minutes, in_order=True)
    # the ratings before the marts of shoes and ties: their rows are stored while those are computed
    yield from _rating_marts(bets, coups, lazy, variance, config, edges)
    # every free draw of the player-banked games with choices, rated
    rated = decisions(
        lazy.filter(pl.col("game").cast(pl.String).is_in(CHOICE_GAMES)).collect(), bets, config.paytable, config.day
    )
    yield schema.MARTS_DECISIONS, rated
    yield schema.MARTS_DECISION_SUMMARY, decision_summary(rated)
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


def _quarantined_by_day(
    quarantined: tuple[pl.DataFrame, pl.DataFrame] | None, shoe_days: pl.DataFrame, config: MartConfig
) -> pl.DataFrame:
    """Per table and gaming day: its quarantined coups and the stake on them (count_attribution)."""
    coups, wagers = quarantined or (
        pl.DataFrame(schema=count_attribution.COUP_SCHEMA),
        pl.DataFrame(schema=count_attribution.WAGER_SCHEMA),
    )
    return count_attribution.by_table_day(coups, wagers, shoe_days, config.day)


def with_holes(table_day: pl.DataFrame, holes: pl.DataFrame) -> pl.DataFrame:
    """marts.table_day's rows with their table-day's quarantined coups, the stake on them
    (`quarantined_handle`) and its share of the handle logged and quarantined (`quarantined_handle_pct`):
    a quiet day told from a day with a hole in its log."""
    day = ["table_id", "gaming_day"]
    return (
        table_day.join(holes, on=day, how="left")
        .with_columns(
            pl.col("quarantined_coups").fill_null(0).cast(pl.UInt32),
            pl.col("quarantined_handle").fill_null(0).cast(MONEY),
        )
        .with_columns(quarantined_handle_pct=quarantined_pct("quarantined_handle", pl.col("handle").sum().over(day)))
    )


def _rating_marts(
    bets: pl.DataFrame,
    coups: Coups | None,
    lazy: pl.LazyFrame,
    variance: pl.DataFrame,
    config: MartConfig,
    edges: pl.DataFrame | None,
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
    yield from _surveillance_marts(rows, bets, sessions, config, edges)


def _surveillance_marts(
    rows: pl.DataFrame, bets: pl.DataFrame, sessions: pl.DataFrame, config: MartConfig, kept: pl.DataFrame | None
) -> Iterator[tuple[str, pl.DataFrame]]:
    """Every bet's edge before each coup (`kept`'s shoes' as kept), each rating's evidence, each
    player's day and the flags (docs/surveillance.md)."""
    edges = _edges(rows, config, kept)
    yield schema.MARTS_COUP_EDGES, edges
    watched = surveillance_by_tables(bets, rows, sessions, edges, max_bet=config.max_bet, side_max=config.side_max)
    yield schema.MARTS_SURVEILLANCE_SESSIONS, watched
    days = surveillance_player_day(watched)
    yield schema.MARTS_SURVEILLANCE_PLAYER_DAY, days
    yield schema.MARTS_SURVEILLANCE_FLAGS, surveillance_flags(watched, days, config.surveillance_fdr)


def _edges(rows: pl.DataFrame, config: MartConfig, kept: pl.DataFrame | None) -> pl.DataFrame:
    """marts.coup_edges of the coups of `rows`: `kept`'s rows, and those of every other shoe computed."""
    if kept is None:
        return coup_edges(rows, config.paytable, config.day)
    shoes = kept.select(SHOE).unique()
    fresh = coup_edges(rows.join(shoes, on=SHOE, how="anti"), config.paytable, config.day)
    # in coup_edges' order (as computed whole)
    return pl.concat([kept.select(fresh.columns).cast(fresh.schema), fresh]).sort("gaming_day", *SHOE, "round_no")


def count_marts(
    events: pl.DataFrame,
    coups: pl.DataFrame,
    bets: pl.DataFrame,
    config: MartConfig,
    days: Sequence[dt.date] | None = None,
    quarantined: tuple[pl.DataFrame, pl.DataFrame] | None = None,
) -> Iterator[tuple[str, pl.DataFrame]]:
    """marts.table_shift and marts.count_room of the shifts of `days` (all when None) from the table
    events and the coups (table_id, shoe_id, round_no, started_at, game, decks) and bets of their spans,
    and the quarantined coups and wagers around them (`table_shifts`' `quarantined`)."""
    variance = settlement.house_expectation(config.paytable).select("game", "decks", "bet", "house_variance")
    placed = shift_wagers(bets, coups, variance)
    shifts = table_shifts(events, coups, placed, config.day, config.count_tolerance, quarantined, days)
    yield schema.MARTS_TABLE_SHIFT, shifts
    yield schema.MARTS_COUNT_ROOM, count_room(shifts)
