"""The nightly build of the previous gaming day."""

import datetime as dt

import dagster as dg
import polars as pl

from models.gaming_day import GamingDay, gaming_day
from pipelines.defs.jobs import marts_job
from pipelines.defs.resources import SETTINGS


def previous_gaming_day(at: dt.datetime, day: GamingDay) -> dt.date:
    """The gaming day before the one in progress at the instant `at`."""
    current = pl.select(gaming_day(pl.lit(at.astimezone(dt.UTC)), day)).item()
    return current - dt.timedelta(days=1)


@dg.schedule(
    job=marts_job,
    cron_schedule=f"{SETTINGS.nightly_at.minute} {SETTINGS.nightly_at.hour} * * *",
    execution_timezone=SETTINGS.gaming_day.timezone,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every night (BANCO_NIGHTLY_AT, default 02:00 in the gaming day's zone), rebuild the marts "
    "of the previous gaming day and publish the snapshot.",
)
def nightly_marts(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    day = previous_gaming_day(context.scheduled_execution_time, SETTINGS.gaming_day)
    return dg.RunRequest(run_key=f"nightly-{day}", partition_key=day.isoformat())
