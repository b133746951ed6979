"""marts.side_bets: the tie and every side bet per table, gaming day and game: handle, house win
against theo, hold and the z of the difference."""

from __future__ import annotations

import polars as pl

from models.money_units import MONEY_SUM, THEO_SUM
from models.ratios import ratio, theo_over_handle, win_over_handle, win_vs_theo_z

ORDER = ("gaming_day", "table_id", "game", "bet")
COLUMNS = (
    "wagers", "handle", "house_win", "theo", "hold_pct", "win_variance", "win_vs_theo_z", "win_over_handle",
    "theo_over_handle",
)  # fmt: skip


def side_bets(cells: pl.DataFrame) -> pl.DataFrame:
    """The side bets' sums (`ratings.Rated.side_bets`: every wager, rated or not, in ORDER already) with
    hold_pct (house win per 100 of handle), z, win_over_handle and theo_over_handle, as marts.table_day's."""
    return (
        cells.lazy()
        .with_columns(
            pl.col("wagers").cast(pl.Int64),
            pl.col("handle", "house_win").cast(MONEY_SUM),
            pl.col("theo").cast(THEO_SUM),
        )
        .with_columns(
            win_over_handle(), theo_over_handle(), win_vs_theo_z(), hold_pct=ratio("house_win", "handle") * 100
        )
        .select(*ORDER, *COLUMNS)
        .collect()
    )
