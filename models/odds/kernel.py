"""The compiled enumeration of every coup a composition can deal.

Weights count ordered six-card deals (a coup that uses fewer cards is completed with every way of
dealing the unused ones), so for deterministic policies every weight is an exact integer: eight
decks total 4,998,398,275,503,360 deals, well inside float64's 2**53 of exact integers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.game.cells import CELL_SHAPE

#: Axes of the weights array: player total, banker total, player drew (0/1), banker drew (0/1);
#: flattened in C order, a cell's weight sits at its `cell_index`.
WEIGHTS_SHAPE = CELL_SHAPE


@njit(cache=True)
def outcome_weights(counts, player_draw, banker_draw):  # pragma: no cover - compiled
    """Weights of (player total, banker total, player drew, banker drew) over all deals.

    `counts` holds the cards by point value; `player_draw[t]` and `banker_draw[t, third]` (third
    10 = the player stood) are draw probabilities from the tableau. Two-card hands are enumerated as
    unordered pairs with multiplicity, which gives the same products as ordered dealing.
    """
    out = np.zeros((10, 10, 2, 2))
    c = counts.astype(np.float64)
    n = c.sum()
    fill_two = (n - 4.0) * (n - 5.0)
    fill_one = n - 5.0
    for p1 in range(10):
        if c[p1] == 0.0:
            continue
        w1 = c[p1]
        c[p1] -= 1.0
        for p2 in range(p1, 10):
            if c[p2] == 0.0:
                continue
            w2 = w1 * c[p2] * (1.0 if p1 == p2 else 2.0)
            c[p2] -= 1.0
            pt = (p1 + p2) % 10
            for b1 in range(10):
                if c[b1] == 0.0:
                    continue
                w3 = w2 * c[b1]
                c[b1] -= 1.0
                for b2 in range(b1, 10):
                    if c[b2] == 0.0:
                        continue
                    w = w3 * c[b2] * (1.0 if b1 == b2 else 2.0)
                    c[b2] -= 1.0
                    bt = (b1 + b2) % 10
                    if pt >= 8 or bt >= 8:
                        out[pt, bt, 0, 0] += w * fill_two
                    else:
                        pd = player_draw[pt]
                        if pd < 1.0:
                            stood = w * (1.0 - pd)
                            bd = banker_draw[bt, 10]
                            if bd < 1.0:
                                out[pt, bt, 0, 0] += stood * (1.0 - bd) * fill_two
                            if bd > 0.0:
                                drew = stood * bd * fill_one
                                for b3 in range(10):
                                    out[pt, (bt + b3) % 10, 0, 1] += drew * c[b3]
                        if pd > 0.0:
                            for p3 in range(10):
                                if c[p3] == 0.0:
                                    continue
                                w5 = w * pd * c[p3]
                                c[p3] -= 1.0
                                pt3 = (pt + p3) % 10
                                bd = banker_draw[bt, p3]
                                if bd < 1.0:
                                    out[pt3, bt, 1, 0] += w5 * (1.0 - bd) * fill_one
                                if bd > 0.0:
                                    drew = w5 * bd
                                    for b3 in range(10):
                                        out[pt3, (bt + b3) % 10, 1, 1] += drew * c[b3]
                                c[p3] += 1.0
                    c[b2] += 1.0
                c[b1] += 1.0
            c[p2] += 1.0
        c[p1] += 1.0
    return out
