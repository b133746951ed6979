"""The Tables and dealers page's reads: each table's and each side bet's results with their holds and z, the
dealers' ties, commission and pace, one table's days and one dealer's stints."""

from __future__ import annotations

from typing import Any

import polars as pl

from dashboards import filters, query
from models.ratios import on_handle
from models.warehouse import schema

ERRORS = ("quarantined", "tableau_violations", "outcome_mismatches", "payout_mismatches")
#: The sums `on_handle` takes its ratios from (marts.table_day's, marts.side_bets', marts.dealer_day's).
SUMS = (
    "sum(wagers)::BIGINT AS wagers, sum(handle) AS handle, sum(house_win) AS house_win, sum(theo) AS theo, "
    "sum(win_variance) AS win_variance"
)
DAYS = (
    "SELECT table_id, game, gaming_day, wagers, handle, house_win, theo, win_variance, win_over_handle, "
    "theo_over_handle, win_vs_theo_z, quarantined_coups, quarantined_handle_pct "
    f"FROM {schema.MARTS_TABLE_DAY} WHERE {{where}}"
)
#: Per table over the filtered days: the wagers' sums beside the coups and the pace of its shoes.
TABLES = (
    f"SELECT table_id, game, pace.coups, pace.coups_per_hour, {SUMS} FROM {schema.MARTS_TABLE_DAY} "
    "LEFT JOIN (SELECT table_id, sum(rounds)::BIGINT AS coups, sum(rounds - 1) / (sum(epoch(last_started_at) - "
    f"epoch(first_started_at)) / 3600) AS coups_per_hour FROM {schema.CORE_SHOES} WHERE {{shoes}} GROUP BY table_id) "
    "pace USING (table_id) WHERE {where} GROUP BY ALL"
)
SIDE_BETS = f"SELECT bet, {SUMS} FROM {schema.MARTS_SIDE_BETS} WHERE {{where}} GROUP BY bet ORDER BY handle DESC, bet"
DEALERS = (
    "SELECT dealer_id, sum(coups)::BIGINT AS coups, sum(ties)::BIGINT AS ties, sum(ties) / sum(coups) AS tie_rate, "
    f"count(*) FILTER (WHERE flagged) AS flagged_days FROM {schema.MARTS_TIE_FREQUENCY_BY_DEALER} WHERE {{where}} "
    "GROUP BY dealer_id ORDER BY coups DESC"
)
DEALER_COMMISSION = (
    "SELECT dealer_id, sum(commission + cagnotte) AS commission, sum(banker_handle) AS banker_handle "
    f"FROM {schema.MARTS_COMMISSION_BY_DEALER} WHERE {{where}} GROUP BY dealer_id"
)
#: A dealer's pace pooled over their rows: the gaps counted over the hours dealt (coups_per_hour x minutes
#: is a row's gaps), and the house median weighted by the same minutes (the pace the house's median
#: dealer would have kept over those hours).
PACE = (
    "SELECT dealer_id, game, tables, days, coups, hours, pace AS coups_per_hour, median AS house_median, "
    f"pace / median AS pace_vs_median, {', '.join(ERRORS)} FROM (SELECT dealer_id, game, "
    "count(DISTINCT table_id)::BIGINT AS tables, count(DISTINCT gaming_day)::BIGINT AS days, "
    "sum(coups)::BIGINT AS coups, sum(minutes) / 60 AS hours, "
    "nullif(sum(minutes) FILTER (WHERE coups_per_hour IS NOT NULL), 0) AS paced, "
    "sum(coups_per_hour * minutes) / paced AS pace, sum(house_median * minutes) / paced AS median, "
    + ", ".join(f"sum({name})::BIGINT AS {name}" for name in ERRORS)
    + f" FROM {schema.MARTS_DEALER_PACE} WHERE {{where}} GROUP BY dealer_id, game) "
    "ORDER BY pace_vs_median NULLS LAST, dealer_id, game"
)
#: A dealer's stints (dealer x table x day) summed per game.
STINTS = (
    f"SELECT game, {SUMS} FROM {schema.MARTS_DEALER_DAY} WHERE dealer_id = $dealer AND {{where}} "
    "GROUP BY game ORDER BY game"
)
#: The coups a dealer dealt, and their pace over each shoe's stretch they dealt.
DEALT = (
    "SELECT sum(n)::BIGINT AS coups, sum(n - 1) / (sum(seconds) / 3600) AS coups_per_hour FROM ("
    "SELECT count(*) AS n, epoch(max(started_at)) - epoch(min(started_at)) AS seconds "
    f"FROM {schema.CORE_ROUNDS} r WHERE r.dealer_id = $dealer AND {{where}} GROUP BY table_id, shoe_id)"
)


def days(f: filters.Filters) -> pl.DataFrame:
    """The filtered table-days with their holds and z as marts.table_day holds them."""
    return f.frame(DAYS, "table_day")


def tables(f: filters.Filters) -> pl.DataFrame:
    """Per table and game over the filtered days: coups, pace, the wagers' sums, their holds and z, the
    furthest above theo first."""
    where, params = f.where("table_day")
    shoes, more = f.shoes()
    pooled = on_handle(query.frame(TABLES.format(where=where, shoes=shoes), params | more))
    return pooled.sort("win_vs_theo_z", descending=True, nulls_last=True)


def side_bets(f: filters.Filters) -> pl.DataFrame:
    """Per side bet (the tie among them) over the filtered days: the sums, their holds and z."""
    where, params = f.where("table_day")
    return on_handle(query.frame(SIDE_BETS.format(where=where), params))


def dealers(f: filters.Filters, bets: bool = True) -> pl.DataFrame:
    """Per dealer: coups, ties, the tie rate and flagged days and, from the `bets`, commission."""
    where, params = f.where("dealer")
    found = query.frame(DEALERS.format(where=where), params)
    if not bets:
        return found
    return found.join(query.frame(DEALER_COMMISSION.format(where=where), params), on="dealer_id", how="left")


def dealer_pace(f: filters.Filters) -> pl.DataFrame:
    """Per dealer and game: pace against the house median, and the dealer's errors."""
    return f.frame(PACE, "stint")


def stints(f: filters.Filters, dealer: str) -> pl.DataFrame:
    """The dealer's wagers per game over the filtered days, with their holds and the exact pooled z."""
    where, params = f.where("table_day")
    return on_handle(query.frame(STINTS.format(where=where), params | {"dealer": dealer}))


def dealt(f: filters.Filters, dealer: str) -> dict[str, Any]:
    """The coups the dealer dealt in the filtered days, and their pace."""
    where, params = f.where("round", alias="r")
    return query.frame(DEALT.format(where=where), params | {"dealer": dealer}).row(0, named=True)
