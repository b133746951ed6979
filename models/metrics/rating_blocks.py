"""The surveillance tests' blocks laid out, compiled: each rating's present coups by the bet types it
wagered, the edges the permutation test weighs, what its stakes win at random timing and the rank
correlation of stake with edge (surveillance.py says what each means).

The test weighs a side bet's edge only where it favours the player (`max(edge, 0)`): what it looks for
is stakes placed at an advantage. A timing that merely lost less (a Tie late in a shoe at -7 % rather
than -14 %) takes no advantage, and once weighed it flagged players who never bet at one.

A rating's block is `n` rows (its present coups, from coup `lo` on) by `width` columns (its bet
types); cell (row, column) holds the edge of the column's bet at coup lo + row. Laid out with NumPy
it took a dozen arrays the size of every cell of every block; here each block is a rating's loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from models.metrics.rank_correlation import _rho


@dataclass(frozen=True)
class Blocks:
    """Per test: the edges the permutation test weighs (`edges`, its blocks end to end: a side bet's
    player edge where it is positive, else 0, and 0 for a main hand's cell or an unknown edge), what
    its stakes would win at random timing (`expected`), what the weighed edges give its stakes at
    random timing (`expected_advantage`: the test statistic's mean under the null) and Spearman's rho
    of stake against edge over the cells of known edge (`rho`, NaN when either is constant or fewer
    than two)."""

    edges: np.ndarray  # float64 (blocks[-1],)
    expected: np.ndarray  # float64 (n_tests,)
    expected_advantage: np.ndarray  # float64 (n_tests,)
    rho: np.ndarray  # float64 (n_tests,)


def rating_blocks(
    edge_table: np.ndarray,
    lo: np.ndarray,
    n: np.ndarray,
    widths: np.ndarray,
    bets: np.ndarray,
    main: np.ndarray,
    blocks: np.ndarray,
    entries: np.ndarray,
    rows: np.ndarray,
    columns: np.ndarray,
    stakes: np.ndarray,
) -> Blocks:
    """Lay out every test's block.

    edge_table float64 (coups, bet types): the player's edge of every bet at every coup, NaN where
    unknown. Per test t: lo int64 (n_tests,), its first present coup (a row of edge_table); n int64,
    its present coups; widths int64, its columns; bets int64 (sum of widths,), each column's bet
    type (a column of edge_table), test t's at bets[sum(widths[:t]):][:widths[t]]; main bool (bet
    types,): the main hands, whose edges the test does not weigh; blocks int64 (n_tests + 1,): test
    t's cells are blocks[t]:blocks[t + 1] (n x width, row-major). Stakes: entries int64 (n_tests + 1,),
    test t's are entries[t]:entries[t + 1]; rows, columns int64 and stakes float64 (n_stakes,),
    each stake's cell in its test's block."""
    arrays = [np.ascontiguousarray(a, np.int64) for a in (lo, n, widths, bets, blocks, entries, rows, columns)]
    edge_table = np.ascontiguousarray(edge_table, np.float64)
    stakes, main = np.ascontiguousarray(stakes, np.float64), np.ascontiguousarray(main, np.bool_)
    tests = len(arrays[0])
    out = Blocks(np.zeros(int(arrays[4][-1]) if tests else 0), np.zeros(tests), np.zeros(tests), np.full(tests, np.nan))
    _layout(edge_table, *arrays, stakes, main, out.edges, out.expected, out.expected_advantage, out.rho)
    return out


def pair_counts(
    edge_table: np.ndarray, lo: np.ndarray, n: np.ndarray, bets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per (rating, bet type) pair: the coups where its edge favoured the player (> 0) and those where
    it is known, over its rating's present coups. edge_table float64 (coups, bet types) as
    `rating_blocks` takes it; lo, n and bets int64 (n_pairs,): the pair's first present coup, its
    present coups and its bet type."""
    lo, n, bets = (np.ascontiguousarray(a, np.int64) for a in (lo, n, bets))
    favoured, known = np.zeros(len(lo), np.int64), np.zeros(len(lo), np.int64)
    _counts(np.ascontiguousarray(edge_table, np.float64), lo, n, bets, favoured, known)
    return favoured, known


@njit(cache=True, nogil=True, parallel=True)
def _counts(edge_table, lo, n, bets, favoured, known):
    """Fill favoured and known int64 (n_pairs,) (see pair_counts)."""
    for i in prange(lo.shape[0]):
        for row in range(lo[i], lo[i] + n[i]):
            edge = edge_table[row, bets[i]]
            favoured[i] += edge > 0
            known[i] += edge == edge


@njit(cache=True, nogil=True, parallel=True)
def _layout(
    edge_table, lo, n, widths, bets, blocks, entries, rows, columns, stakes, main, edges, expected, expected_advantage,
    rho,
):  # fmt: skip
    """Fill edges, expected, expected_advantage and rho (see rating_blocks), a test per iteration, spread
    over the threads."""
    starts = np.zeros(widths.shape[0] + 1, np.int64)
    for t in range(widths.shape[0]):
        starts[t + 1] = starts[t] + widths[t]
    for t in prange(widths.shape[0]):
        base, width, size = blocks[t], widths[t], n[t]
        staked = np.zeros(size * width)
        for e in range(entries[t], entries[t + 1]):  # in their order, as a bincount adds them
            staked[rows[e] * width + columns[e]] += stakes[e]
        xs, ys = np.empty(size * width), np.empty(size * width)
        seen = 0
        for row in range(size):  # row-major, as the cells lie in the block
            for column in range(width):
                bet = bets[starts[t] + column]
                edge = edge_table[lo[t] + row, bet]
                cell = row * width + column
                known = edge == edge
                if known:
                    xs[seen], ys[seen] = staked[cell], edge
                    seen += 1
                # the one place the test's rule lives: a side bet's advantage, nothing for a worse edge
                edges[base + cell] = max(edge, 0.0) if known and not main[bet] else 0.0
        total, advantage = 0.0, 0.0
        for column in range(width):  # each bet type's stakes times its mean edge over the coups
            bet = bets[starts[t] + column]
            edge_sum, weighed_sum, stake_sum = 0.0, 0.0, 0.0
            for row in range(size):
                edge = edge_table[lo[t] + row, bet]
                edge_sum += edge if edge == edge else 0.0
                weighed_sum += edges[base + row * width + column]
                stake_sum += staked[row * width + column]
            total += edge_sum / size * stake_sum
            advantage += weighed_sum / size * stake_sum
        expected[t] = total
        expected_advantage[t] = advantage
        rho[t] = _rho(xs[:seen], ys[:seen])
