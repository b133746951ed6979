"""The Systems lab's read: the filtered shoes' outcomes, for the back-test and the patterns' calibration."""

from __future__ import annotations

from dashboards import filters, query
from models.systems import lab


def shoes(f: filters.Filters, game: str, decks: int) -> tuple[tuple[str, ...], ...]:
    """The filtered shoes of `game` and `decks`, each as its outcomes in order."""
    where, params = f.shoes()
    sql = lab.WAREHOUSE_SHOES.format(where="" if where == "TRUE" else f" AND {where}")
    frame = query.frame(sql, {**params, "game": game, "decks": decks})
    return tuple(tuple(outcomes) for outcomes in frame["outcomes"].to_list())
