"""The Dagster code location: the one place the project's Definitions are assembled.

landing_files, simulated_shoes -> core/ingest_<shard> -> core (ingest) -> marts/shard_<shard> (per gaming
day) -> marts (per gaming day) -> serving_snapshot; marts -> reports/monthly_statistical_report (per month);
marts -> reports/morning_report (per gaming day, emailed each morning). Each serving_snapshot launches
send_alerts (the alert rules); a failed run is announced (defs/alerts/).
"""

from __future__ import annotations

import dagster as dg

from pipelines.cluster.executor import executor_from_env
from pipelines.defs.alerts.assets import morning_report, morning_report_job
from pipelines.defs.alerts.jobs import send_alerts
from pipelines.defs.alerts.schedules import morning_report as morning_report_schedule
from pipelines.defs.alerts.sensors import alert_on_run_failure, alerts_after_publish
from pipelines.defs.core import assets as core
from pipelines.defs.core import checks as core_checks
from pipelines.defs.core.shards import SHARD_INGESTS
from pipelines.defs.count_room import checks as count_room_checks
from pipelines.defs.count_room.assets import monthly_report_job, monthly_statistical_report
from pipelines.defs.count_room.schedules import monthly_statistical_report as monthly_report_schedule
from pipelines.defs.jobs import ingest_job, marts_job, simulate_job
from pipelines.defs.landing import assets as landing
from pipelines.defs.landing.sensors import landing_sensor
from pipelines.defs.marts import assets as marts
from pipelines.defs.marts import checks as marts_checks
from pipelines.defs.marts.schedules import nightly_marts
from pipelines.defs.marts.sensors import marts_after_ingest
from pipelines.defs.marts.shards import SHARD_MARTS
from pipelines.defs.resources import SETTINGS, Warehouse
from pipelines.defs.serving.assets import serving_snapshot

defs = dg.Definitions(
    assets=[
        landing.landing_files,
        landing.simulated_shoes,
        *SHARD_INGESTS,
        core.ingest_landing,
        *SHARD_MARTS,
        marts.build_marts,
        serving_snapshot,
        monthly_statistical_report,
        morning_report,
    ],
    asset_checks=dg.load_asset_checks_from_modules([core_checks, marts_checks, count_room_checks]),
    jobs=[simulate_job, ingest_job, marts_job, monthly_report_job, send_alerts, morning_report_job],
    schedules=[nightly_marts, monthly_report_schedule, morning_report_schedule],
    sensors=[landing_sensor, marts_after_ingest, alerts_after_publish, alert_on_run_failure],
    resources={"warehouse": Warehouse.from_settings(SETTINGS)},
    executor=executor_from_env(),
)
