"""The ratios the marts carry and the dashboard and the reports pool, each defined once and named for what it
divides by: win over handle (the hold on the wagers), theo over handle (the theoretical hold), the z of win
against theo, a count's z against its exact rate, and the count room's hold over the drop (`pct`). Below both
models/metrics and models/reports, which import it and not each other's formulas."""

from __future__ import annotations

import polars as pl

#: The columns `on_handle` adds, in this order.
ON_HANDLE = ("win_over_handle", "theo_over_handle", "win_vs_theo_z")


def _col(name: str | pl.Expr) -> pl.Expr:
    return pl.col(name) if isinstance(name, str) else name


def ratio(part: str | pl.Expr, whole: str | pl.Expr) -> pl.Expr:
    """part / whole as a float; null where whole is 0 or null (nothing wagered or dropped: no ratio to speak of)."""
    whole_ = _col(whole).cast(pl.Float64)
    return pl.when(whole_ != 0).then(_col(part).cast(pl.Float64) / whole_)


def pct(part: str, whole: str) -> pl.Expr:
    """part / whole * 100 as a float (hold over drop: `pct("win", "drop")`); null where whole is 0 (no
    drop: no hold to speak of)."""
    return ratio(part, whole) * 100


def win_over_handle() -> pl.Expr:
    """House win / handle: the share of the wagers the house kept (hold on handle), a fraction."""
    return ratio("house_win", "handle").alias("win_over_handle")


def theo_over_handle() -> pl.Expr:
    """Theo / handle: the share the bets' exact edges expect it to keep (theoretical hold), a fraction."""
    return ratio("theo", "handle").alias("theo_over_handle")


def win_vs_theo_z() -> pl.Expr:
    """(house win - theo) / the win's standard deviation (`win_variance`); null where nothing could vary.
    Sums of the three columns pool exactly, so any grouping of table_day rows gets its own z."""
    deviation = pl.col("house_win").cast(pl.Float64) - pl.col("theo").cast(pl.Float64)
    return pl.when(pl.col("win_variance") > 0).then(deviation / pl.col("win_variance").sqrt()).alias("win_vs_theo_z")


def binomial_z(successes: str | pl.Expr, trials: str | pl.Expr, rate: str | pl.Expr) -> pl.Expr:
    """(successes - trials x rate) / sqrt(trials x rate x (1 - rate)): how many standard deviations a
    count lies from what its exact `rate` expects of `trials` (ties per coups, Banker wins per coups)."""
    n, p = _col(trials), _col(rate)
    return (_col(successes) - n * p) / (n * p * (1 - p)).sqrt()


def on_handle(sums: pl.DataFrame) -> pl.DataFrame:
    """Rows of summed `house_win`, `theo`, `handle` and `win_variance` (any grouping of the marts' rows) with
    their `win_over_handle`, `theo_over_handle` and `win_vs_theo_z`: sums first, then the ratios (never a
    mean of ratios)."""
    return sums.with_columns(win_over_handle(), theo_over_handle(), win_vs_theo_z())


def quarantined_pct(quarantined: str | pl.Expr, logged: str | pl.Expr) -> pl.Expr:
    """The share of the handle, logged and quarantined, staked on quarantined coups, in percent (0 when
    nothing was staked): a day with a hole in its log told from a quiet one."""
    return (ratio(quarantined, _col(logged) + _col(quarantined)) * 100).fill_null(0.0)


def quarantined_share(quarantined, logged) -> float | None:
    """`quarantined_pct` of pooled sums, as a fraction (None when nothing was staked)."""
    whole = (logged or 0) + (quarantined or 0)
    return float((quarantined or 0) / whole) if whole else None
