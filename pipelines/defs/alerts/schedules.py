"""The morning report, every morning after the nightly build, of the gaming day that build built."""

import datetime as dt
from zoneinfo import ZoneInfo

import dagster as dg

from pipelines.defs.alerts.assets import morning_report_job
from pipelines.defs.marts.schedules import previous_gaming_day
from pipelines.defs.partitions import GAMING_DAYS
from pipelines.defs.resources import SETTINGS


def built_day(at: dt.datetime, nightly_at: dt.time, zone: str) -> dt.date:
    """The gaming day the last nightly build before `at` built: the previous gaming day at that build's time."""
    local = at.astimezone(ZoneInfo(zone))
    nightly = dt.datetime.combine(local.date(), nightly_at, tzinfo=local.tzinfo)
    if nightly > local:
        nightly -= dt.timedelta(days=1)
    return previous_gaming_day(nightly, SETTINGS.gaming_day)


@dg.schedule(
    job=morning_report_job,
    cron_schedule=f"{SETTINGS.morning_report_at.minute} {SETTINGS.morning_report_at.hour} * * *",
    execution_timezone=SETTINGS.gaming_day.timezone,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="Every morning (BANCO_MORNING_REPORT_AT, default 06:00 in the gaming day's zone), write the "
    "one-page report of the gaming day the last nightly build built and email it once to the morning-report "
    "rules' recipients.",
)
def morning_report(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
    zone = SETTINGS.gaming_day.timezone
    day = built_day(context.scheduled_execution_time, SETTINGS.nightly_at, zone).isoformat()
    if not GAMING_DAYS.has_partition_key(day):
        return dg.SkipReason(
            f"the gaming day {day} is not among the partitions (they begin {GAMING_DAYS.start:%Y-%m-%d})"
        )
    return dg.RunRequest(run_key=f"morning-report-{day}", partition_key=day)
