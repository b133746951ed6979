"""The regulators' statistical report: per table, game and gaming day, the day's, month-to-date and
year-to-date statistical drop, win and win-to-drop, with each rule's investigation flag
(docs/metrics.md, The statistical report).

Maryland: the MTD hold outside a 95 % interval around the base (the prior calendar year's hold of
that table and game; in its first year, the prior month's), whose half-width is 1.96 x the MTD win's
standard deviation (from each wager's exact variance) over the MTD drop. Kansas: the MTD hold more
than 3 points from that base. Ohio: the rolling 30 gaming days' hold more than 4 points from the
lifetime hold.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from models.metrics.count_room import COUNT
from models.ratios import pct
from models.reports.rules import DEFAULT_RULES, KANSAS_POINTS, OHIO_POINTS, RULES

KEY = ("table_id", "game")
#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.959963984540054
#: Ohio's rolling window, in gaming days (calendar days, whether the table played or not).
ROLLING_DAYS = 30
WIDE = pl.Decimal(38, 2)  # sums of a table's lifetime

REPORT_SCHEMA = {
    "table_id": pl.String, "game": pl.String, "gaming_day": pl.Date,
    "drop": COUNT, "win": COUNT, "hold_pct": pl.Float64,
    "mtd_drop": COUNT, "mtd_win": COUNT, "mtd_hold_pct": pl.Float64, "mtd_win_variance": pl.Float64,
    "ytd_drop": COUNT, "ytd_win": COUNT, "ytd_hold_pct": pl.Float64,
    "md_base_hold_pct": pl.Float64, "md_base_period": pl.String, "md_ci_low": pl.Float64, "md_ci_high": pl.Float64,
    "md_flag": pl.Boolean,
    "ks_base_hold_pct": pl.Float64, "ks_flag": pl.Boolean,
    "oh_rolling_hold_pct": pl.Float64, "oh_lifetime_hold_pct": pl.Float64, "oh_flag": pl.Boolean,
    "investigate": pl.Boolean,
}  # fmt: skip
FLAGS = {"maryland": "md_flag", "kansas": "ks_flag", "ohio": "oh_flag"}


def statistical_report(count_room_days: pl.DataFrame, rules: Sequence[str] = DEFAULT_RULES) -> pl.DataFrame:
    """marts.statistical_report from marts.count_room (table_id, gaming_day, game, drop, win,
    win_variance), every day of every table; `investigate` is any of `rules`' flags. A day whose
    win is unknown (a shift not closed) shows its drop but adds to no period's figures."""
    if unknown := sorted(set(rules) - set(RULES)):
        raise ValueError(f"the report's rules are {', '.join(RULES)}, got {', '.join(unknown)}")
    counted = pl.col("win").is_not_null()
    days = (
        count_room_days.lazy()
        .group_by(*KEY, "gaming_day")
        .agg(
            drop=pl.col("drop").sum(),
            win=pl.when(pl.col("win").null_count() == 0).then(pl.col("win").sum()),
            win_variance=pl.col("win_variance").sum(),
        )
        .with_columns(
            _drop=pl.when(counted).then(pl.col("drop")).otherwise(0).cast(WIDE),
            _win=pl.col("win").fill_null(0).cast(WIDE),
            _variance=pl.when(counted).then(pl.col("win_variance")).otherwise(0.0),
            _month=pl.col("gaming_day").dt.truncate("1mo"),
            _year=pl.col("gaming_day").dt.year(),
        )
        .sort(*KEY, "gaming_day")
    )

    def to_date(column: str, period: str) -> pl.Expr:
        return pl.col(column).cum_sum().over(*KEY, period)

    days = days.with_columns(
        mtd_drop=to_date("_drop", "_month"),
        mtd_win=to_date("_win", "_month"),
        mtd_win_variance=to_date("_variance", "_month"),
        ytd_drop=to_date("_drop", "_year"),
        ytd_win=to_date("_win", "_year"),
        _life_drop=pl.col("_drop").cum_sum().over(KEY),
        _life_win=pl.col("_win").cum_sum().over(KEY),
        _first=pl.col("gaming_day").min().over(KEY),
    )
    days = _with_base(days)
    days = _with_rolling(days)
    half = Z95 * pl.col("mtd_win_variance").sqrt() / pl.col("mtd_drop").cast(pl.Float64) * 100
    measured = pl.col("md_base_hold_pct").is_not_null() & pl.col("mtd_hold_pct").is_not_null()
    # no interval where the house staked nothing at risk (a player-banked game's wagers): its win is no
    # sample of a game's edge, and a zero-width interval would flag every cent
    interval = measured & (pl.col("mtd_win_variance") > 0)
    report = (
        days.with_columns(
            hold_pct=pct("win", "drop"),
            mtd_hold_pct=pct("mtd_win", "mtd_drop"),
            ytd_hold_pct=pct("ytd_win", "ytd_drop"),
            oh_rolling_hold_pct=pct("_roll_win", "_roll_drop"),
            oh_lifetime_hold_pct=pct("_life_win", "_life_drop"),
        )
        .with_columns(
            md_ci_low=pl.when(interval).then(pl.col("md_base_hold_pct") - half),
            md_ci_high=pl.when(interval).then(pl.col("md_base_hold_pct") + half),
            ks_base_hold_pct=pl.col("md_base_hold_pct"),
        )
        .with_columns(
            md_flag=pl.when(interval).then(
                (pl.col("mtd_hold_pct") < pl.col("md_ci_low")) | (pl.col("mtd_hold_pct") > pl.col("md_ci_high"))
            ),
            ks_flag=pl.when(measured).then((pl.col("mtd_hold_pct") - pl.col("ks_base_hold_pct")).abs() > KANSAS_POINTS),
            # within the first 30 days the window is the whole lifetime: nothing to compare yet
            oh_flag=pl.when(pl.col("gaming_day") - pl.col("_first") >= pl.duration(days=ROLLING_DAYS)).then(
                (pl.col("oh_rolling_hold_pct") - pl.col("oh_lifetime_hold_pct")).abs() > OHIO_POINTS
            ),
        )
        .with_columns(
            investigate=pl.any_horizontal(pl.col(FLAGS[rule]).fill_null(False) for rule in RULES if rule in rules)
            if rules
            else pl.lit(False)
        )
        .select(pl.col(name).cast(dtype) for name, dtype in REPORT_SCHEMA.items())
        .sort("gaming_day", *KEY)
        .collect()
    )
    return report


def _with_base(days: pl.LazyFrame) -> pl.LazyFrame:
    """Each day's base hold: its table and game's prior calendar year's, or (none that year, or no
    drop in it) the prior month's; `md_base_period` names it ('2025', '2026-10')."""
    years = (
        days.group_by(*KEY, "_year")
        .agg(_year_drop=pl.col("_drop").sum(), _year_win=pl.col("_win").sum())
        .with_columns(pl.col("_year") + 1)
    )
    months = (
        days.group_by(*KEY, "_month")
        .agg(_month_drop=pl.col("_drop").sum(), _month_win=pl.col("_win").sum())
        .with_columns(pl.col("_month").dt.offset_by("1mo"))
    )
    in_year, in_month = pl.col("_year_drop") > 0, pl.col("_month_drop") > 0
    prior_month = pl.col("_month").dt.offset_by("-1mo")
    return (
        days.join(years, on=[*KEY, "_year"], how="left", nulls_equal=True)
        .join(months, on=[*KEY, "_month"], how="left", nulls_equal=True)
        .with_columns(
            md_base_hold_pct=pl.when(in_year)
            .then(pct("_year_win", "_year_drop"))
            .when(in_month)
            .then(pct("_month_win", "_month_drop")),
            md_base_period=pl.when(in_year)
            .then((pl.col("_year") - 1).cast(pl.String))
            .when(in_month)
            .then(prior_month.dt.strftime("%Y-%m")),
        )
    )


def _with_rolling(days: pl.LazyFrame) -> pl.LazyFrame:
    """The sums of the 30 gaming days ending on each day: the lifetime's, less the lifetime's as of
    30 days before (the last day played on or before it)."""
    before = days.select(
        *KEY,
        _then=pl.col("gaming_day"),
        _then_drop=pl.col("_life_drop"),
        _then_win=pl.col("_life_win"),
    ).sort("_then")
    return (
        days.with_columns(_cut=pl.col("gaming_day") - pl.duration(days=ROLLING_DAYS))
        .sort("_cut")
        .join_asof(before, left_on="_cut", right_on="_then", by=list(KEY), strategy="backward", check_sortedness=False)
        .with_columns(
            _roll_drop=pl.col("_life_drop") - pl.col("_then_drop").fill_null(0),
            _roll_win=pl.col("_life_win") - pl.col("_then_win").fill_null(0),
        )
    )
