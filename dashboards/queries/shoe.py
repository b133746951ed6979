"""The Shoe explorer's reads, and the odds lab's: the filtered shoes, one shoe's coups, every shoe's outcomes."""

from __future__ import annotations

import polars as pl

from dashboards import filters, query
from models.warehouse import schema

SHOES = f"SELECT * FROM {schema.MARTS_SHOE_SUMMARY} WHERE {{where}} ORDER BY table_id, gaming_day, shoe_id"
COUPS = (
    "SELECT round_no, started_at, dealer_id, player_cards, banker_cards, player2_cards, player_total, banker_total, "
    'player2_total, outcome, outcome2, "natural", player_pair, banker_pair, has_cards '
    f"FROM {schema.CORE_ROUNDS} WHERE table_id = $table AND shoe_id = $shoe ORDER BY round_no"
)
#: Every shoe's outcomes in order, with its game and decks (the largest logged, as marts.shoe_summary says).
OUTCOMES = (
    "SELECT table_id, shoe_id, any_value(game) AS game, max(decks) AS decks, list(outcome ORDER BY round_no) "
    f"AS outcomes FROM {schema.CORE_ROUNDS} GROUP BY table_id, shoe_id"
)


def shoes(f: filters.Filters) -> pl.DataFrame:
    """The filtered shoes as marts.shoe_summary holds them, by table, gaming day and shoe."""
    return f.frame(SHOES, "shoe")


def coups(table_id: str, shoe_id: str) -> pl.DataFrame:
    """The shoe's coups in order, with their cards."""
    return query.frame(COUPS, {"table": table_id, "shoe": shoe_id})


def outcomes() -> pl.DataFrame:
    return query.frame(OUTCOMES)
