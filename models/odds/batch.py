"""The exact engine over many compositions at once: every bet's house edge for each row.

A public function over a private compiled kernel. The weights come from `models.odds.lanes`, the
enumeration of `models.odds.kernel.outcome_weights` over LANES rows at once (the same exact
integers), the payoffs from the one settlement grid (`exact._payoffs`) and the pair bets from the
chance of a pair as `ExactOdds.p_pair` reckons it, so a row's edges are those
`exact_odds(...).bets()` gives for its composition.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from models.game.cells import CELLS
from models.game.games import Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PAIR_BETS, PayTable
from models.game.shoe import MIN_CARDS_FOR_A_COUP
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, draw_table
from models.odds.exact import _payoffs
from models.odds.lanes import LANES, lane_weights

#: Columns of `values`: the count of each point value 0..9.
VALUE_COLUMNS = 10
#: Columns of `ranks`: the count of each rank A..K (index 0 the aces).
RANK_COLUMNS = 13
#: A `ranks` row holding this (in any column) says the ranks are unknown.
UNKNOWN_RANKS = -1
#: Bits of each count in a row's packed key (eight decks hold 128 ten-value cards, 32 of the others).
_KEY_BITS = np.array([8] + [6] * (VALUE_COLUMNS - 1))
_KEY_SHIFTS = np.concatenate([[0], np.cumsum(_KEY_BITS)[:-1]])
#: Where each bet's edge sits in a row of the result: its index in BETS.
BET_COLUMN = {bet: i for i, bet in enumerate(BETS)}


def house_edges(
    values: np.ndarray,
    ranks: np.ndarray | None,
    game: Game,
    paytable: PayTable = DEFAULT_PAYTABLE,
    policy: DrawPolicy = DEFAULT_POLICY,
) -> np.ndarray:
    """House edge of every bet (float64 (n, len(BETS)), columns in BETS order) for each composition.

    `values`: int (n, VALUE_COLUMNS), the cards left by point value. `ranks`: int (n, RANK_COLUMNS),
    the same cards by rank, or None (or a row holding UNKNOWN_RANKS) where the ranks are unknown.
    NaN where an edge cannot be told: the pair bets without ranks, every bet of a row with fewer
    than MIN_CARDS_FOR_A_COUP cards.
    """
    values = _counts(values, VALUE_COLUMNS, "values")
    names, payoffs = _payoffs(game, paytable)
    table = draw_table(game, policy)
    # a composition that recurs (every shoe's first coup, many second ones) is enumerated once
    distinct, inverse = _distinct_rows(values)
    main = np.full((len(distinct), len(BETS)), np.nan)
    dealable = np.flatnonzero(distinct.sum(axis=1) >= MIN_CARDS_FOR_A_COUP)
    edges = np.full((len(dealable), len(BETS)), np.nan)
    columns = np.array([BET_COLUMN[name] for name in names], np.int64)
    _main_edges(distinct[dealable], np.ascontiguousarray(payoffs), columns, table.player, table.banker, edges)
    main[dealable] = edges
    out = main[inverse]
    if ranks is not None:
        counted, known = _rank_counts(ranks, values)
        pair = _pair_edges(counted[known], values[known].sum(axis=1), paytable)
        for bet in PAIR_BETS:
            out[known, BET_COLUMN[bet]] = pair
    return out


def _counts(array: np.ndarray, columns: int, name: str) -> np.ndarray:
    """`array` as int64 (n, columns) of non-negative counts, or a clear error."""
    array = np.asarray(array)
    if array.ndim != 2 or array.shape[1] != columns or array.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an int array of shape (n, {columns}), got {array.dtype} {array.shape}")
    if (array < 0).any():
        raise ValueError(f"{name} counts must be 0 or more")
    return np.ascontiguousarray(array, dtype=np.int64)


def _rank_counts(ranks: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`ranks` as int64, and per row whether its ranks are known and it can deal a coup; or a clear error."""
    ranks, n = np.asarray(ranks), len(values)
    if ranks.shape != (n, RANK_COLUMNS) or ranks.dtype.kind not in "iu":
        raise ValueError(f"ranks must be an int array of shape ({n}, {RANK_COLUMNS}), not {ranks.dtype}{ranks.shape}")
    known = (ranks != UNKNOWN_RANKS).all(axis=1)
    counted = ranks.astype(np.int64)
    if (counted[known] < 0).any():
        raise ValueError(f"rank counts are 0 or more, or a row of {UNKNOWN_RANKS} for unknown ranks")
    cards = values.sum(axis=1)
    if (counted[known].sum(axis=1) != cards[known]).any():
        raise ValueError("a row's rank counts must hold as many cards as its value counts")
    return counted, known & (cards >= MIN_CARDS_FOR_A_COUP)


def _distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of `values` and, per row, the index of its distinct row."""
    if len(values) and (values < 1 << _KEY_BITS).all():  # each row packed into one int64: a fast sort
        keys = (values << _KEY_SHIFTS).sum(axis=1)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return values[first], inverse
    distinct, inverse = np.unique(values, axis=0, return_inverse=True)
    return np.ascontiguousarray(distinct), inverse.reshape(-1)


def _pair_edges(ranks: np.ndarray, cards: np.ndarray, paytable: PayTable) -> np.ndarray:
    """The pair bets' edge per row, from the chance that two cards share a rank (as `ExactOdds.p_pair`)."""
    p = (ranks * (ranks - 1)).sum(axis=1) / (cards * (cards - 1))
    mean = p * float(paytable.pair) - (1.0 - p)
    return -mean


@njit(parallel=True, nogil=True, cache=True)
def _main_edges(values, payoffs, columns, player_draw, banker_draw, out):  # pragma: no cover - compiled
    """Fill out[i, columns[b]] with minus the mean of payoffs[b] over row i's deals, LANES rows at a time.

    values: int64 (n, VALUE_COLUMNS), each row with at least MIN_CARDS_FOR_A_COUP cards; payoffs:
    float64 (bets, CELLS), net per unit in each cell; columns: int64 (bets,), each payoff row's column
    of `out`; player_draw, banker_draw: the draw table's arrays; out: float64 (n, len(BETS)), the
    other columns left as they are.
    """
    n = values.shape[0]
    for block in prange((n + LANES - 1) // LANES):
        first = block * LANES
        lanes = min(LANES, n - first)
        counts = np.empty((VALUE_COLUMNS, lanes))
        for k in range(lanes):
            for v in range(VALUE_COLUMNS):
                counts[v, k] = values[first + k, v]
        cells = np.zeros((CELLS, lanes))
        lane_weights(counts, player_draw, banker_draw, cells)
        # each weight over its lane's total, then each bet's sum over the cells in cell order
        total = np.zeros(lanes)
        for cell in range(CELLS):
            for k in range(lanes):
                total[k] += cells[cell, k]
        for cell in range(CELLS):
            for k in range(lanes):
                cells[cell, k] /= total[k]
        mean = np.empty(lanes)
        for b in range(payoffs.shape[0]):
            mean[:] = 0.0
            for cell in range(CELLS):
                pays = payoffs[b, cell]
                for k in range(lanes):
                    mean[k] += pays * cells[cell, k]
            for k in range(lanes):
                out[first + k, columns[b]] = -mean[k]
