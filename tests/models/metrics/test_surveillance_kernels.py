"""The surveillance marts' compiled kernels against their plain twins: Spearman's rho against
Polars', the rating blocks and pair counts against a loop over every cell."""

import numpy as np
import polars as pl
import pytest

from models.metrics.rank_correlation import spearman
from models.metrics.rating_blocks import pair_counts, rating_blocks


def test_spearman_equals_polars_with_ties_constants_and_tiny_samples():
    rng = np.random.default_rng(3)
    for size in (0, 1, 2, 3, 17, 400):
        stakes = np.where(rng.random(size) < 0.7, 0.0, rng.integers(1, 4, size) * 25.0)
        edges = np.round(rng.normal(size=size), 1)
        theirs = pl.DataFrame({"x": stakes, "y": edges}).select(pl.corr("x", "y", method="spearman")).item()
        mine = spearman(stakes, edges)
        if theirs is None or np.isnan(theirs):
            assert np.isnan(mine)
        else:
            assert mine == pytest.approx(theirs, abs=1e-12)
    assert np.isnan(spearman(np.zeros(9), np.arange(9.0)))  # a constant stake: no correlation


def _tests(rng, coups: int, bet_types: int):
    """Random tests over an edge table: each a span of coups, a few bet types, stakes in some cells."""
    table = rng.normal(scale=0.05, size=(coups, bet_types))
    table[rng.random(table.shape) < 0.1] = np.nan
    lo, n, widths, bets, rows, columns, stakes, entries = [], [], [], [], [], [], [], [0]
    for _ in range(40):
        first = int(rng.integers(0, coups - 1))
        size = int(rng.integers(1, min(30, coups - first) + 1))
        chosen = sorted(rng.choice(bet_types, size=int(rng.integers(1, 4)), replace=False))
        lo.append(first), n.append(size), widths.append(len(chosen)), bets.extend(chosen)
        cells = sorted({(int(rng.integers(0, size)), int(rng.integers(0, len(chosen)))) for _ in range(8)})
        for row, column in cells:
            for _ in range(int(rng.integers(1, 3))):  # a cell staked twice adds up
                rows.append(row), columns.append(column), stakes.append(float(rng.integers(1, 20) * 5))
        entries.append(len(stakes))
    lo, n, widths, bets = (np.array(a, np.int64) for a in (lo, n, widths, bets))
    blocks = np.r_[0, np.cumsum(n * widths)]
    return table, lo, n, widths, bets, blocks, np.array(entries), np.array(rows), np.array(columns), np.array(stakes)


def test_rating_blocks_equal_a_loop_over_every_cell():
    rng = np.random.default_rng(11)
    table, lo, n, widths, bets, blocks, entries, rows, columns, stakes = _tests(rng, 200, 6)
    main = np.array([True, True, False, False, False, False])
    laid = rating_blocks(table, lo, n, widths, bets, main, blocks, entries, rows, columns, stakes)
    first = np.r_[0, np.cumsum(widths)]
    for t in range(len(lo)):
        staked = np.zeros((n[t], widths[t]))
        for e in range(entries[t], entries[t + 1]):
            staked[rows[e], columns[e]] += stakes[e]
        block = table[lo[t] : lo[t] + n[t]][:, bets[first[t] : first[t + 1]]]
        # the test weighs a side bet's advantage alone: a positive edge, else nothing
        weighed = np.where(np.isnan(block) | main[bets[first[t] : first[t + 1]]], 0.0, np.maximum(block, 0.0))
        assert np.array_equal(laid.edges[blocks[t] : blocks[t + 1]], weighed.ravel())
        expected = sum(np.nan_to_num(block[:, c]).mean() * staked[:, c].sum() for c in range(widths[t]))
        assert laid.expected[t] == pytest.approx(expected, rel=1e-12, abs=1e-15)
        advantage = sum(weighed[:, c].mean() * staked[:, c].sum() for c in range(widths[t]))
        assert laid.expected_advantage[t] == pytest.approx(advantage, rel=1e-12, abs=1e-15)
        seen = ~np.isnan(block.ravel())
        rho = spearman(staked.ravel()[seen], block.ravel()[seen])
        assert (np.isnan(rho) and np.isnan(laid.rho[t])) or laid.rho[t] == pytest.approx(rho, abs=1e-12)


def test_pair_counts_equal_a_loop():
    rng = np.random.default_rng(5)
    table = rng.normal(size=(50, 4))
    table[rng.random(table.shape) < 0.2] = np.nan
    lo, n, bets = np.array([0, 10, 49, 3]), np.array([50, 5, 1, 0]), np.array([0, 3, 2, 1])
    favoured, known = pair_counts(table, lo, n, bets)
    for i in range(4):
        column = table[lo[i] : lo[i] + n[i], bets[i]]
        assert favoured[i] == int((column > 0).sum()) and known[i] == int((~np.isnan(column)).sum())
