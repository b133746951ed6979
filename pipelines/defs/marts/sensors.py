"""After a successful ingest (its blocking checks passed), rebuild the marts of the gaming days it touched."""

import dagster as dg

from pipelines.defs.core.assets import INGEST_LOG
from pipelines.defs.jobs import ingest_job, marts_job
from pipelines.defs.partitions import FIRST_DAY, range_tags


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[ingest_job],
    request_job=marts_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="When an ingest run succeeds, rebuild the marts of the gaming days it touched (one run over "
    "their range) and publish the snapshot.",
)
def marts_after_ingest(context: dg.RunStatusSensorContext):
    entries = context.instance.all_logs(context.dagster_run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
    logged = [e.asset_materialization for e in entries if e.asset_materialization.asset_key == INGEST_LOG]
    if not logged:
        return dg.SkipReason("the ingest run recorded no ingest log")
    days = logged[-1].metadata["gaming_days_touched"].value
    if not days:
        return dg.SkipReason("the ingest added no coups or bets")
    tags = range_tags(days)
    if tags is None:
        return dg.SkipReason(
            f"the gaming days touched are all before the partitions' first ({FIRST_DAY}): "
            "restart `banco up` to build them"
        )
    left = sorted(day for day in days if day < FIRST_DAY.isoformat())
    if left:
        context.log.warning(f"{len(left)} gaming days touched are before the partitions' first ({FIRST_DAY}), "
                            f"{left[0]} to {left[-1]}: restart `banco up` to build them")  # fmt: skip
    return dg.RunRequest(run_key=f"{context.dagster_run.run_id}-marts", tags=tags)
