"""Shoe reconciliation: no card, rank or value may be seen more often than the shoe holds.

Rows are taken shoe by shoe in round order (rows already in the warehouse first); a row whose cards
would take a count past what the shoe holds is overdrawn, and its cards are not counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BY_CARD, BY_RANK, BY_VALUE = 0, 1, 2
GRANULARITY = ("card", "rank", "value")


@njit(cache=True)
def overdrawn_rows(shoe, codes, granularity, decks):
    """For rows sorted by shoe then order: the first code each row overdraws, or -1.

    `codes[i]` holds the row's cards at its shoe's granularity (-1 for none); `granularity` and
    `decks` are per row (constant within a shoe).
    """
    n = codes.shape[0]
    out = np.full(n, -1, np.int64)
    counts = np.zeros(52, np.int64)
    for i in range(n):
        if i == 0 or shoe[i] != shoe[i - 1]:
            counts[:] = 0
        g, d = granularity[i], decks[i]
        over = -1
        for j in range(codes.shape[1]):
            code = codes[i, j]
            if code < 0:
                continue
            counts[code] += 1
            if g == BY_CARD:
                held = d
            elif g == BY_RANK:
                held = 4 * d
            else:
                held = 16 * d if code == 0 else 4 * d
            if counts[code] > held and over < 0:
                over = code
        if over >= 0:  # an overdrawn row's cards are not counted
            for j in range(codes.shape[1]):
                if codes[i, j] >= 0:
                    counts[codes[i, j]] -= 1
        out[i] = over
    return out
