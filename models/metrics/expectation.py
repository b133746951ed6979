"""What theory expects of a mixed group of coups, for views that pool the marts' rows: outcome
shares over a mix of games and shoes with their z-scores, a rate's funnel limits, the tenure hazard."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from scipy import stats

from models.metrics.theory import outcome_rates
from models.ratios import binomial_z, ratio


def expected_shares(coups: pl.DataFrame) -> dict[str, float]:
    """Banker, Player and Tie shares theory expects of coups counted by game and decks
    (columns game, decks, coups): the exact rates weighted by the coups of each shoe type."""
    rated = coups.with_columns(pl.col("decks").cast(pl.Int8)).join(outcome_rates(), on=["game", "decks"], how="left")
    total = rated["coups"].sum()
    return {
        outcome: float((rated["coups"] * rated[column]).sum() / total) if total else float("nan")
        for outcome, column in (("B", "p_banker"), ("P", "p_player"), ("T", "p_tie"))
    }


def outcome_shares(volume: pl.DataFrame) -> pl.DataFrame:
    """Banker, Player and Tie (`outcome` B, P, T) over coups counted by game and decks (columns game, decks,
    coups, banker, player, ties): each one's coups, its share of them, the share theory expects
    (`expected_shares`), the z of its count against that share, and the share's deviation from it with
    the exact 95 % interval of that deviation (`deviation`, `low`, `high`, all fractions of the coups)."""
    expected = expected_shares(volume.select("game", "decks", "coups"))
    total = int(volume["coups"].sum())
    counts = [int(volume[column].sum()) for column in ("banker", "player", "ties")]
    low, high = share_interval(counts, total)
    return pl.DataFrame(
        {
            "outcome": list(expected),
            "coups": counts,
            "expected": list(expected.values()),
            "low": low,
            "high": high,
        }
    ).with_columns(
        share=ratio("coups", pl.lit(total)),
        z=binomial_z("coups", pl.lit(total), "expected"),
        deviation=ratio("coups", pl.lit(total)) - pl.col("expected"),
        low=pl.col("low") - pl.col("expected"),
        high=pl.col("high") - pl.col("expected"),
    )


def share_interval(counts: Sequence[int], total: int, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The exact (Clopper-Pearson) `level` interval of each share `counts / total`: NaN without coups."""
    k = np.asarray(counts, dtype=np.float64)
    if not total:
        return np.full(k.shape, np.nan), np.full(k.shape, np.nan)
    tail = (1 - level) / 2
    # the beta quantiles are undefined at 0 and at `total` successes, where the interval ends at 0 or 1
    low = np.where(k > 0, stats.beta.ppf(tail, np.maximum(k, 1), total - k + 1), 0.0)
    high = np.where(k < total, stats.beta.isf(tail, k + 1, np.maximum(total - k, 1)), 1.0)
    return low, high


def funnel_limits(rate: float, volumes: Sequence[int], level: float = 0.95) -> pl.DataFrame:
    """The exact binomial limits a rate `rate` stays within with probability `level`, at each volume:
    the funnel a group's observed rate is plotted against."""
    n = np.asarray(volumes, dtype=np.int64)
    tail = (1 - level) / 2
    return pl.DataFrame(
        {
            "coups": n,
            "low": stats.binom.ppf(tail, n, rate) / n,
            "high": stats.binom.isf(tail, n, rate) / n,
        }
    )


def tenure_hazard(counts: pl.DataFrame, by: Sequence[str] = (), longest: int = 8) -> pl.DataFrame:
    """Bank tenures' pass rate by length against the geometric law, censoring included.

    `counts` holds tenures counted by game, decks, `decided` (decided coups held) and `passed`
    (ended by a pass, else cut by the shoe's end or withdrawn), plus the `by` columns. For each
    length k (pooling k >= `longest`), the tenures still holding at their k-th decided coup are at
    risk; theory expects at_risk x (1 - q) of them to pass there (the test of `tenure_fit`)."""
    keys = list(dict.fromkeys([*by, "game", "decks"]))
    rated = (
        counts.filter(pl.col("decided") >= 1)
        .with_columns(pl.col("decks").cast(pl.Int8))
        .join(outcome_rates().select("game", "decks", "p_keep"), on=["game", "decks"], how="left")
    )
    lengths = pl.DataFrame({"length": np.arange(1, longest + 1, dtype=np.int64)})
    pooled = pl.col("length") == longest
    at_risk = (
        pl.when(pooled).then((pl.col("decided") - longest + 1).clip(0)).otherwise(pl.col("decided") >= pl.col("length"))
    )
    passes = pl.col("passed") & pl.when(pooled).then(pl.col("decided") >= longest).otherwise(
        pl.col("decided") == pl.col("length")
    )
    return (
        rated.join(lengths, how="cross")
        .with_columns(
            at_risk=at_risk.cast(pl.Int64) * pl.col("tenures"),
            passes=passes.cast(pl.Int64) * pl.col("tenures"),
        )
        .group_by(*keys, "length", "p_keep")
        .agg(pl.col("at_risk").sum(), pl.col("passes").sum())
        .with_columns(expected_passes=pl.col("at_risk") * (1 - pl.col("p_keep")))
        .group_by(*by, "length")
        .agg(pl.col("at_risk", "passes", "expected_passes").sum())
        .with_columns(
            pass_rate=pl.col("passes") / pl.col("at_risk"),
            expected_pass_rate=pl.col("expected_passes") / pl.col("at_risk"),
        )
        .sort(*by, "length")
    )
