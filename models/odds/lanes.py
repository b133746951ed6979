"""The enumeration of `models.odds.kernel`, over several compositions at once and by moments.

Every ordered six-card deal of a composition c weighs a falling product of its counts. The first four
cards (two per hand) are enumerated as in `outcome_weights`, a pair of two-card totals (pt, bt) at a
time; the third cards are not: the four-card weights w of (pt, bt) are summed with the cards r they
take out, A = sum(w), B[v] = sum(w r[v]), C[v, u] = sum(w r[v] r[u]), and a third card p weighs
sum(w (c[p] - r[p])) = c[p] A - B[p], then a banker's third card u after it
sum(w (c[p] - r[p]) (c[u] - [u = p] - r[u])) = (c[u] - [u = p]) (c[p] A - B[p]) - c[p] B[u] + C[p, u].
The counts are whole numbers and no sum passes 2**53 (eight decks hold 5.0e15 ordered six-card
deals), so under a tableau that draws or stands (every house game) the sums are exact and equal the
kernel's, whatever their order; a lane short of a value weighs 0 there (a falling product reaches 0
before a count goes below it). The compositions sit side by side in the last axis of every array
(the lanes), so each step is one vector loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.game.cells import compiled_cell_index


def _pairs_by_total() -> np.ndarray:
    """Row t: the two-card hands (v, u), v <= u, of total t, as v * 10 + u, padded with -1."""
    pairs = np.full((10, 10), -1, np.int64)
    for total in range(10):
        hands = [v * 10 + u for v in range(10) for u in range(v, 10) if (v + u) % 10 == total]
        pairs[total, : len(hands)] = hands
    return pairs


#: Compositions a call of `lane_weights` best takes: each vector loop long enough to pay its set-up.
LANES = 128
#: The two-card hands of each total (`_pairs_by_total`), read by the compiled code as a constant.
_PAIRS = _pairs_by_total()


@njit(cache=True, nogil=True)
def lane_weights(counts, player_draw, banker_draw, out):  # pragma: no cover - compiled
    """Add to `out` the weights of `outcome_weights` for each lane's composition.

    counts: float64 (10, lanes), lane l's cards by point value in column l, at least 6 of them;
    player_draw, banker_draw: the draw table's arrays, as `outcome_weights` reads them; out: float64
    (CELLS, lanes), lane l's weights (the cells in `cell_index` order) added to column l.
    """
    c = counts
    lanes = c.shape[1]
    fill_two, fill_one = np.empty(lanes), np.empty(lanes)
    for k in range(lanes):
        n = 0.0
        for v in range(10):
            n += c[v, k]
        fill_two[k] = (n - 4.0) * (n - 5.0)
        fill_one[k] = n - 5.0
    a, b, cc = np.empty(lanes), np.empty((10, lanes)), np.empty((10, 10, lanes))
    player, w, before = np.empty(lanes), np.empty(lanes), np.empty(lanes)
    for pt in range(10):
        for bt in range(10):
            natural = pt >= 8 or bt >= 8
            both = not natural and _both_may_draw(player_draw, banker_draw, pt, bt)
            a[:] = 0.0
            if not natural:
                b[:] = 0.0
            if both:
                cc[:] = 0.0
            for i in range(10):
                hand = _PAIRS[pt, i]
                if hand < 0:
                    break
                p1, p2 = hand // 10, hand % 10
                pair = 1.0 if p1 == p2 else 2.0
                for k in range(lanes):
                    player[k] = c[p1, k] * (c[p2, k] - (p1 == p2)) * pair
                    before[k] = a[k]
                for j in range(10):
                    hand = _PAIRS[bt, j]
                    if hand < 0:
                        break
                    b1, b2 = hand // 10, hand % 10
                    # the banker's cards counted after the player's: a falling product, value by value
                    out1 = (p1 == b1) + (p2 == b1)
                    out2 = (p1 == b2) + (p2 == b2) + (b1 == b2)
                    bpair = 1.0 if b1 == b2 else 2.0
                    if natural:
                        for k in range(lanes):
                            a[k] += player[k] * (c[b1, k] - out1) * (c[b2, k] - out2) * bpair
                        continue
                    for k in range(lanes):
                        w[k] = player[k] * (c[b1, k] - out1) * (c[b2, k] - out2) * bpair
                    _add(a, w)
                    _add(b[b1], w)
                    _add(b[b2], w)
                    if both:  # the banker's cards with themselves and with the player's
                        _add_pairs(cc, b1, b2, w)
                        for v, u in ((p1, b1), (p1, b2), (p2, b1), (p2, b2)):
                            _add_scaled(cc[min(v, u), max(v, u)], 2.0 if v == u else 1.0, w)
                if natural:
                    continue
                # the player's cards, once for all the banker's hands: sum(w) over them is a - before
                for k in range(lanes):
                    before[k] = a[k] - before[k]
                _add(b[p1], before)
                _add(b[p2], before)
                if both:
                    _add_pairs(cc, p1, p2, before)
            _third_cards(c, player_draw, banker_draw, pt, bt, a, b, cc, fill_two, fill_one, out)


@njit(cache=True, nogil=True)
def _third_cards(c, player_draw, banker_draw, pt, bt, a, b, cc, fill_two, fill_one, out):  # pragma: no cover
    """Add the deals of two-card totals (pt, bt), from their moments a (A), b (B) and cc (C), to
    the cells the third cards reach."""
    lanes = c.shape[1]
    if pt >= 8 or bt >= 8:
        _add_times(out[compiled_cell_index(pt, bt, 0, 0)], 1.0, a, fill_two)
        return
    third = np.empty(lanes)
    pd = player_draw[pt]
    if pd < 1.0:
        bd = banker_draw[bt, 10]
        if bd < 1.0:
            _add_times(out[compiled_cell_index(pt, bt, 0, 0)], (1.0 - pd) * (1.0 - bd), a, fill_two)
        if bd > 0.0:
            for b3 in range(10):
                for k in range(lanes):
                    third[k] = c[b3, k] * a[k] - b[b3, k]
                _add_times(out[compiled_cell_index(pt, (bt + b3) % 10, 0, 1)], (1.0 - pd) * bd, third, fill_one)
    if pd > 0.0:
        for p3 in range(10):
            for k in range(lanes):  # sum(w (c[p3] - r[p3])): the deals with p3 as the player's third card
                third[k] = c[p3, k] * a[k] - b[p3, k]
            pt3 = (pt + p3) % 10
            bd = banker_draw[bt, p3]
            if bd < 1.0:
                _add_times(out[compiled_cell_index(pt3, bt, 1, 0)], pd * (1.0 - bd), third, fill_one)
            if bd > 0.0:
                scale = pd * bd
                for b3 in range(10):
                    same = 1.0 if b3 == p3 else 0.0
                    row = out[compiled_cell_index(pt3, (bt + b3) % 10, 1, 1)]
                    c_pu = cc[min(p3, b3), max(p3, b3)]
                    for k in range(lanes):
                        row[k] += scale * ((c[b3, k] - same) * third[k] - c[p3, k] * b[b3, k] + c_pu[k])


@njit(inline="always", cache=True)
def _both_may_draw(player_draw, banker_draw, pt, bt):  # pragma: no cover - compiled
    """Whether after two-card totals (pt, bt) both hands may take a third card (the deals need C)."""
    if player_draw[pt] > 0.0:
        for p3 in range(10):
            if banker_draw[bt, p3] > 0.0:
                return True
    return False


@njit(inline="always", cache=True)
def _add(row, w):  # pragma: no cover - compiled
    for k in range(row.shape[0]):
        row[k] += w[k]


@njit(inline="always", cache=True)
def _add_times(row, scale, x, y):  # pragma: no cover - compiled
    for k in range(row.shape[0]):
        row[k] += scale * x[k] * y[k]


@njit(inline="always", cache=True)
def _add_scaled(row, scale, w):  # pragma: no cover - compiled
    for k in range(row.shape[0]):
        row[k] += scale * w[k]


@njit(inline="always", cache=True)
def _add_pairs(cc, v, u, w):  # pragma: no cover - compiled
    """cc[x, y] (x <= y) += w r[x] r[y] for the two cards v <= u of a hand (r their counts by value)."""
    if v == u:
        _add_scaled(cc[v, v], 4.0, w)
    else:
        _add(cc[v, v], w)
        _add(cc[u, u], w)
        _add(cc[v, u], w)
