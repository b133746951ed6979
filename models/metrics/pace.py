"""Dealer pace: coups an hour per dealer, table, gaming day and game, against the house's median,
beside the dealer's errors (quarantined rows by reason, from `models.warehouse.dealer_errors`).

A dealer's time is the sum of the gaps between consecutive coups of one shoe (by round_no) that
they dealt both of: a gap where the dealer changes belongs to nobody, the gap across a shuffle
(between shoes) is never counted, and a gap over `break_minutes` is a break, left out. Each gap
belongs to the gaming day of the coup that ends it. Coups with no dealer named have no row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from models.metrics.coups import changes
from models.settings import DEFAULTS

KEYS = ("dealer_id", "table_id", "gaming_day", "game")
ERROR_COUNTS = ("quarantined", "tableau_violations", "outcome_mismatches", "payout_mismatches")
#: The mart's columns, in order (spec19).
COLUMNS = (
    *KEYS, "coups", "minutes", "coups_per_hour", "house_median", "pace_vs_median", *ERROR_COUNTS
)  # fmt: skip
ORDER = ("gaming_day", "dealer_id", "table_id", "game")
_TEXT = ("dealer_id", "table_id", "game")


def dealer_pace(
    coups: pl.LazyFrame,
    errors: pl.DataFrame,
    break_minutes: float = DEFAULTS.pace_break_minutes,
    in_order: bool = False,
) -> pl.DataFrame:
    """marts.dealer_pace from the coups (table_id, shoe_id, round_no, started_at, game, dealer_id,
    gaming_day) and the dealers' error counts per dealer_id, table_id and gaming_day (`dealer_errors`).
    `in_order`: the coups already come shoe by shoe, in round order (saves a sort)."""
    stints = with_errors(pace_stints(coups, break_minutes, in_order), errors)
    # the gaps counted over the hours they took; a dealer's single coup (no gap) has no pace
    hourly = pl.when(pl.col("minutes") > 0).then(pl.col("gaps") / (pl.col("minutes") / 60))
    paced = with_house_median(stints.with_columns(coups_per_hour=hourly.cast(pl.Float64)))
    return paced.sort(*ORDER)  # as the shards combined come out


def pace_stints(
    coups: pl.LazyFrame, break_minutes: float = DEFAULTS.pace_break_minutes, in_order: bool = False
) -> pl.DataFrame:
    """Per dealer, table, gaming day and game: `coups`, `gaps` (those counted) and `minutes` (theirs)."""
    if not break_minutes >= 0:
        raise ValueError(f"the pace break is a number of minutes >= 0, got {break_minutes}")
    ordered = coups.select("table_id", "shoe_id", "round_no", "started_at", "game", "dealer_id", "gaming_day")
    if not in_order:
        ordered = ordered.sort("table_id", "shoe_id", "round_no")
    rows = ordered.collect().rechunk()  # whole columns: the passes below read them end to end
    # a gap is counted where the coup before was of the same shoe and the same (named) dealer
    handover = changes(rows["table_id"], rows["dealer_id"])
    stint_starts = handover | changes(rows["shoe_id"])
    micros = rows["started_at"].dt.cast_time_unit("us").to_physical().to_numpy()
    gap = np.diff(micros, prepend=micros[:1])
    named = rows["dealer_id"].is_not_null().to_numpy()
    # a gap that runs backwards (a clock set wrong) is no time dealt either
    counted = ~stint_starts & named & (gap >= 0) & (gap <= break_minutes * 60e6)
    # stretches of rows with one key (a dealer's shoes in a row are one) are summed by position, in
    # whole microseconds (exactly, however the coups are split); only the stretches are grouped
    heads = np.flatnonzero(handover | changes(rows["gaming_day"], rows["game"]))
    bounds = np.append(heads, rows.height)
    gaps, spans = (np.cumsum(np.concatenate([[0], values]))[bounds] for values in (counted, np.where(counted, gap, 0)))
    stretches = rows.select(KEYS)[heads].with_columns(
        coups=pl.Series(np.diff(bounds), dtype=pl.Int64),
        gaps=pl.Series(np.diff(gaps), dtype=pl.Int64),
        _micros=pl.Series(np.diff(spans), dtype=pl.Int64),
    )
    return (
        stretches.filter(pl.col("dealer_id").is_not_null())
        .group_by(KEYS, maintain_order=True)  # the stints in the order their first coups come
        .agg(pl.col("coups", "gaps", "_micros").sum())
        .select(
            *(pl.col(name).cast(pl.String) if name in _TEXT else name for name in KEYS),  # the marts hold text keys
            "coups",
            "gaps",
            minutes=pl.col("_micros") / 60e6,
        )
    )


def with_errors(stints: pl.DataFrame, errors: pl.DataFrame) -> pl.DataFrame:
    """The stints with each dealer's error counts at the table that day (0 where none). A dealer who
    dealt two games at one table on one day has them on the game they dealt more coups of (on equal
    counts, the first game by name), so no error is counted twice."""
    day = ["dealer_id", "table_id", "gaming_day"]
    counts = errors.select(*day, *ERROR_COUNTS).with_columns(pl.col("dealer_id", "table_id").cast(pl.String))
    # the few stints with errors choose their game; the rest only take zeros
    chosen = (
        stints.select(*KEYS, "coups")
        .join(counts, on=day, how="inner")
        .sort(*day, -pl.col("coups"), "game")
        .unique(day, keep="first", maintain_order=True)
        .drop("coups")
    )
    return stints.join(chosen, on=KEYS, how="left", maintain_order="left").with_columns(
        pl.col(name).fill_null(0).cast(pl.Int64) for name in ERROR_COUNTS
    )


def with_house_median(frame: pl.DataFrame) -> pl.DataFrame:
    """The pace rows with `house_median` (the median coups_per_hour of every row of the gaming day
    and game) and `pace_vs_median` (re)computed over every table the frame holds: the mart's columns,
    the rows in the order given."""
    median = pl.col("coups_per_hour").median().over("gaming_day", "game").cast(pl.Float64)
    return (
        frame.with_columns(house_median=median)
        .with_columns(pace_vs_median=pl.col("coups_per_hour") / pl.col("house_median"))
        .select(COLUMNS)
    )


def dealer_pace_combined(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """marts.dealer_pace of every shard of a day (or days) made one: shards hold whole tables, so
    their rows are put together and the house's median is taken again over every table."""
    return with_house_median(pl.concat(frames, how="vertical")).sort(ORDER)
