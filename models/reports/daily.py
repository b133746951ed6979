"""The morning report: one gaming day on one page. Hold against theo by table, the surveillance flags by
rule (player ids only), the table-shifts the count leaves unexplained and the integrity counts, each
section with a link to the dashboard page that shows it (docs/reports.md#the-morning-report-banco-report---day)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import polars as pl

from models.ratios import quarantined_share, ratio

#: Each section's dashboard page, by its Streamlit URL path (dashboards/pages.py PAGES, file name less .py).
PAGES = {"tables": "tables", "flags": "surveillance", "shifts": "count_room", "integrity": "integrity"}


def hold_by_table(days: pl.DataFrame) -> pl.DataFrame:
    """marts.table_day's rows of one day (models/alerts/morning.py TABLES) as the report shows them, with the
    day's total last (level 'table' or 'total'): hold and theo hold on the total pooled from its sums."""
    tables = days.select(
        pl.lit("table").alias("level"), "table_id", "game", "handle", "house_win", "theo",
        pl.col("win_over_handle").alias("hold"), pl.col("theo_over_handle").alias("theo_hold"),
    )  # fmt: skip
    total = days.select(
        pl.lit("total").alias("level"), pl.lit(None, pl.String).alias("table_id"),
        pl.lit(None, pl.String).alias("game"), pl.col("handle").sum(), pl.col("house_win").sum(),
        pl.col("theo").sum(),
    ).with_columns(hold=ratio("house_win", "handle"), theo_hold=ratio("theo", "handle"))  # fmt: skip
    return pl.concat([tables, total], how="vertical_relaxed")


def flags_by_rule(flags: pl.DataFrame) -> pl.DataFrame:
    """The day's flags (morning.py FLAGS) per rule: how many, and the players flagged (ids, sorted), no names
    or amounts."""
    return (
        flags.group_by("rule")
        .agg(flags=pl.len().cast(pl.Int64), players=pl.col("player_id").unique().sort())
        .sort("rule")
    )


@dataclass(frozen=True)
class Integrity:
    """The day's integrity counts: rows quarantined by kind and reason, the coups quarantined at its tables
    and their share of the handle, and the files the ingest could not load (of every day)."""

    quarantined: pl.DataFrame  # kind, reason, rows
    quarantined_coups: int
    quarantined_share: float | None
    failed_files: int


def integrity(quarantined: pl.DataFrame, days: pl.DataFrame, failed_files: int) -> Integrity:
    """The integrity counts from the day's quarantined rows (morning.py QUARANTINED), its marts.table_day rows
    and the failed files."""
    return Integrity(
        quarantined=quarantined.sort("kind", "reason"),
        quarantined_coups=int(days["quarantined_coups"].sum() or 0),
        quarantined_share=quarantined_share(days["quarantined_handle"].sum(), days["handle"].sum()),
        failed_files=failed_files,
    )


@dataclass(frozen=True)
class DailyReport:
    """One gaming day's figures, where they came from and when they were made."""

    property_name: str
    gaming_day: dt.date
    snapshot: str  # the serving snapshot's log commit (meta.snapshots)
    made_at: dt.datetime  # aware, in the gaming day's zone
    stale: str | None  # why the marts lag the warehouse, if they do
    currency: str
    dashboard_url: str
    tables: pl.DataFrame  # hold_by_table
    flags: pl.DataFrame  # flags_by_rule
    shifts: pl.DataFrame  # the day's unreconciled table-shifts (morning.py SHIFTS)
    integrity: Integrity

    @property
    def title(self) -> str:
        return f"Morning report, gaming day {self.gaming_day}"

    def link(self, section: str) -> str:
        """The dashboard page of `section` (a key of PAGES)."""
        return f"{self.dashboard_url.rstrip('/')}/{PAGES[section]}"


def file_name(day: dt.date) -> str:
    return f"morning-report-{day}.pdf"
