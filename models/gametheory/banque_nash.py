"""The Nash equilibrium of baccara banque: each Player minimises his own loss, the banker his total.

The Players' laws are independent draws on 5 (p1, p2); the banker's draw in a cell is a bilinear
function of them. An equilibrium sits where cells' indifference curves cross, or on the square's
edges: every such point is tried, the banker's mix there found by a feasibility LP, then made exact.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
from scipy.optimize import linprog

from models.gametheory import exact
from models.gametheory.banque_game import NASH, Solution, banker_value, exact_differences, exact_values, float_game
from models.gametheory.banque_payoffs import JOINT


def _weights(x: float, y: float) -> np.ndarray:
    return np.array([(1 - x) * (1 - y), (1 - x) * y, x * (1 - y), x * y])


def _bilinear(c: np.ndarray) -> tuple[float, float, float, float]:
    """a0 + a1 x + a2 y + a3 x y from the values at the corners (JOINT order)."""
    return c[0], c[2] - c[0], c[1] - c[0], c[3] - c[2] - c[1] + c[0]


def _candidates(diff: np.ndarray) -> set[tuple[float, float]]:
    """Corners, edge crossings of each cell's indifference curve, and crossings of two curves."""
    points = {(x, y) for x in (0.0, 1.0) for y in (0.0, 1.0)}
    curves = [_bilinear(c) for c in diff if c.min() <= 0 <= c.max() and np.abs(c).max() > 0]
    for a0, a1, a2, a3 in curves:
        for fixed in (0.0, 1.0):
            if abs(a2 + a3 * fixed) > 0:
                points.add((fixed, -(a0 + a1 * fixed) / (a2 + a3 * fixed)))
            if abs(a1 + a3 * fixed) > 0:
                points.add((-(a0 + a2 * fixed) / (a1 + a3 * fixed), fixed))
    for (a0, a1, a2, a3), (b0, b1, b2, b3) in combinations(curves, 2):
        # eliminate y: (b0 + b1 x)(a2 + a3 x) = (b2 + b3 x)(a0 + a1 x)
        poly = [b1 * a3 - b3 * a1, b0 * a3 + b1 * a2 - b2 * a1 - b3 * a0, b0 * a2 - b2 * a0]
        if max(map(abs, poly)) == 0:
            continue
        for x in np.roots(poly) if poly[0] or poly[1] else []:
            if abs(x.imag) > 1e-12:
                continue
            x = float(x.real)
            for c0, cy in ((a0 + a1 * x, a2 + a3 * x), (b0 + b1 * x, b2 + b3 * x)):
                if abs(cy) > 0:
                    points.add((x, -c0 / cy))
                    break
    return {(x, y) for x, y in points if -1e-12 <= x <= 1 + 1e-12 and -1e-12 <= y <= 1 + 1e-12}


def _incentives(g, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the change in each Player's loss from drawing rather than standing on 5, when the
    banker stands (row 0) or draws (row 1) there; plus the same for the cells without a decision."""
    w1 = (_weights(1, y) - _weights(0, y), _weights(x, 1) - _weights(x, 0))
    first = np.stack([g.first[d] @ w1[0] for d in (0, 1)])
    second = np.stack([g.second[d] @ w1[1] for d in (0, 1)])
    rest = np.array([g.rest_first @ w1[0], g.rest_second @ w1[1]])
    return np.stack([first, second]), rest


def _feasible(g, diff, x: float, y: float) -> np.ndarray | None:
    """The banker's draw probabilities that make (x, y) an equilibrium, or None."""
    d = diff @ _weights(x, y)
    scale = np.abs(diff).max(axis=1)
    kinks = np.abs(d) <= 1e-9 * scale
    beta = (d > 0).astype(float)
    per_cell, rest = _incentives(g, x, y)
    # each Player's incentive: fixed cells, then one coefficient per kink
    base = rest + (per_cell[:, 0, :] * (1 - beta) + per_cell[:, 1, :] * beta)[:, ~kinks].sum(axis=1)
    base += per_cell[:, 0, kinks].sum(axis=1)
    slope = (per_cell[:, 1, :] - per_cell[:, 0, :])[:, kinks]
    eq, ub = [], []
    for i, p in enumerate((x, y)):
        tol = 1e-12
        if tol < p < 1 - tol:
            eq.append(i)
        elif p <= tol:  # stands: drawing must not lower his loss (incentive >= 0)
            ub.append((-slope[i], base[i]))
        else:  # draws: incentive <= 0
            ub.append((slope[i], -base[i]))
    k = int(kinks.sum())
    if k == 0:
        ok = all(abs(base[i]) <= 1e-12 for i in eq) and all(b >= -1e-12 for _, b in ub)
        return beta if ok else None
    res = linprog(
        np.zeros(k),
        A_ub=np.array([a for a, _ in ub]) if ub else None,
        b_ub=np.array([b + 1e-13 for _, b in ub]) if ub else None,
        A_eq=slope[eq] if eq else None,
        b_eq=-base[eq] if eq else None,
        bounds=[(0, 1)] * k,
        method="highs",
    )
    if res.status != 0:
        return None
    beta[kinks] = res.x
    return beta


def nash_points(theta: Fraction) -> list[tuple[float, float, np.ndarray]]:
    """Every (p1, p2, banker's mix) found to be a Nash equilibrium, in floats."""
    g = float_game(theta)
    diff = g.banker[1] - g.banker[0]
    found = []
    for x, y in sorted(_candidates(diff)):
        x, y = min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0)
        beta = _feasible(g, diff, x, y)
        if beta is not None and not any(abs(x - a) < 1e-9 and abs(y - b) < 1e-9 for a, b, _ in found):
            found.append((x, y, beta))
    return found


def nash(theta: Fraction) -> Solution:
    """The Nash equilibrium, exact where its numbers are rational (certified), floats otherwise."""
    g = float_game(theta)
    points = nash_points(theta)
    if not points:
        return Solution(NASH, False, {}, {}, None)
    x, y, beta = points[0]
    p1, p2 = exact.snap(x), exact.snap(y)
    players = {(a, b): (p1 if a else 1 - p1) * (p2 if b else 1 - p2) for a, b in JOINT}
    banker = _exact_mix(theta, g, p1, p2, beta)
    if banker is not None and _is_nash(theta, g, p1, p2, banker):
        return Solution(NASH, True, players, banker, banker_value(theta, players, banker))
    floats = {c: exact.snap(b) for c, b in zip(g.cells, beta, strict=True)}
    surds = _closed_form(theta, g, x, y)
    return Solution(NASH, True, players, floats, banker_value(theta, players, floats), exact=False, closed_form=surds)


def _closed_form(theta: Fraction, g, x: float, y: float) -> tuple[str, str] | None:
    """(p1, p2) as surds: where two of the banker's exact indifference curves cross near (x, y)."""
    import sympy

    diff = g.banker[1] - g.banker[0]
    d = diff @ _weights(x, y)
    kinks = [c for c, v, s in zip(g.cells, d, np.abs(diff).max(axis=1), strict=True) if abs(v) <= 1e-9 * s]
    X, Y = sympy.symbols("x y")
    curves = []
    for c in exact_differences(theta, kinks).values():
        a0, a1, a2, a3 = (sympy.Rational(v.numerator, v.denominator) for v in _bilinear(c))
        curves.append(a0 + a1 * X + a2 * Y + a3 * X * Y)
    for e1, e2 in combinations(curves, 2):
        for sx, sy in sympy.solve([e1, e2], [X, Y], dict=False) or []:
            if abs(complex(sx) - x) < 1e-9 and abs(complex(sy) - y) < 1e-9:
                return str(sympy.radsimp(sx)), str(sympy.radsimp(sy))
    return None


def _exact_mix(theta, g, p1, p2, beta) -> dict | None:
    """Solve exactly for the banker's mix on the cells where he is indifferent at (p1, p2)."""
    players = {(a, b): (p1 if a else 1 - p1) * (p2 if b else 1 - p2) for a, b in JOINT}
    diffs = exact_differences(theta, g.cells)
    q = [players[pair] for pair in JOINT]
    gain = {c: sum((d * w for d, w in zip(diffs[c], q, strict=True)), Fraction(0)) for c in g.cells}
    banker = {c: Fraction(int(gain[c] > 0)) for c in g.cells}
    kinks = [c for c in g.cells if gain[c] == 0]
    if not kinks:
        return banker
    index = {c: i for i, c in enumerate(g.cells)}
    rows, rhs = [], []
    for player, p in ((1, p1), (2, p2)):
        if 0 < p < 1:
            base = _incentive(theta, p1, p2, banker, player)
            row = []
            for c in kinks:
                step = dict(banker)
                step[c] = Fraction(1) - banker[c]
                row.append((_incentive(theta, p1, p2, step, player) - base) * (1 if banker[c] == 0 else -1))
            rows.append(row)
            rhs.append(-base + sum((r * banker[c] for r, c in zip(row, kinks, strict=True)), Fraction(0)))
    for j, c in enumerate(kinks):  # the LP's bounds pin the rest of a family to its vertex
        b = beta[index[c]]
        if b < 1e-9 or b > 1 - 1e-9:
            rows.append([Fraction(int(m == j)) for m in range(len(kinks))])
            rhs.append(Fraction(round(float(b))))
    mix = (
        exact.solve(rows, rhs, [float(beta[index[c]]) for c in kinks])
        if rows
        else [exact.snap(beta[index[c]]) for c in kinks]
    )
    if mix is None:
        return None
    banker.update(zip(kinks, mix, strict=True))
    return banker


def _incentive(theta, p1, p2, banker, player: int) -> Fraction:
    """How much more the banker wins from `player` if he draws on 5 rather than stands."""
    other = p2 if player == 1 else p1

    def law(draws: int) -> dict:
        if player == 1:
            return {(draws, 0): 1 - other, (draws, 1): other}
        return {(0, draws): 1 - other, (1, draws): other}

    pick = 0 if player == 1 else 1
    return exact_values(theta, law(1), banker)[pick] - exact_values(theta, law(0), banker)[pick]


def _is_nash(theta, g, p1, p2, banker) -> bool:
    """Exact check: the banker's mix is a best response, and each Player's law is one too."""
    if any(not 0 <= b <= 1 for b in banker.values()):
        return False
    players = {(a, b): (p1 if a else 1 - p1) * (p2 if b else 1 - p2) for a, b in JOINT}
    diffs = exact_differences(theta, g.cells)
    for c in g.cells:
        gain = sum((d * players[pair] for d, pair in zip(diffs[c], JOINT, strict=True)), Fraction(0))
        if (gain > 0 and banker[c] != 1) or (gain < 0 and banker[c] != 0):
            return False
    for player, p in ((1, p1), (2, p2)):
        push = _incentive(theta, p1, p2, banker, player)
        if (0 < p < 1 and push != 0) or (p == 0 and push < 0) or (p == 1 and push > 0):
            return False
    return True
