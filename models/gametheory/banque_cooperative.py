"""The cooperative equilibria of baccara banque: the Players as a team against the banker.

Correlated: the team draws one of four pure pairs by a joint lottery; a 4 x 2^1144 matrix game,
solved as a linear program and made exact. Independent: each Player randomises alone; it exists
exactly when some optimal joint lottery is a product of two independent ones.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

from models.gametheory import exact
from models.gametheory.banque_game import (
    CORRELATED,
    INDEPENDENT,
    FloatGame,
    Solution,
    banker_value,
    exact_differences,
    exact_rest,
    float_game,
)
from models.gametheory.banque_payoffs import JOINT, Cell, banque_payoffs


def correlated(theta: Fraction) -> Solution:
    """The correlated cooperative equilibrium: a 4 x 2^1144 matrix game, solved as a linear program."""
    g = float_game(theta)
    stand, draw = g.banker
    n = len(g.cells)
    cost = np.r_[g.rest, np.ones(n)]
    upper = np.vstack([np.hstack([stand, -np.eye(n)]), np.hstack([draw, -np.eye(n)])])
    res = linprog(
        cost,
        A_ub=upper,
        b_ub=np.zeros(2 * n),
        A_eq=np.r_[np.ones(4), np.zeros(n)][None],
        b_eq=[1],
        bounds=[(0, None)] * 4 + [(None, None)] * n,
        method="highs",
    )
    q_float, beta_float = res.x[:4], -res.ineqlin.marginals[n:]
    return _polish(theta, g, q_float, beta_float)


def _polish(theta: Fraction, g: FloatGame, q_float: np.ndarray, beta_float: np.ndarray) -> Solution:
    """Turn the LP's floats into exact fractions and certify them: upper value = lower value."""
    diff = g.banker[1] - g.banker[0]
    scale = np.abs(diff).max(axis=1)
    kinks = [i for i in range(len(g.cells)) if abs(diff[i] @ q_float) <= 1e-9 * scale[i]]
    support = [k for k in range(4) if q_float[k] > 1e-12]
    exact_diff = exact_differences(theta, [g.cells[i] for i in kinks])
    rows = [[Fraction(1)] * 4] + [exact_diff[g.cells[i]] for i in kinks]
    rows += [[Fraction(int(j == k)) for j in range(4)] for k in range(4) if k not in support]
    rhs = [Fraction(1)] + [Fraction(0)] * (len(rows) - 1)
    q = exact.solve(rows, rhs, list(q_float))
    players = dict(zip(JOINT, q, strict=True)) if q else {}
    banker = _banker_exact(theta, g, q or [exact.snap(x) for x in q_float], kinks, support, beta_float)
    if q and banker and min(q) >= 0 and all(0 <= b <= 1 for b in banker.values()):
        low, high = lower_value(theta, banker), upper_value(theta, players)
        if low == high:
            return Solution(CORRELATED, True, players, banker, high)
    # not certified (a degenerate theta): the floats, said so
    floats = dict(zip(JOINT, map(exact.snap, q_float), strict=True))
    beta = banker or {c: exact.snap(min(max(b, 0.0), 1.0)) for c, b in zip(g.cells, beta_float, strict=True)}
    return Solution(CORRELATED, True, floats, beta, banker_value(theta, floats, beta), exact=False)


def independent(theta: Fraction, joint: Solution | None = None) -> Solution:
    """The independent cooperative equilibrium: an optimal joint lottery that is a product of two
    independent ones, with the correlated banker's strategy; `exists` is False when there is none."""
    joint = joint or correlated(theta)
    x, y, _ = independent_upper(theta)
    tries = [(joint.draws_on_5(1), joint.draws_on_5(2)), (exact.snap(x, 10**6), exact.snap(y, 10**6))]
    for p1, p2 in tries:
        q = {(a, b): (p1 if a else 1 - p1) * (p2 if b else 1 - p2) for a, b in JOINT}
        if joint.exact and upper_value(theta, q) == joint.value:
            return Solution(INDEPENDENT, True, q, joint.banker, joint.value)
    return Solution(INDEPENDENT, False, {}, {}, None, exact=joint.exact)


def _upper(g: FloatGame, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    w = np.stack([(1 - x) * (1 - y), (1 - x) * y, x * (1 - y), x * y], axis=-1)
    stand, draw = np.einsum("ck,...k->...c", g.banker[0], w), np.einsum("ck,...k->...c", g.banker[1], w)
    return np.maximum(stand, draw).sum(axis=-1) + w @ g.rest


def independent_upper(theta: Fraction, steps: int = 100) -> tuple[float, float, float]:
    """(p1, p2, value): the least the banker wins when the Players randomise apart and he answers
    them; above the correlated value exactly when no independent equilibrium exists. Floats."""
    g = float_game(theta)
    grid = np.linspace(0.0, 1.0, steps + 1)
    x, y = np.meshgrid(grid, grid, indexing="ij")
    upper = _upper(g, x, y)
    i, j = np.unravel_index(int(np.argmin(upper)), upper.shape)
    best = (float(grid[i]), float(grid[j]), float(upper[i, j]))
    # refine around the grid's best point: a finer grid, twice
    for width in (2 / steps, 2 / steps**2):
        fine_x = np.clip(np.linspace(best[0] - width, best[0] + width, 81), 0, 1)
        fine_y = np.clip(np.linspace(best[1] - width, best[1] + width, 81), 0, 1)
        x, y = np.meshgrid(fine_x, fine_y, indexing="ij")
        upper = _upper(g, x, y)
        i, j = np.unravel_index(int(np.argmin(upper)), upper.shape)
        if upper[i, j] < best[2]:
            best = (float(fine_x[i]), float(fine_y[j]), float(upper[i, j]))
    return best


def _banker_exact(theta, g, q, kinks, support, beta_float) -> dict[Cell, Fraction]:
    """The banker's exact strategy: best response off the kinks, and on them the mix that leaves
    the Players' team indifferent among the pure pairs it plays."""
    payoffs = banque_payoffs()
    banker: dict[Cell, Fraction] = {}
    for i, cell in enumerate(g.cells):
        if i in kinks:
            continue
        stand, draw = payoffs.banker(theta, cell, 0), payoffs.banker(theta, cell, 1)
        gain = sum((d - s) * w for s, d, w in zip(stand, draw, q, strict=True))
        banker[cell] = Fraction(int(gain > 0))
    if not kinks:
        return banker
    # unknowns: beta at the kinks, then the value v; for each pair k played: payoff_k(beta) = v
    base = [sum(payoffs.banker(theta, c, int(b))[k] for c, b in banker.items()) for k in range(4)]
    rest = [theta * a + (1 - theta) * b for a, b in zip(exact_rest("first"), exact_rest("second"), strict=True)]
    rows, rhs = [], []
    for k in support:
        row = [payoffs.banker(theta, g.cells[i], 1)[k] - payoffs.banker(theta, g.cells[i], 0)[k] for i in kinks]
        rows.append([*row, Fraction(-1)])
        rhs.append(-(base[k] + rest[k] + sum(payoffs.banker(theta, g.cells[i], 0)[k] for i in kinks)))
    guess = [float(np.clip(beta_float[i], 0, 1)) for i in kinks] + [0.0]
    # fix the kinks the LP put at a bound, so a one-parameter family yields its vertex
    for j, i in enumerate(kinks):
        if beta_float[i] < 1e-9 or beta_float[i] > 1 - 1e-9:
            rows.append([Fraction(int(m == j)) for m in range(len(kinks) + 1)])
            rhs.append(Fraction(round(float(beta_float[i]))))
    beta = exact.solve(rows, rhs, guess)
    if beta is None:
        return {}
    for j, i in enumerate(kinks):
        banker[g.cells[i]] = beta[j]
    return banker


def lower_value(theta: Fraction, banker: dict[Cell, Fraction]) -> Fraction:
    """What the banker's strategy guarantees: the team's best pure pair against it."""
    return min(banker_value(theta, {pair: Fraction(1)}, banker) for pair in JOINT)


def upper_value(theta: Fraction, players: dict) -> Fraction:
    """What the team's law concedes: the banker's best response to it, cell by cell."""
    payoffs = banque_payoffs()
    q = [players.get(pair, Fraction(0)) for pair in JOINT]
    best = {}
    for cell in payoffs.cells():
        stand, draw = payoffs.banker(theta, cell, 0), payoffs.banker(theta, cell, 1)
        best[cell] = Fraction(int(sum((d - s) * w for s, d, w in zip(stand, draw, q, strict=True)) > 0))
    return banker_value(theta, players, best)
