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

if TYPE_CHECKING:  # the Polars forms import it when called: the odds need none of it
    import polars as pl

#: Axes of a coup cell: player total, banker total, player drew (0/1), banker drew (0/1).
CELL_SHAPE = (10, 10, 2, 2)
CELLS = int(np.prod(CELL_SHAPE))


def cell_index(player_total, banker_total, player_drew, banker_drew):
    """The cell's number: ints (or flags) in, an int out."""
    return ((player_total * 10 + banker_total) * 2 + player_drew) * 2 + banker_drew


def __getattr__(name: str):
    """`compiled_cell_index`: `cell_index` itself, compiled for the kernels (inlined where they call it) when
    the first of them is imported, so what runs no kernel (`banco odds` reading odds it kept) needs no numba."""
    if name != "compiled_cell_index":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from numba import njit

    compiled = globals()[name] = njit(inline="always", cache=True)(cell_index)
    return compiled


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
