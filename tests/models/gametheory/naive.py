"""Slow plain twins of the game-theory room's fast paths, for the tests to check them against."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from models.gametheory.models import STOOD, Model, banker_rows, player_sets


def expectation(model: Model, counts: list[int], replace: bool, x: list[float], y: np.ndarray) -> float:
    """Player's expectation for draw probabilities x (his choice sets) and y (Banker rows x columns), by
    walking every ordered deal of values with its probability, card by card."""
    rows, sets = banker_rows(model), player_sets(model)

    def deal(left: list[int], depth: int, seq: tuple, p: float) -> float:
        if depth == 0:
            return p * settle(seq)
        out, n = 0.0, sum(left)
        for v in range(10):
            if left[v]:
                nxt = list(left)
                if not replace:
                    nxt[v] -= 1
                out += deal(nxt, depth - 1, (*seq, v), p * left[v] / n)
        return out

    def settle(seq: tuple) -> float:
        p1, b1, p2, b2, p3, b3 = seq
        pt, bt = (p1 + p2) % 10, (b1 + b2) % 10
        if pt >= 8 or bt >= 8:
            return float(np.sign(pt - bt))
        pair, bpair = (min(p1, p2), max(p1, p2)), (min(b1, b2), max(b1, b2))
        if pt <= 4:
            pdraw = 1.0
        elif pt >= 6:
            pdraw = 0.0
        else:
            pdraw = x[sets.index(pair if model.player_sees_composition else 5)]
        row = rows.index(bpair if model.banker_sees_composition else bt)
        result = 0.0
        for draws, weight in ((True, pdraw), (False, 1 - pdraw)):
            if weight:
                final_p, column = ((pt + p3) % 10, p3) if draws else (pt, STOOD)
                q = y[row, column]
                result += weight * (q * np.sign(final_p - (bt + b3) % 10) + (1 - q) * np.sign(final_p - bt))
        return result

    return deal(list(counts), 6, (), 1.0)


def maximin(player_terms, denominator: int) -> tuple[float, np.ndarray]:
    """Player's maximin in the zero-sum game by a linear programme (HiGHS): max over x in [0,1]^K of
    c + x.a + sum_j min(0, b_j + x.G_j), with t_j <= 0 and t_j <= b_j + x.G_j."""
    a, b, g = (np.asarray(v, dtype=float) / denominator for v in (player_terms.a, player_terms.b, player_terms.g))
    k, j = len(a), len(b)
    cost = -np.concatenate([a, np.ones(j)])
    rows = np.hstack([-g.T, np.eye(j)])  # t_j - x.G_j <= b_j
    bounds = [(0, 1)] * k + [(None, 0)] * j
    result = linprog(cost, A_ub=rows, b_ub=b, bounds=bounds, method="highs")
    assert result.success, result.message
    return player_terms.c / denominator - result.fun, result.x[:k]


def every_pure_banker_reply_value(model: Model, player_terms, denominator: int, x: list[float]) -> float:
    """Banker's best reply to x, found set by set from the expectation's definition (independent of the
    solver's bookkeeping): min over y in {0,1}^J, each y_j chosen alone since the payoff is additive."""
    a, b, g = (np.asarray(v, dtype=float) for v in (player_terms.a, player_terms.b, player_terms.g))
    gain = b + np.asarray(x) @ g
    return float((player_terms.c + np.asarray(x) @ a + np.minimum(gain, 0).sum()) / denominator)
