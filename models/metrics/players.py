"""The player-rating marts: each rating, each player's gaming day and bets, and each player all time.

`ratings.rate` takes the sums of each rating from the wagers; everything here is arithmetic on
those sums, which pool exactly (money in decimals; minutes and variance as floats), so a player's
day, or all their days, are totalled from their ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import polars as pl

from models.metrics.ratings import Rated
from models.money_units import MONEY_SUM, THEO_SUM
from models.ratios import win_vs_theo_z
from models.settings import DEFAULTS

SESSION_ORDER = ("gaming_day", "table_id", "game", "player_id", "session")
DAY_ORDER = ("gaming_day", "player_id")
BETS_ORDER = ("gaming_day", "player_id", "bet")
#: The sums a player's day and all-time row total from their ratings.
SUMS = ("minutes", "decisions", "wagers", "handle", "handle_main", "handle_side", "house_win", "theo", "win_variance")
SESSION_COLUMNS = (
    "player_id", "table_id", "game", "gaming_day", "session", "started_at", "ended_at", "minutes", "decisions",
    "wagers", "handle", "average_bet", "max_bet", "handle_main", "handle_side", "house_win", "theo", "theo_per_hour",
    "win_variance", "win_vs_theo_z",
)  # fmt: skip


def average_bet() -> pl.Expr:
    """Handle per decision (a coup wagered on), to the cent's hundredth."""
    return (pl.col("handle") / pl.col("decisions")).cast(MONEY_SUM).alias("average_bet")


def theo_per_hour() -> pl.Expr:
    """Theo per hour of play; null where the play lasted no time."""
    hours = pl.col("minutes") / 60
    return pl.when(hours > 0).then(pl.col("theo").cast(pl.Float64) / hours).alias("theo_per_hour")


def comp_value(rate: Decimal) -> pl.Expr:
    """The comps the house gives back: theo x the reinvestment rate, to theo's places."""
    return (pl.col("theo") * pl.lit(Decimal(rate), THEO_SUM)).cast(THEO_SUM).alias("comp_value")


def player_sessions(rated: Rated) -> pl.DataFrame:
    """marts.player_sessions: each rating (numbered within its player's day at the table by the
    pass) with its average bet, theo per hour and z of house win against theo."""
    return (
        rated.sessions.with_columns(
            average_bet(),
            theo_per_hour(),
            win_vs_theo_z().alias("win_vs_theo_z"),
            pl.col("decisions", "wagers").cast(pl.Int64),
        )
        .select(SESSION_COLUMNS)
        .sort(SESSION_ORDER)
    )


def _totals(sessions: pl.LazyFrame, by: tuple[str, ...], comp_rate: Decimal, **first) -> pl.LazyFrame:
    """The ratings' sums per `by`, with what derives from them."""
    sums = sessions.group_by(*by).agg(
        **first,
        sessions=pl.len(),
        tables=pl.col("table_id").n_unique(),
        max_bet=pl.col("max_bet").max(),
        **{name: pl.col(name).sum() for name in SUMS},
    )
    return _derived(sums, comp_rate)


def _derived(sums: pl.LazyFrame, comp_rate: Decimal) -> pl.LazyFrame:
    """Totals of ratings in the marts' types, with average bet, theo per hour, comp value and z."""
    return sums.with_columns(
        pl.col("handle", "handle_main", "handle_side", "house_win", "max_bet").cast(MONEY_SUM),
        pl.col("theo").cast(THEO_SUM),
        pl.col("sessions", "tables", "decisions", "wagers").cast(pl.Int64),
    ).with_columns(average_bet(), theo_per_hour(), comp_value(comp_rate), win_vs_theo_z().alias("win_vs_theo_z"))


def player_day(sessions: pl.DataFrame, comp_rate: Decimal = DEFAULTS.comp_rate) -> pl.DataFrame:
    """marts.player_day: per player and gaming day, their ratings totalled (sessions, distinct tables)."""
    columns = (
        "player_id", "gaming_day", "sessions", "tables", "minutes", "decisions", "wagers", "handle", "average_bet",
        "max_bet", "handle_main", "handle_side", "house_win", "theo", "theo_per_hour", "comp_value", "win_variance",
        "win_vs_theo_z",
    )  # fmt: skip
    return _totals(sessions.lazy(), DAY_ORDER, comp_rate).select(columns).sort(DAY_ORDER).collect()


PLAYER_COLUMNS = (
    "player_id", "first_visit", "last_visit", "visits", "sessions", "tables", "minutes", "decisions", "wagers",
    "handle", "average_bet", "max_bet", "house_win", "theo", "theo_per_hour", "comp_value", "win_variance",
    "win_vs_theo_z",
)  # fmt: skip


def players(sessions: pl.LazyFrame, comp_rate: Decimal = DEFAULTS.comp_rate) -> pl.DataFrame:
    """marts.players: per player over every rating stored, the list a host sorts: first and last
    visit, visits (gaming days played), totals, average bet, theo and z."""
    visits = {
        "first_visit": pl.col("gaming_day").min(),
        "last_visit": pl.col("gaming_day").max(),
        "visits": pl.col("gaming_day").n_unique().cast(pl.Int64),
    }
    totals = _totals(sessions, ("player_id",), comp_rate, **visits)
    return totals.select(PLAYER_COLUMNS).sort("player_id").collect()


def players_sql(table: str, where: str = "") -> str:
    """The query that totals `table`'s ratings (those `where` keeps) per player in the database, as
    `players` groups them (the ratings stay where they are stored): its rows go to `players_of_totals`."""
    sums = ", ".join(f"sum({name}) AS {name}" for name in SUMS)
    return (
        "SELECT player_id, min(gaming_day) AS first_visit, max(gaming_day) AS last_visit, "
        "count(DISTINCT gaming_day) AS visits, count(*) AS sessions, count(DISTINCT table_id) AS tables, "
        f"max(max_bet) AS max_bet, {sums} FROM {table} {where} GROUP BY player_id"
    )


def players_of_totals(totals: pl.DataFrame, comp_rate: Decimal = DEFAULTS.comp_rate) -> pl.DataFrame:
    """marts.players from the per-player totals of `players_sql`."""
    return _derived(totals.lazy(), comp_rate).select(PLAYER_COLUMNS).sort("player_id").collect()


def player_bets(cells: pl.DataFrame) -> pl.DataFrame:
    """marts.player_bets: per player, gaming day and bet (`Rated.player_bets`, in this order
    already), wagers, handle, house win, theo and variance."""
    return cells.select(
        "player_id",
        "gaming_day",
        "bet",
        pl.col("wagers").cast(pl.Int64),
        pl.col("handle", "house_win").cast(MONEY_SUM),
        pl.col("theo").cast(THEO_SUM),
        "win_variance",
    )


def player_bets_retotalled(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """marts.player_bets of several shards' player_bets (their sums pool exactly), in its order."""
    sums = pl.concat(frames, how="vertical").lazy().group_by(*BETS_ORDER)
    totals = sums.agg(pl.col("wagers", "handle", "house_win", "theo", "win_variance").sum())
    return player_bets(totals.sort(BETS_ORDER).collect())
