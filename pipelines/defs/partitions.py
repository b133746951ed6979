"""Daily partitions, one per gaming day: a partition opens at the gaming day's start hour."""

from __future__ import annotations

import datetime as dt

import dagster as dg

from models.settings import Settings
from pipelines.defs.resources import SETTINGS

#: Where the partitions begin while nothing has landed: early enough that whatever lands first is in them.
BEFORE_ANYTHING_LANDED = dt.date(2020, 1, 1)


def first_landed_day(settings: Settings) -> dt.date | None:
    """The first gaming day with coups in the warehouse's serving snapshot (opened read-only and
    closed at once), None when nothing has landed or the warehouse cannot be read."""
    import duckdb

    from models.metrics.days import first_day_with_coups
    from models.warehouse import serving
    from models.warehouse.store import WarehouseError, read

    if not serving.published(settings.db):
        return None
    try:
        con = read(settings.db)
    except (WarehouseError, duckdb.Error, OSError):
        return None
    try:
        return first_day_with_coups(con, settings.gaming_day)
    except duckdb.Error:
        return None
    finally:
        con.close()


def first_day(settings: Settings) -> dt.date:
    """The first partition's gaming day: BANCO_FIRST_GAMING_DAY, else the first that has landed, read as
    the code location loads (docs/orchestration.md#where-the-partitions-begin)."""
    return settings.first_gaming_day or first_landed_day(settings) or BEFORE_ANYTHING_LANDED


def gaming_days(settings: Settings, first: dt.date) -> dg.DailyPartitionsDefinition:
    """Gaming days from `first` to the one in progress (so landed files show at once)."""
    return dg.DailyPartitionsDefinition(
        start_date=first.isoformat(),
        timezone=settings.gaming_day.timezone,
        hour_offset=settings.gaming_day.start_hour,
        end_offset=1,
    )


#: The first partition's gaming day, as this load of the code location found it.
FIRST_DAY = first_day(SETTINGS)
GAMING_DAYS = gaming_days(SETTINGS, FIRST_DAY)


def range_tags(days: list[str]) -> dict[str, str] | None:
    """The tags of one run over the range of gaming days (ISO dates) that spans `days`, keeping the
    days the partitions hold (none before FIRST_DAY); None when none is left."""
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
