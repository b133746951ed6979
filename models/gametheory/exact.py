"""Exact linear algebra over the rationals, for polishing a floating-point solution into an exact one."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


def snap(x: float, bound: int = 10**9) -> Fraction:
    """The simplest fraction near `x` (a guess, to be verified exactly by the caller)."""
    return Fraction(x).limit_denominator(bound)


def solve(rows: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction], guess: Sequence[float]) -> list[Fraction] | None:
    """A solution of rows @ x = rhs, free unknowns fixed at their snapped `guess`; None if inconsistent."""
    n = len(guess)
    m = [[*list(map(Fraction, row)), Fraction(b)] for row, b in zip(rows, rhs, strict=True)]
    pivots: list[int] = []
    r = 0
    for col in range(n):
        pick = next((i for i in range(r, len(m)) if m[i][col] != 0), None)
        if pick is None:
            continue
        m[r], m[pick] = m[pick], m[r]
        lead = m[r][col]
        m[r] = [v / lead for v in m[r]]
        for i in range(len(m)):
            if i != r and m[i][col] != 0:
                factor = m[i][col]
                m[i] = [a - factor * b for a, b in zip(m[i], m[r], strict=True)]
        pivots.append(col)
        r += 1
    if any(all(v == 0 for v in row[:n]) and row[n] != 0 for row in m[r:]):
        return None
    x = [snap(g) for g in guess]
    for i, col in reversed(list(enumerate(pivots))):
        x[col] = m[i][n] - sum((m[i][j] * x[j] for j in range(n) if j != col), Fraction(0))
    return x
