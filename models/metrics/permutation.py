"""A permutation test of "bets when the edge is high", with Besag and Clifford's sequential stopping.

Each test is a rating: a block of edges, its present coups (rows) by the bet types it wagered
(columns), and its stakes, each at a row and column. The statistic is the sum of stake x edge over
the edges the block holds (surveillance's hold a side bet's advantage: rating_blocks.py). Under the
null the player's timing is unrelated to the shoe: what they staked coup by coup (the whole row:
their banker, tie and Dragon 7 stakes together) is exchangeable over the present coups. A
permutation moves each coup's stakes, together, to another coup and keeps the edges in place; every
stake stays on its bet type, so the test is stratified by bet type, and the rows move as one because
a player's bets in one coup are not independent (one main hand a coup: shuffling each bet type apart
would understate the statistic's spread).

Besag and Clifford (1991, "Sequential Monte Carlo p-values", Biometrika 78, 301-304): draw
permutations until `h` of them reach the observed statistic or `n - 1` have been drawn. Stopped
after l draws with h reaching it, p = h / l; otherwise, with g < h of n - 1 reaching it,
p = (g + 1) / n. Here n - 1 = `max_permutations`, so an undecided test gets
(g + 1) / (max_permutations + 1). Either way P(p <= u) <= u under the null (the p-value is valid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

#: splitmix64's constants (Steele, Lea and Flood 2014), as unsigned words so numba keeps them so.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
#: Permuted sums reach the observed one within this share of the statistic's scale (float rounding
#: of the same products added in another order must count as a tie, not a miss).
_TIE = 1e-9


@dataclass(frozen=True)
class Tested:
    """Per test: the observed statistic, permutations drawn, how many reached it, and the p-value."""

    observed: np.ndarray  # float64
    permutations: np.ndarray  # int64
    exceedances: np.ndarray  # int64
    p_value: np.ndarray  # float64


def sequential_p_values(
    edges: np.ndarray,
    blocks: np.ndarray,
    widths: np.ndarray,
    stakes: np.ndarray,
    rows: np.ndarray,
    columns: np.ndarray,
    entries: np.ndarray,
    seeds: np.ndarray,
    h: int = 20,
    max_permutations: int = 100_000,
) -> Tested:
    """One-sided p-values of sum(stake x edge) under permutation of the coups, one per test.

    edges float64: the tests' blocks end to end, each row-major (coups x bet types; an edge not
    known is 0: it counts for nothing wherever a stake lands); blocks int64 (n_tests + 1,): test t's
    block is edges[blocks[t]:blocks[t + 1]]; widths int64 (n_tests,): its bet types (columns).
    stakes float64, rows and columns int64 (n_stakes,): each stake and its coup and bet type in its
    test's block; entries int64 (n_tests + 1,): test t's stakes are entries[t]:entries[t + 1],
    sorted by row. seeds uint64 (n_tests,): each test's own stream, so its p-value depends on its
    data and seed only. `h`: the permuted statistics at or above the observed one that stop a test;
    `max_permutations`: the most drawn."""
    if h < 1 or max_permutations < 1:
        raise ValueError(f"the test needs h >= 1 and max_permutations >= 1, got {h} and {max_permutations}")
    edges, stakes = np.ascontiguousarray(edges, np.float64), np.ascontiguousarray(stakes, np.float64)
    blocks, widths = np.ascontiguousarray(blocks, np.int64), np.ascontiguousarray(widths, np.int64)
    rows, columns = np.ascontiguousarray(rows, np.int64), np.ascontiguousarray(columns, np.int64)
    entries, seeds = np.ascontiguousarray(entries, np.int64), np.ascontiguousarray(seeds, np.uint64)
    n = len(seeds)
    if len(blocks) != n + 1 or len(widths) != n or len(entries) != n + 1 or blocks[-1] != len(edges):
        raise ValueError("the tests' blocks, widths, stakes and seeds do not line up")
    if entries[-1] != len(stakes) or len(rows) != len(stakes) or len(columns) != len(stakes):
        raise ValueError("the stakes, their rows and columns do not line up")
    out = Tested(np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n))
    _tests(edges, blocks, widths, stakes, rows, columns, entries, seeds, h, max_permutations, *vars(out).values())
    return out


@njit(cache=True, nogil=True, inline="always")
def _next(state):
    """splitmix64: the next 64-bit word of state[0]'s stream."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True, inline="always")
def _below(state, m):
    """A uniform integer in [0, m): 53 random bits scaled (bias below m / 2**53, far under any use)."""
    return np.int64((_next(state) >> _S11) * (1.0 / 9007199254740992.0) * m)


@njit(cache=True, nogil=True, parallel=True)
def _tests(
    edges, blocks, widths, stakes, rows, columns, entries, seeds, h, max_permutations, observed, permutations,
    exceedances, p_value,
):  # fmt: skip
    """Run each test (see sequential_p_values), the tests spread over the threads; fills the four
    outputs (n_tests,)."""
    width_max = max(1, int(widths.max())) if widths.shape[0] else 1
    for t in prange(entries.shape[0] - 1):
        counts = np.zeros(width_max, np.int64)
        first = np.zeros(width_max, np.float64)
        same = np.zeros(width_max, np.bool_)
        state = np.zeros(1, np.uint64)
        base, width = blocks[t], widths[t]
        n = (blocks[t + 1] - base) // width if width else 0
        a, b = entries[t], entries[t + 1]
        # a bet type staked alike at every coup gives the same sum under every permutation: fixed
        counts[:width] = 0
        same[:width] = True
        for e in range(a, b):
            c = columns[e]
            if counts[c] == 0:
                first[c] = stakes[e]
            same[c] = same[c] and stakes[e] == first[c]
            counts[c] += 1
        total, scale, constant = 0.0, 0.0, 0.0
        top = 0.0
        for q in range(base, blocks[t + 1]):
            top = max(top, abs(edges[q]))
        moving = np.empty(b - a, np.int64)  # the stakes a permutation moves, in row order
        m = 0
        for e in range(a, b):
            part = stakes[e] * edges[base + rows[e] * width + columns[e]]
            total += part
            scale += abs(stakes[e]) * top
            if counts[columns[e]] == n and same[columns[e]]:
                constant += part
            else:
                moving[m] = e
                m += 1
        observed[t] = total
        threshold = total - _TIE * scale
        positions = np.arange(n)  # the coups' order, shuffled in place: any order serves the next draw
        state[0] = seeds[t]
        drawn, reached = 0, 0
        while drawn < max_permutations and reached < h:
            value = constant
            k, row, target = 0, -1, 0
            for i in range(m):
                e = moving[i]
                if rows[e] != row:
                    # partial Fisher-Yates: the k-th coup with stakes moves to a uniform coup
                    # among those not yet taken
                    row = rows[e]
                    j = k + _below(state, n - k)
                    positions[k], positions[j] = positions[j], positions[k]
                    target = positions[k]
                    k += 1
                value += stakes[e] * edges[base + target * width + columns[e]]
            drawn += 1
            if value >= threshold:
                reached += 1
        permutations[t] = drawn
        exceedances[t] = reached
        p_value[t] = reached / drawn if reached >= h else (reached + 1) / (max_permutations + 1)
