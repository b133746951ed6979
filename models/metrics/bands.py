"""Is the play normal? The Banker share of decided coups against the exact odds (the tie rate has its
own metric, `ties.tie_frequency`)."""

from __future__ import annotations

import polars as pl

from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.metrics.theory import outcome_rates


def banker_share_band(rounds: pl.LazyFrame, by: list[str], table: PayTable = DEFAULT_PAYTABLE) -> pl.DataFrame:
    """Per group of coups (needs game, decks, outcome): Banker wins among decided coups against the
    exact expectation for each coup's game and decks, as a z-score (normal approximation, summed per coup)."""
    rates = outcome_rates(table).lazy().select("game", "decks", "p_banker", "p_player")
    q = pl.col("p_banker") / (pl.col("p_banker") + pl.col("p_player"))
    decided = pl.col("outcome") != "T"
    return (
        rounds.with_columns(pl.col("decks").cast(pl.Int8))
        .join(rates, on=["game", "decks"], how="left")
        .group_by(by)
        .agg(
            coups=pl.len(),
            ties=(~decided).sum(),
            decided=decided.sum(),
            banker_wins=(pl.col("outcome") == "B").sum(),
            expected_banker=q.filter(decided).sum(),
            banker_variance=(q * (1 - q)).filter(decided).sum(),
        )
        .with_columns(
            banker_share=pl.col("banker_wins") / pl.col("decided"),
            expected_banker_share=pl.col("expected_banker") / pl.col("decided"),
            banker_z=(pl.col("banker_wins") - pl.col("expected_banker")) / pl.col("banker_variance").sqrt(),
        )
        .drop("banker_variance")
        .sort(by)
        .collect()
    )
