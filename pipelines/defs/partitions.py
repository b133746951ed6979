"""Daily partitions, one per gaming day: a partition opens at the gaming day's start hour."""

from __future__ import annotations

import datetime as dt

import dagster as dg

from models.settings import Settings
from pipelines.defs.resources import SETTINGS


def gaming_days(settings: Settings) -> dg.DailyPartitionsDefinition:
    """Gaming days from the first configured one to the one in progress (so landed files show at once)."""
    return dg.DailyPartitionsDefinition(
        start_date=settings.first_gaming_day.isoformat(),
        timezone=settings.gaming_day.timezone,
        hour_offset=settings.gaming_day.start_hour,
        end_offset=1,
    )


GAMING_DAYS = gaming_days(SETTINGS)


def range_tags(days: list[str]) -> dict[str, str] | None:
    """The tags of one run over the range of gaming days (ISO dates) that spans `days`, keeping the
    days the partitions hold (none before BANCO_FIRST_GAMING_DAY); None when none is left."""
    kept = sorted(day for day in days if GAMING_DAYS.has_partition_key(day))
    if not kept:
        return None
    return {"dagster/asset_partition_range_start": kept[0], "dagster/asset_partition_range_end": kept[-1]}


def run_days(context) -> list[dt.date]:
    """The gaming days a run covers: its partition or partition range."""
    return [dt.date.fromisoformat(key) for key in context.partition_keys]


def on_run_days(context, column: str) -> str:
    """A SQL condition on `column`: one of the run's gaming days (any day, in a run of the check alone)."""
    days = run_days(context) if context.has_partition_key or context.has_partition_key_range else None
    return "TRUE" if not days else f"{column} IN (" + ", ".join(f"DATE '{day}'" for day in days) + ")"
