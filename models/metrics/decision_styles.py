"""marts.decision_styles: which way of playing the free decisions best explains each player's choices.

Every choice of marts.decisions is scored under each candidate style by the probability that style
gives it, floored at a tremble (one slip does not rule a style out); a player's log-likelihood under a
style is the sum of the logs. The best style is named, together with every style the choices cannot
tell from it (a likelihood within a factor of `MARGIN`'s), with its evidence: the log-likelihood ratio
over the best style told apart. docs/metrics.md tells the columns and why the minimum and the margin.
"""

from __future__ import annotations

import math

import polars as pl

from models.money_units import MONEY_SUM

#: The candidate styles, in the order a tie names them, and each one's probability of drawing.
STYLES = {
    "always_draw": pl.lit(1.0),
    "always_stand": pl.lit(0.0),
    "equilibrium": pl.col("equilibrium_draw"),
    "house": pl.col("house_draw"),
}
#: The least probability a style gives any choice: a slip of the hand, not a change of style.
TREMBLE = 0.01
#: Fewer decisions than this name no style: a single deviation is no evidence.
MIN_DECISIONS = 10
#: Styles whose likelihoods are within this log-ratio of the best are not told apart: ln 20, a likelihood
#: ratio of 20 to 1 ("strong" evidence on Kass and Raftery's scale) is needed to rule a style out.
MARGIN = math.log(20)
KEYS = ("game", "decider", "player_id")
COLUMNS = (
    *KEYS, "decisions", "drew", "deviations", "cost_money",
    *(f"loglik_{name}" for name in STYLES), "style", "evidence",
)  # fmt: skip


def choice_logliks(decisions: pl.LazyFrame, tremble: float = TREMBLE) -> pl.LazyFrame:
    """Each decision with `loglik_<style>`: the natural log of the probability that the style makes
    the choice made, floored at `tremble`."""
    drew = pl.col("choice") == "draw"
    return decisions.with_columns(
        pl.when(drew).then(p).otherwise(1.0 - p).clip(lower_bound=tremble).log().alias(f"loglik_{name}")
        for name, p in STYLES.items()
    )


def decision_styles(decisions: pl.LazyFrame, tremble: float = TREMBLE, minimum: int = MIN_DECISIONS) -> pl.DataFrame:
    """One row per game, decider and player over `decisions` (marts.decisions' rows with a player):
    COLUMNS, the style null below `minimum` decisions, the evidence null where no style is told apart
    from the best; sorted by KEYS."""
    logliks = [f"loglik_{name}" for name in STYLES]
    per_player = (
        choice_logliks(decisions.filter(pl.col("player_id").is_not_null()), tremble)
        .group_by(KEYS)
        .agg(
            *(pl.col(name).sum() for name in logliks),
            decisions=pl.len().cast(pl.UInt32),
            drew=(pl.col("choice") == "draw").sum().cast(pl.UInt32),
            deviations=(pl.col("cost") > 0).sum().cast(pl.UInt32),
            cost_money=pl.col("cost_money").sum().cast(MONEY_SUM),
        )
        .with_columns(_best=pl.max_horizontal(logliks))
    )
    tied = [pl.col(name) >= pl.col("_best") - MARGIN for name in logliks]
    runner_up = pl.max_horizontal(pl.when(~tie).then(pl.col(name)) for tie, name in zip(tied, logliks, strict=True))
    enough = pl.col("decisions") >= minimum
    named = pl.concat_str(
        [pl.when(tie).then(pl.lit(name)) for tie, name in zip(tied, STYLES, strict=True)],
        separator=" or ",
        ignore_nulls=True,
    )
    return (
        per_player.with_columns(
            style=pl.when(enough).then(named),
            evidence=pl.when(enough).then(pl.col("_best") - runner_up),
        )
        .select(COLUMNS)
        .sort(KEYS)
        .collect()
    )
