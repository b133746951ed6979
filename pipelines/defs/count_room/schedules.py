"""The monthly statistical report, filed for the previous month once its last gaming day is built."""

import datetime as dt

import dagster as dg

from pipelines.defs.count_room.assets import MONTHS, monthly_report_job
from pipelines.defs.resources import SETTINGS

#: The nightly build of the month's last gaming day runs at BANCO_NIGHTLY_AT on the 2nd (that day
#: closes at the start hour on the 1st); the report follows two hours later.
REPORT_AT = (dt.datetime.combine(dt.date.min, SETTINGS.nightly_at) + dt.timedelta(hours=2)).time()


def previous_month(at: dt.datetime) -> str:
    """The partition key of the month before the one `at` falls in."""
    first = at.date().replace(day=1)
    return (first - dt.timedelta(days=1)).replace(day=1).isoformat()


@dg.schedule(
    job=monthly_report_job,
    cron_schedule=f"{REPORT_AT.minute} {REPORT_AT.hour} 2 * *",
    execution_timezone=SETTINGS.gaming_day.timezone,
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description="On the 2nd of every month, two hours after the nightly build of the month's last gaming day, "
    "write the previous month's statistical report (CSV, XLSX and PDF).",
)
def monthly_statistical_report(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    month = previous_month(context.scheduled_execution_time)
    if not MONTHS.has_partition_key(month):
        return dg.SkipReason(f"the month of {month} is before the partitions' first ({MONTHS.start:%Y-%m})")
    return dg.RunRequest(run_key=f"report-{month}", partition_key=month)
