"""Spearman's rank correlation, compiled: the surveillance blocks (rating_blocks.py) take one per
rating, stake against edge, inside their own loop."""

from __future__ import annotations

import numpy as np
from numba import njit


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho of x against y, ties ranked by their average (NaN for fewer than two values
    or a constant one). x and y float64 (n,): the paired values, none NaN."""
    x, y = np.ascontiguousarray(x, np.float64), np.ascontiguousarray(y, np.float64)
    if len(x) != len(y):
        raise ValueError(f"x and y are paired: {len(x)} against {len(y)} values")
    return float(_rho(x, y))


@njit(cache=True, nogil=True)
def _ranks(values):
    """Average ranks (1-based) of `values` float64 (n,)."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.shape[0], np.float64)
    i = 0
    while i < order.shape[0]:
        j = i
        while j + 1 < order.shape[0] and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


@njit(cache=True, nogil=True)
def _rho(x, y):
    """Spearman's rho of x against y float64 (n,) (see spearman)."""
    n = x.shape[0]
    if n < 2:
        return np.nan
    rx, ry = _ranks(x), _ranks(y)
    mx, my = rx.mean(), ry.mean()
    sxy, sxx, syy = 0.0, 0.0, 0.0
    for i in range(n):
        dx, dy = rx[i] - mx, ry[i] - my
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    return sxy / np.sqrt(sxx * syy) if sxx > 0 and syy > 0 else np.nan
