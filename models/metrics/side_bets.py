"""marts.side_bets: the tie and every side bet per table, gaming day and game: handle, house win
against theo, hold and the z of the difference."""

from __future__ import annotations

import polars as pl

from models.metrics.money import win_vs_theo_z
from models.money_units import MONEY_SUM, THEO_SUM

ORDER = ("gaming_day", "table_id", "game", "bet")


def side_bets(cells: pl.DataFrame) -> pl.DataFrame:
    """The side bets' sums (`ratings.Rated.side_bets`: every wager, rated or not, in ORDER
    already) with hold_pct
    (house win per 100 of handle, as marts.table_day's) and z."""
    return (
        cells.lazy()
        .with_columns(
            pl.col("wagers").cast(pl.Int64),
            pl.col("handle", "house_win").cast(MONEY_SUM),
            pl.col("theo").cast(THEO_SUM),
        )
        .with_columns(
            hold_pct=pl.col("house_win").cast(pl.Float64) / pl.col("handle").cast(pl.Float64) * 100,
            win_vs_theo_z=win_vs_theo_z(),
        )
        .select(*ORDER, "wagers", "handle", "house_win", "theo", "hold_pct", "win_variance", "win_vs_theo_z")
        .collect()
    )
