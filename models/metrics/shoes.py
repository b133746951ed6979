"""Per-shoe summary: decisions, naturals, pairs, longest runs, cards dealt, reconciliation."""

from __future__ import annotations

import polars as pl

from models.metrics.streaks import SHOE, decision_runs


def shoe_summary(rounds: pl.LazyFrame, shoes: pl.LazyFrame, runs: pl.LazyFrame | None = None) -> pl.DataFrame:
    """One row per shoe; `shoes` is core.shoes (for the reconciliation status), `runs` the shoes'
    `decision_runs` when the caller has them already."""
    counts = rounds.group_by(SHOE).agg(
        game=pl.col("game").first(),
        decks=pl.col("decks").first(),
        gaming_day=pl.col("shoe_day").first(),
        coups=pl.len(),
        banker=(pl.col("outcome") == "B").sum(),
        player=(pl.col("outcome") == "P").sum(),
        ties=(pl.col("outcome") == "T").sum(),
        naturals=pl.col("natural").sum(),
        player_pairs=pl.col("player_pair").sum(),
        banker_pairs=pl.col("banker_pair").sum(),
        cards_dealt=pl.col("cards_used").cast(pl.Int64).sum(),
    )
    runs = (
        (decision_runs(rounds) if runs is None else runs)
        .group_by(SHOE)
        .agg(
            longest_banker_run=pl.col("length").filter(pl.col("side") == "B").max().fill_null(0),
            longest_player_run=pl.col("length").filter(pl.col("side") == "P").max().fill_null(0),
        )
    )
    status = shoes.select(*SHOE, "reconciliation", "reconciled_by")
    return counts.join(runs, on=SHOE, how="left").join(status, on=SHOE, how="left").sort(SHOE).collect()
