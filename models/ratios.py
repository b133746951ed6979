"""Ratios the marts and the reports share, one definition each (kept below both: neither imports the other)."""

from __future__ import annotations

import polars as pl


def pct(part: str, whole: str) -> pl.Expr:
    """part / whole * 100 as a float; null where whole is 0 (no drop: no hold to speak of)."""
    whole_ = pl.col(whole).cast(pl.Float64)
    return pl.when(whole_ != 0).then(pl.col(part).cast(pl.Float64) / whole_ * 100)
