"""The Ties page's reads: each grouping's totals, its groups furthest from the exact rate and those flagged,
and the ties by total."""

from __future__ import annotations

from typing import Any

import polars as pl

from dashboards import filters, query
from models.warehouse import schema

#: Grouping -> (mart, its grain for the filters, the columns naming a group).
GROUPS = {
    "Table × gaming day": (schema.MARTS_TIE_FREQUENCY, "table_day", "table_id, gaming_day"),
    "Shoe": (schema.MARTS_TIE_FREQUENCY_BY_SHOE, "shoe", "table_id, shoe_id, gaming_day"),
    "Dealer × gaming day": (schema.MARTS_TIE_FREQUENCY_BY_DEALER, "dealer", "dealer_id, gaming_day"),
}
STATS = "game, decks, coups, ties, tie_rate, expected_rate, ci_low, ci_high, z, p_value, q_value, flagged"
#: The groups' ties over their coups, and the exact rate their mix of games and decks expects.
TOTALS = (
    "SELECT count(*) AS groups, sum(coups)::BIGINT AS coups, sum(ties)::BIGINT AS ties, "
    "sum(ties) / sum(coups) AS tie_rate, sum(coups * expected_rate) / sum(coups) AS expected_rate, "
    "count(*) FILTER (WHERE flagged) AS flagged FROM {mart} WHERE {where} HAVING count(*) > 0"
)
BY_TOTAL = (
    "SELECT tie_total, sum(ties)::BIGINT AS ties, sum(expected_ties) AS expected_ties "
    f"FROM {schema.MARTS_TIES_BY_TOTAL} WHERE {{where}} GROUP BY tie_total ORDER BY tie_total"
)


def _grouped(f: filters.Filters, grouping: str) -> tuple[str, str, str, dict[str, Any]]:
    mart, grain, names = GROUPS[grouping]
    where, params = f.where(grain)
    return mart, names, where, params


def totals(f: filters.Filters, grouping: str) -> pl.DataFrame:
    """One row of the filtered groups' totals, none when no group is in the filters."""
    mart, _, where, params = _grouped(f, grouping)
    return query.frame(TOTALS.format(mart=mart, where=where), params)


def furthest(f: filters.Filters, grouping: str, limit: int) -> pl.DataFrame:
    """The flagged groups first, then those furthest from the exact rate (by |z|), at most `limit`."""
    mart, names, where, params = _grouped(f, grouping)
    return query.frame(
        f"SELECT {names}, {STATS} FROM {mart} WHERE {where} ORDER BY flagged DESC, abs(z) DESC LIMIT {int(limit)}",
        params,
    )


def flagged(f: filters.Filters, grouping: str) -> pl.DataFrame:
    """The flagged groups, the smallest q-value (the one that decides the flag) first (500 at most)."""
    mart, names, where, params = _grouped(f, grouping)
    return query.frame(
        f"SELECT {names}, {STATS} FROM {mart} WHERE flagged AND {where} ORDER BY q_value, p_value LIMIT 500", params
    )


def by_total(f: filters.Filters) -> pl.DataFrame:
    """Ties seen and expected on each total 0..9 in the filtered table-days."""
    return f.frame(BY_TOTAL, "table_day")
