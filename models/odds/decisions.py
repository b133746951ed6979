"""The exact worth of drawing and of standing at a discretionary decision, for many decisions at once.

A public function over a private compiled kernel (the plain twin is `tests/models/naive_decisions.py`).
Each decision is rated from what its decider can see: `counts` is the shoe before the coup less the
cards visible to him; the cards hidden from him (the opponent's two cards, and the banker's third)
are every way of dealing them from those counts, each weighted by its falling product of counts.

- A punter on a two-card total: the banker's two hidden cards are any but a natural (he would have
  shown it); the banker then plays `banker_draw` (the tableau under the policy, as the exact engine
  reads it) against the punter's third card or his standing.
- A banker on a two-card total, against one or two live Player hands (a hand on a natural is settled
  and out): each hand's two hidden cards are weighted by how likely its logged draw or stand was
  under `player_draw` (the punter's tableau under the policy), both hands' hidden cards out of the
  same counts; the result is the stake-weighted mean over the live hands.

Results are per unit staked, for the decider: a win pays 1 to a punter and `bank_win` to a bank
(the house's levy taken), a tie pushes.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: `decider` codes.
PUNTER, BANKER = 0, 1
#: A live hand's logged third card when it stood; NOT_LIVE: no hand there (absent, or on a natural).
STOOD, NOT_LIVE = 10, -1


def decision_values(
    counts: np.ndarray,
    decider: np.ndarray,
    total: np.ndarray,
    thirds: np.ndarray,
    stakes: np.ndarray,
    player_draw: np.ndarray,
    banker_draw: np.ndarray,
    bank_win: float,
) -> np.ndarray:
    """Expected result per unit staked of drawing (column 0) and of standing (column 1), float64 (n, 2).

    counts: int (n, 10), the cards the decider has not seen, by point value; decider: PUNTER or
    BANKER per row; total: the decider's two-card total (0..7); thirds: int (n, 2), for a banker each
    Player hand's logged third card (0..9), STOOD, or NOT_LIVE (ignored for a punter); stakes: float
    (n, 2), each hand's stake for a banker's weighting (all zero: equal weights); player_draw (10,),
    banker_draw (10, 11): draw probabilities as `models.game.tableau.draw_table` gives them.
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    n = len(counts)
    if counts.shape != (n, 10) or (counts < 0).any():
        raise ValueError("counts must be non-negative ints of shape (n, 10)")
    out = np.full((n, 2), np.nan)
    _values(
        counts,
        np.ascontiguousarray(decider, dtype=np.int64),
        np.ascontiguousarray(total, dtype=np.int64),
        np.ascontiguousarray(thirds, dtype=np.int64).reshape(n, 2),
        np.ascontiguousarray(stakes, dtype=np.float64).reshape(n, 2),
        np.ascontiguousarray(player_draw, dtype=np.float64),
        np.ascontiguousarray(banker_draw, dtype=np.float64),
        float(bank_win),
        out,
    )
    return out


@njit(cache=True, inline="always")
def _result(own, other, win):  # pragma: no cover - compiled
    """The decider's net per unit: `win` if his total beats the other's, -1 if it loses, 0 on a tie."""
    if own > other:
        return win
    if own < other:
        return -1.0
    return 0.0


@njit(parallel=True, nogil=True, cache=True)
def _values(counts, decider, total, thirds, stakes, player_draw, banker_draw, bank_win, out):  # pragma: no cover
    """Fill out[i] with row i's worth of drawing and of standing (NaN where no deal is possible)."""
    for i in prange(counts.shape[0]):
        c = counts[i].astype(np.float64)
        if decider[i] == PUNTER:
            _punter(c, total[i], banker_draw, out[i])
        else:
            _banker(c, total[i], thirds[i], stakes[i], player_draw, bank_win, out[i])


@njit(cache=True)
def _punter(c, pt, banker_draw, out):  # pragma: no cover - compiled
    """A punter on `pt` against a banker's hidden two cards (no natural) from counts `c`."""
    weight, drawn, stood = 0.0, 0.0, 0.0
    n = c.sum()
    for b1 in range(10):
        if c[b1] == 0.0:
            continue
        w1 = c[b1]
        c[b1] -= 1.0
        for b2 in range(b1, 10):
            if c[b2] == 0.0:
                continue
            bt = (b1 + b2) % 10
            if bt >= 8:
                continue
            w = w1 * c[b2] * (1.0 if b1 == b2 else 2.0)
            c[b2] -= 1.0
            left = n - 2.0
            # standing: the banker plays his total against no third card
            bd = banker_draw[bt, 10]
            value = (1.0 - bd) * _result(pt, bt, 1.0)
            if bd > 0.0:
                for b3 in range(10):
                    value += bd * c[b3] / left * _result(pt, (bt + b3) % 10, 1.0)
            stood += w * value
            # drawing: a third card p3, then the banker against it
            value = 0.0
            for p3 in range(10):
                if c[p3] == 0.0:
                    continue
                share = c[p3] / left
                c[p3] -= 1.0
                final = (pt + p3) % 10
                bd = banker_draw[bt, p3]
                step = (1.0 - bd) * _result(final, bt, 1.0)
                if bd > 0.0:
                    for b3 in range(10):
                        step += bd * c[b3] / (left - 1.0) * _result(final, (bt + b3) % 10, 1.0)
                value += share * step
                c[p3] += 1.0
            drawn += w * value
            weight += w
            c[b2] += 1.0
        c[b1] += 1.0
    if weight > 0.0:
        out[0] = drawn / weight
        out[1] = stood / weight


@njit(cache=True, inline="always")
def _likelihood(player_draw, t, third):  # pragma: no cover - compiled
    """How likely a hand of two-card total `t` (no natural) did what was logged: drew (`third` 0..9) or stood."""
    if t >= 8:
        return 0.0
    return player_draw[t] if third != STOOD else 1.0 - player_draw[t]


@njit(cache=True)
def _banker(c, bt, thirds, stakes, player_draw, bank_win, out):  # pragma: no cover - compiled
    """A banker on `bt` against the live Player hands of `thirds`, their hidden two cards from counts `c`."""
    live_third = np.empty(2, np.int64)
    live_stake = np.empty(2)
    m = 0
    for side in range(2):
        if thirds[side] != NOT_LIVE:
            live_third[m] = thirds[side]
            live_stake[m] = stakes[side]
            m += 1
    if m == 0:
        return
    if live_stake[:m].sum() <= 0.0:
        live_stake[:m] = 1.0
    scale = live_stake[:m].sum()
    n = c.sum()
    left = n - 2.0 * m
    weight, drawn, stood = 0.0, 0.0, 0.0
    for h1 in range(100):
        v1, u1 = h1 // 10, h1 % 10
        if u1 < v1 or c[v1] == 0.0:
            continue
        l1 = _likelihood(player_draw, (v1 + u1) % 10, live_third[0])
        if l1 == 0.0:
            continue
        w1 = c[v1]
        c[v1] -= 1.0
        if c[u1] > 0.0:
            w1 *= c[u1] * (1.0 if v1 == u1 else 2.0) * l1
            c[u1] -= 1.0
            f1 = _final((v1 + u1) % 10, live_third[0])
            for h2 in range(100 if m == 2 else 1):
                w = w1
                f2 = -1
                if m == 2:
                    v2, u2 = h2 // 10, h2 % 10
                    if u2 < v2 or c[v2] == 0.0:
                        continue
                    l2 = _likelihood(player_draw, (v2 + u2) % 10, live_third[1])
                    if l2 == 0.0:
                        continue
                    w *= c[v2]
                    c[v2] -= 1.0
                    if c[u2] == 0.0:
                        c[v2] += 1.0
                        continue
                    w *= c[u2] * (1.0 if v2 == u2 else 2.0) * l2
                    f2 = _final((v2 + u2) % 10, live_third[1])
                    c[u2] -= 1.0
                value = live_stake[0] * _result(bt, f1, bank_win)
                if m == 2:
                    value += live_stake[1] * _result(bt, f2, bank_win)
                stood += w * value
                value = 0.0
                for b3 in range(10):
                    if c[b3] == 0.0:
                        continue
                    final = (bt + b3) % 10
                    step = live_stake[0] * _result(final, f1, bank_win)
                    if m == 2:
                        step += live_stake[1] * _result(final, f2, bank_win)
                    value += c[b3] / left * step
                drawn += w * value
                weight += w
                if m == 2:
                    c[v2] += 1.0
                    c[u2] += 1.0
            c[u1] += 1.0
        c[v1] += 1.0
    if weight > 0.0:
        out[0] = drawn / (weight * scale)
        out[1] = stood / (weight * scale)


@njit(cache=True, inline="always")
def _final(t, third):  # pragma: no cover - compiled
    """A Player hand's final total from its two-card total and its logged third card (or STOOD)."""
    return t if third == STOOD else (t + third) % 10
