"""Is the play normal? The tie rate and the Banker share of decided coups against their exact odds."""

from __future__ import annotations

import polars as pl

from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.metrics.theory import outcome_rates


def outcome_bands(rounds: pl.LazyFrame, by: list[str], table: PayTable = DEFAULT_PAYTABLE) -> pl.DataFrame:
    """Per group of coups (needs game, decks, outcome): ties and Banker wins against the exact
    expectation for each coup's game and decks, as z-scores (normal approximation, summed per coup)."""
    rates = outcome_rates(table).lazy().select("game", "decks", "p_banker", "p_player", "p_tie")
    q = pl.col("p_banker") / (pl.col("p_banker") + pl.col("p_player"))
    decided = pl.col("outcome") != "T"
    return (
        rounds.with_columns(pl.col("decks").cast(pl.Int8))
        .join(rates, on=["game", "decks"], how="left")
        .group_by(by)
        .agg(
            coups=pl.len(),
            ties=(pl.col("outcome") == "T").sum(),
            expected_ties=pl.col("p_tie").sum(),
            tie_variance=(pl.col("p_tie") * (1 - pl.col("p_tie"))).sum(),
            decided=decided.sum(),
            banker_wins=(pl.col("outcome") == "B").sum(),
            expected_banker=q.filter(decided).sum(),
            banker_variance=(q * (1 - q)).filter(decided).sum(),
        )
        .with_columns(
            tie_rate=pl.col("ties") / pl.col("coups"),
            expected_tie_rate=pl.col("expected_ties") / pl.col("coups"),
            tie_z=(pl.col("ties") - pl.col("expected_ties")) / pl.col("tie_variance").sqrt(),
            banker_share=pl.col("banker_wins") / pl.col("decided"),
            expected_banker_share=pl.col("expected_banker") / pl.col("decided"),
            banker_z=(pl.col("banker_wins") - pl.col("expected_banker")) / pl.col("banker_variance").sqrt(),
        )
        .drop("tie_variance", "banker_variance")
        .sort(by)
        .collect()
    )
