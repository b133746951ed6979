"""Tie frequency against the exact rate: z, exact binomial p-value, Wilson interval, q-value and FDR flag."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from scipy import stats

from models.metrics.theory import outcome_rates
from models.ratios import binomial_z

Z95 = 1.959963984540054
#: The false-discovery rate of the tie flags (a fixed test of the dealing, not surveillance's setting).
ALPHA = 0.05


def _wilson(successes: pl.Expr, trials: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Wilson score 95% interval of a proportion."""
    p = successes / trials
    centre = (p + Z95**2 / (2 * trials)) / (1 + Z95**2 / trials)
    half = Z95 * (p * (1 - p) / trials + Z95**2 / (4 * trials**2)).sqrt() / (1 + Z95**2 / trials)
    return (centre - half).alias("ci_low"), (centre + half).alias("ci_high")


def binomial_p_values(successes: np.ndarray, trials: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Exact two-sided binomial p-values, as scipy's `binomtest` computes them: the probability of
    every count no more likely than the one seen. The distribution of each distinct (trials, p) is
    computed once, so many groups of like size cost little."""
    successes, trials = np.asarray(successes, np.int64), np.asarray(trials, np.int64)
    p = np.asarray(p, np.float64)
    out = np.ones(len(successes))
    if not len(out):  # np.unique of no pairs gives one empty group, not none
        return out
    pairs = np.stack([trials.astype(np.float64), p], axis=1)
    for (n, q), members in _groups(pairs):
        pmf = stats.binom.pmf(np.arange(int(n) + 1), int(n), q)
        ordered = np.sort(pmf)
        below = np.cumsum(ordered)
        seen = pmf[successes[members]] * (1 + 1e-7)  # scipy's relative tolerance
        out[members] = np.minimum(1.0, below[np.searchsorted(ordered, seen, side="right") - 1])
    return out


def _groups(keys: np.ndarray):
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    order = np.argsort(inverse.ravel(), kind="stable")
    bounds = np.cumsum(np.bincount(inverse.ravel(), minlength=len(unique)))[:-1]
    return zip(map(tuple, unique), np.split(order, bounds), strict=True)


def q_values(p_values: pl.Series) -> pl.Series:
    """Benjamini-Hochberg adjusted p-values (scipy's) of the non-null p-values compared together;
    null where p is."""
    values = p_values.cast(pl.Float64).fill_null(np.nan).to_numpy()
    known = ~np.isnan(values)
    out = np.full(len(values), np.nan)
    if known.any():
        out[known] = stats.false_discovery_control(values[known])
    return pl.Series("q_value", out).fill_nan(None)


def flag(q: pl.Expr, alpha: float = ALPHA) -> pl.Expr:
    """The false-discovery flag of a group: its q-value (`q_values`) below `alpha`."""
    return (q < alpha).alias("flagged")


def tie_frequency(
    rounds: pl.LazyFrame, by: Sequence[str], alpha: float = ALPHA, compared_within: Sequence[str] = ()
) -> pl.DataFrame:
    """Ties per group beside the exact rate for the group's game and shoe size.

    `flagged` corrects for the number of groups compared together: all of them, or those sharing
    the `compared_within` columns (the tables of one gaming day, say)."""
    return tie_statistics(tie_counts(rounds, by), by, alpha, compared_within)


def tie_counts(rounds: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """Coups and ties per group, game and decks: what `tie_statistics` needs; they pool exactly
    into any coarser grouping (shards' counts summed give the whole's)."""
    return rounds.group_by(*by, "game", "decks").agg(coups=pl.len(), ties=(pl.col("outcome") == "T").sum())


def tie_statistics(
    counts: pl.LazyFrame, by: Sequence[str], alpha: float = ALPHA, compared_within: Sequence[str] = ()
) -> pl.DataFrame:
    """`tie_frequency` from the counts per group (`tie_counts`): rate, Wilson interval, z and exact
    p-value against the game's rate, its q-value and the false-discovery flag."""
    grouped = (
        counts.join(
            outcome_rates().lazy().select("game", "decks", expected_rate="p_tie"), on=["game", "decks"], how="left"
        )
        .with_columns(tie_rate=pl.col("ties") / pl.col("coups"))
        .with_columns(
            *_wilson(pl.col("ties"), pl.col("coups")),
            z=binomial_z("ties", "coups", "expected_rate"),
        )
        .sort(*by, "game", "decks")
        .collect()
    )
    p_values = binomial_p_values(
        grouped["ties"].to_numpy(), grouped["coups"].to_numpy(), grouped["expected_rate"].to_numpy()
    )
    return with_flags(grouped.with_columns(p_value=pl.Series(p_values, dtype=pl.Float64)), alpha, compared_within)


def with_flags(groups: pl.DataFrame, alpha: float = ALPHA, compared_within: Sequence[str] = ()) -> pl.DataFrame:
    """The groups with `q_value` and `flagged` (re)computed from their `p_value`s: Benjamini-Hochberg
    over all of them, or over those sharing the `compared_within` columns."""
    q = pl.col("p_value").map_batches(q_values, return_dtype=pl.Float64)
    q = q.over(compared_within) if compared_within else q
    return groups.with_columns(q_value=q).with_columns(flag(pl.col("q_value"), alpha))


def ties_by_total(rounds: pl.LazyFrame, by: Sequence[str] = ()) -> pl.DataFrame:
    """Ties on each total 0..9 against the exact distribution of tie totals."""
    ties = rounds.filter((pl.col("outcome") == "T") & pl.col("player_total").is_not_null())
    counts = ties.group_by(*by, "game", "decks", "player_total").agg(ties=pl.len())
    coups = rounds.filter(pl.col("player_total").is_not_null()).group_by(*by, "game", "decks").agg(coups=pl.len())
    expected = (
        outcome_rates()
        .lazy()
        .select("game", "decks", "p_tie_by_total")
        .explode("p_tie_by_total")
        .with_columns(player_total=pl.int_range(pl.len()).over("game", "decks").cast(pl.Int8))
    )
    return (
        coups.join(expected, on=["game", "decks"])
        .join(counts, on=[*by, "game", "decks", "player_total"], how="left")
        .with_columns(
            ties=pl.col("ties").fill_null(0),
            expected_ties=pl.col("coups") * pl.col("p_tie_by_total"),
        )
        .rename({"player_total": "tie_total"})
        .sort(*by, "game", "decks", "tie_total")
        .collect()
    )
