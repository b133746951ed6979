"""The Commission page's reads: revenue by gaming day, game, table and dealer, and the winning Banker
wagers the what-if recomputes."""

from __future__ import annotations

import polars as pl

from dashboards import filters, query
from models.warehouse import schema

REVENUE = (
    "sum(commission + cagnotte) AS revenue, sum(expected_commission) AS expected_commission, "
    "sum(banker_handle) AS banker_handle, sum(banker_won)::BIGINT AS banker_won, "
    "sum(super6_reduction) AS super6_reduction, sum(ez_reduction) AS ez_reduction"
)
BY_DAY = f"SELECT gaming_day, game, {REVENUE} FROM {schema.MARTS_COMMISSION} WHERE {{where}} GROUP BY ALL ORDER BY ALL"
BY_GAME = f"SELECT game, {REVENUE} FROM {schema.MARTS_COMMISSION} WHERE {{where}} GROUP BY game ORDER BY revenue DESC"
BY_TABLE = (
    f"SELECT table_id, game, {REVENUE} FROM {schema.MARTS_COMMISSION} WHERE {{where}} GROUP BY ALL "
    "ORDER BY revenue DESC"
)
BY_DEALER = (
    f"SELECT dealer_id, {REVENUE} FROM {schema.MARTS_COMMISSION_BY_DEALER} WHERE {{where}} GROUP BY dealer_id "
    "ORDER BY revenue DESC"
)
#: The winning Banker wagers that paid commission, counted by game and amount (all the what-if needs).
WON = (
    f"SELECT game, amount, count(*) AS wagers, sum(commission) AS logged FROM {schema.CORE_BETS} "
    "WHERE bet = 'banker' AND commission > 0 AND {where} GROUP BY game, amount"
)


def by_day(f: filters.Filters) -> pl.DataFrame:
    return f.frame(BY_DAY, "table_day")


def by_game(f: filters.Filters) -> pl.DataFrame:
    return f.frame(BY_GAME, "table_day")


def by_table(f: filters.Filters) -> pl.DataFrame:
    return f.frame(BY_TABLE, "table_day")


def by_dealer(f: filters.Filters) -> pl.DataFrame:
    return f.frame(BY_DEALER, "dealer")


def won(f: filters.Filters) -> pl.DataFrame:
    """The filtered shoes' winning Banker wagers that paid commission, by game and amount."""
    where, params = f.shoes()
    return query.frame(WON.format(where=where), params)
