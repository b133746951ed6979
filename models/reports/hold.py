"""Hold against theoretical hold over the gaming days: the count's win and the wagers' theo, each over the
drop, pooled across whichever tables a caller kept (sums first, then the ratio: never a mean of ratios)."""

from __future__ import annotations

import polars as pl

from models.ratios import pct

#: marts.count_room's columns `by_day` reads.
COLUMNS = ("gaming_day", "drop", "win", "theo")


def by_day(days: pl.DataFrame) -> pl.DataFrame:
    """Rows of marts.count_room (table x gaming day) pooled per gaming day: drop, win, theo, hold_pct
    (win / drop x 100) and theo_hold_pct (theo / drop x 100), null where nothing was dropped."""
    sums = days.group_by("gaming_day").agg(pl.col("drop", "win", "theo").sum()).sort("gaming_day")
    return sums.with_columns(hold_pct=pct("win", "drop"), theo_hold_pct=pct("theo", "drop"))
