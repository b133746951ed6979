"""The Overview's reads: the coups by game and decks, the money and the commission within the filters, and
their trends by gaming day."""

from __future__ import annotations

from typing import Any

import polars as pl

from dashboards import filters, query
from models.ratios import on_handle
from models.warehouse import schema

VOLUME = (
    "SELECT game, decks, sum(coups)::BIGINT AS coups, sum(banker)::BIGINT AS banker, sum(player)::BIGINT AS player, "
    "sum(ties)::BIGINT AS ties, count(*) AS shoes, list(DISTINCT table_id) AS tables, "
    f"list(DISTINCT gaming_day) AS days FROM {schema.MARTS_SHOE_SUMMARY} WHERE {{where}} GROUP BY game, decks"
)
#: marts.table_day's sums, for `on_handle`.
SUMS = "sum(handle) AS handle, sum(house_win) AS house_win, sum(theo) AS theo, sum(win_variance) AS win_variance"
MONEY = f"SELECT {SUMS} FROM {schema.MARTS_TABLE_DAY} WHERE {{where}}"
REVENUE = (
    "SELECT sum(commission) AS commission, sum(cagnotte) AS cagnotte, sum(expected_commission) AS expected "
    f"FROM {schema.MARTS_COMMISSION} WHERE {{where}}"
)
#: The quarantined coups of the filtered table-days and the stake on them (a table-day's figures sit on
#: each of its games' rows: counted once).
HOLES = (
    "SELECT sum(quarantined_coups)::BIGINT AS coups, sum(quarantined_handle) AS handle FROM (SELECT DISTINCT "
    f"table_id, gaming_day, quarantined_coups, quarantined_handle FROM {schema.MARTS_TABLE_DAY} WHERE {{where}})"
)
TREND = (
    f"SELECT gaming_day, {SUMS} FROM {schema.MARTS_TABLE_DAY} WHERE {{where}} GROUP BY gaming_day ORDER BY gaming_day"
)
DAILY = (
    "SELECT gaming_day, sum(coups)::BIGINT AS coups, sum(ties) / sum(coups) AS tie_rate "
    f"FROM {schema.MARTS_SHOE_SUMMARY} WHERE {{where}} GROUP BY gaming_day ORDER BY gaming_day"
)


def volume(f: filters.Filters) -> pl.DataFrame:
    """Coups, Banker, Player and Tie wins, shoes, tables and days per game and decks in the filtered shoes."""
    return f.frame(VOLUME, "shoe")


def money(f: filters.Filters) -> dict[str, Any]:
    """Handle, house win and theo of the filtered table-days, with win and theo over handle (None without bets)."""
    where, params = f.where("table_day")
    return on_handle(query.frame(MONEY.format(where=where), params)).row(0, named=True)


def holes(f: filters.Filters) -> dict[str, Any]:
    """The filtered table-days' quarantined coups and the stake on them."""
    where, params = f.where("table_day")
    return query.frame(HOLES.format(where=where), params).row(0, named=True)


def revenue(f: filters.Filters) -> dict[str, Any]:
    """Commission, cagnotte and the commission expected of the filtered table-days."""
    where, params = f.where("table_day")
    return query.frame(REVENUE.format(where=where), params).row(0, named=True)


def trend(f: filters.Filters) -> pl.DataFrame:
    """Per gaming day: handle, house win, theo, and win and theo over handle."""
    where, params = f.where("table_day")
    return on_handle(query.frame(TREND.format(where=where), params))


def daily(f: filters.Filters) -> pl.DataFrame:
    """Per gaming day of the filtered shoes: coups and the tie rate."""
    return f.frame(DAILY, "shoe")
