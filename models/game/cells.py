"""A coup's settlement cell: the four facts every bet settles on, and the cell's number.

A cell is (player total, banker total, player drew, banker drew), the axes of CELL_SHAPE;
`cell_index` numbers the cells 0..CELLS - 1 in C order over those axes, the order of the exact-odds
weights. It is plain arithmetic, so the kernels compile this same function (`compiled_cell_index`)
and `cell_expr` applies it to Polars expressions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from models.game.outcome import outcome
from models.kernel_cache import compiled_twins

if TYPE_CHECKING:  # the Polars forms import it when called: the odds need none of it
    import polars as pl

#: Axes of a coup cell: player total, banker total, player drew (0/1), banker drew (0/1).
CELL_SHAPE = (10, 10, 2, 2)
CELLS = int(np.prod(CELL_SHAPE))


def cell_index(player_total, banker_total, player_drew, banker_drew):
    """The cell's number: ints (or flags) in, an int out."""
    return ((player_total * 10 + banker_total) * 2 + player_drew) * 2 + banker_drew


#: `cell_index` compiled for the kernels, `compiled_cell_index`, made when the first of them imports it.
__getattr__ = compiled_twins(__name__, globals(), compiled_cell_index=cell_index)


def cell_expr(player_total: pl.Expr, banker_total: pl.Expr, player_drew: pl.Expr, banker_drew: pl.Expr) -> pl.Expr:
    """`cell_index` per row, as Int16 (the flags may be booleans); null where any fact is."""
    import polars as pl

    return cell_index(*(fact.cast(pl.Int16) for fact in (player_total, banker_total, player_drew, banker_drew)))


def _facts() -> np.ndarray:
    facts = np.empty((CELLS, len(CELL_SHAPE)), np.int8)
    for cell in np.ndindex(*CELL_SHAPE):
        facts[cell_index(*cell)] = cell
    facts.flags.writeable = False
    return facts


#: Row c: the facts of cell c (player total, banker total, player drew, banker drew).
CELL_FACTS = _facts()
#: The outcome of each cell, by cell number.
CELL_OUTCOMES = np.array([outcome(int(player), int(banker)) for player, banker, _, _ in CELL_FACTS], dtype=object)
CELL_OUTCOMES.flags.writeable = False
