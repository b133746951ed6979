"""A stratified permutation test of "bets when the edge is high", with Besag and Clifford's stopping.

Each test is a rating: its cells are (present coup, bet type) pairs holding the stake (0 where the
player did not bet) and the player's edge there. The statistic is the sum of stake x edge (what the
stakes' timing was worth); under the null each bet type's stakes are exchangeable over the coups,
so a permutation shuffles the stakes within each bet type (a stratum) and keeps the edges in place.

Besag and Clifford (1991, "Sequential Monte Carlo p-values", Biometrika 78, 301-304): draw
permutations until `h` of them reach the observed statistic or `n - 1` have been drawn. Stopped
after l draws with h reaching it, p = h / l; otherwise, with g < h of n - 1 reaching it,
p = (g + 1) / n. Here n - 1 = `max_permutations`, so an undecided test gets
(g + 1) / (max_permutations + 1). Either way P(p <= u) <= u under the null (the p-value is valid).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

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
    stakes: np.ndarray,
    edges: np.ndarray,
    strata: np.ndarray,
    tests: np.ndarray,
    seeds: np.ndarray,
    h: int = 20,
    max_permutations: int = 100_000,
) -> Tested:
    """One-sided p-values of sum(stake x edge) under stratified permutation, one per test.

    stakes, edges float64 (cells,): each cell's stake and edge, the cells of one stratum together;
    strata int64 (n_strata + 1,): stratum s holds cells strata[s]:strata[s + 1]; tests int64
    (n_tests + 1,): test t holds strata tests[t]:tests[t + 1]; seeds uint64 (n_tests,): each test's
    own stream, so a test's p-value depends on its data and seed only. `h`: the permuted statistics
    at or above the observed one that stop a test; `max_permutations`: the most drawn."""
    if h < 1 or max_permutations < 1:
        raise ValueError(f"the test needs h >= 1 and max_permutations >= 1, got {h} and {max_permutations}")
    stakes, edges = np.ascontiguousarray(stakes, np.float64), np.ascontiguousarray(edges, np.float64)
    strata, tests = np.ascontiguousarray(strata, np.int64), np.ascontiguousarray(tests, np.int64)
    seeds = np.ascontiguousarray(seeds, np.uint64)
    if stakes.shape != edges.shape or strata[-1] != stakes.shape[0] or tests[-1] != strata.shape[0] - 1:
        raise ValueError("the cells, strata and tests do not line up")
    n = tests.shape[0] - 1
    out = Tested(np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n))
    # each stratum's nonzero stakes: only they are placed (a shuffle of the zeros changes nothing)
    nonzero = np.flatnonzero(stakes != 0.0)
    placed = np.searchsorted(nonzero, strata)
    _tests(stakes, edges, strata, tests, seeds, nonzero, placed, h, max_permutations, *vars(out).values())
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


@njit(cache=True, nogil=True)
def _tests(
    stakes, edges, strata, tests, seeds, nonzero, placed, h, max_permutations, observed, permutations, exceedances,
    p_value,
):  # fmt: skip
    """Run each test (see sequential_p_values); fills the four outputs (n_tests,). nonzero int64:
    the cells with a stake, in order; stratum s's are nonzero[placed[s]:placed[s + 1]]."""
    # each stratum's positions, shuffled in place: any order of them serves the next draw
    positions = np.arange(stakes.shape[0])
    fixed = np.zeros(strata.shape[0] - 1, np.bool_)
    state = np.zeros(1, np.uint64)
    for t in range(tests.shape[0] - 1):
        state[0] = seeds[t]
        total, scale, constant = 0.0, 0.0, 0.0
        for s in range(tests[t], tests[t + 1]):
            a, b = strata[s], strata[s + 1]
            part, top = 0.0, 0.0
            fixed[s] = True
            for c in range(a, b):
                part += stakes[c] * edges[c]
                top = max(top, abs(edges[c]))
                fixed[s] = fixed[s] and stakes[c] == stakes[a]
            for c in range(a, b):
                scale += abs(stakes[c]) * top
            total += part
            if fixed[s]:  # one stake at every coup (or none): every permutation gives the same
                constant += part
        observed[t] = total
        threshold = total - _TIE * scale
        drawn, reached = 0, 0
        while drawn < max_permutations and reached < h:
            value = constant
            for s in range(tests[t], tests[t + 1]):
                if fixed[s]:
                    continue
                a, m = strata[s], strata[s + 1] - strata[s]
                for k in range(placed[s + 1] - placed[s]):
                    # partial Fisher-Yates: the k-th stake lands on a uniform position among those
                    # of the stratum not yet taken
                    j = a + k + _below(state, m - k)
                    positions[a + k], positions[j] = positions[j], positions[a + k]
                    value += stakes[nonzero[placed[s] + k]] * edges[positions[a + k]]
            drawn += 1
            if value >= threshold:
                reached += 1
        permutations[t] = drawn
        exceedances[t] = reached
        p_value[t] = reached / drawn if reached >= h else (reached + 1) / (max_permutations + 1)
