"""Daily partitions, one per gaming day: a partition opens at the gaming day's start hour."""

from __future__ import annotations

import dagster as dg

from pipelines.settings import Settings


def gaming_days(settings: Settings) -> dg.DailyPartitionsDefinition:
    """Gaming days from the first configured one to the one in progress (so landed files show at once)."""
    return dg.DailyPartitionsDefinition(
        start_date=settings.first_gaming_day.isoformat(),
        timezone=settings.gaming_day.timezone,
        hour_offset=settings.gaming_day.start_hour,
        end_offset=1,
    )


GAMING_DAYS = gaming_days(Settings.from_env())
