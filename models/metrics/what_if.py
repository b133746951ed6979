"""Commission under another rate or rounding policy, computed from the winning Banker wagers."""

from __future__ import annotations

from decimal import Decimal

import polars as pl

from models.contract import MONEY
from models.metrics.money import Rounding


def commission_what_if(won: pl.DataFrame, rate: Decimal, rounding: Rounding) -> pl.DataFrame:
    """Per game, the commission the winning Banker wagers in `won` (columns game, amount, wagers:
    how many won at that stake) would have paid at `rate` under `rounding`, beside the count and stake."""
    per_wager = (pl.col("amount").cast(MONEY) * pl.lit(Decimal(str(rate)), dtype=MONEY)).cast(MONEY)
    return (
        won.lazy()
        .with_columns(collected=rounding.apply(per_wager).cast(MONEY))
        .group_by("game")
        .agg(
            wagers=pl.col("wagers").sum(),
            won_amount=(pl.col("amount").cast(MONEY) * pl.col("wagers")).sum().cast(MONEY),
            commission=(pl.col("collected") * pl.col("wagers")).sum().cast(MONEY),
        )
        .sort("game")
        .collect()
    )
