"""Spearman's rank correlation of two columns within each of many segments, compiled.

The surveillance marts take one per rating over its block's cells (stake against edge): a
group-by in Polars ranks every segment through its general machinery, this sorts each in place.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


def spearman_by_segment(starts: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of x against y within each segment, ties ranked by their average (NaN for a
    segment of fewer than two values or a constant one).

    starts int64 (n_segments + 1,): segment s is x[starts[s]:starts[s + 1]], nondecreasing, from 0
    to len(x); x and y float64 (n_values,): the paired values, none NaN."""
    starts = np.ascontiguousarray(starts, np.int64)
    x, y = np.ascontiguousarray(x, np.float64), np.ascontiguousarray(y, np.float64)
    if len(x) != len(y) or len(starts) == 0 or starts[0] != 0 or starts[-1] != len(x):
        raise ValueError("the segments and their values do not line up")
    out = np.full(len(starts) - 1, np.nan)
    _spearman(starts, x, y, out)
    return out


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


@njit(cache=True, nogil=True, parallel=True)
def _spearman(starts, x, y, out):
    """Fill out float64 (n_segments,) with each segment's rho (see spearman_by_segment)."""
    for s in prange(starts.shape[0] - 1):
        lo, hi = starts[s], starts[s + 1]
        n = hi - lo
        if n < 2:
            continue
        rx, ry = _ranks(x[lo:hi]), _ranks(y[lo:hi])
        mx, my = rx.mean(), ry.mean()
        sxy, sxx, syy = 0.0, 0.0, 0.0
        for i in range(n):
            dx, dy = rx[i] - mx, ry[i] - my
            sxy += dx * dy
            sxx += dx * dx
            syy += dy * dy
        if sxx > 0 and syy > 0:
            out[s] = sxy / np.sqrt(sxx * syy)
