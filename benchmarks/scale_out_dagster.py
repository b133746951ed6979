"""The scale-out benchmark's jobs run through Dagster's multiprocess executor: the ingest job, then the
marts job of every gaming day (into a fresh serving file), as `banco up` runs them, each step's times
read back from the run's event log. Run as
`python -m benchmarks.scale_out_dagster` with BANCO_DB, BANCO_LANDING, BANCO_SHARDS, DAGSTER_HOME and
BANCO_DAGSTER_DIR set; prints one JSON line."""

from __future__ import annotations

import json
import time

import dagster as dg

QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def timeline(instance: dg.DagsterInstance, run_id: str) -> dict:
    """When the run's events happened (seconds since the epoch): the run's own, and each step's, the
    first of each kind (its first is when the executor took it up: a process asked for, a task sent)."""
    run: dict = {"steps": {}}
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None:
            continue
        name = event.event_type.name
        if name.endswith("_PLANNED"):  # every step's are logged as the run starts
            continue
        if entry.step_key:
            run["steps"].setdefault(entry.step_key, {}).setdefault(name, entry.timestamp)
        elif name.startswith("RUN_"):
            run.setdefault(name, entry.timestamp)
    return run


def run_job(job, instance: dg.DagsterInstance, tags: dict | None = None) -> dict:
    """Run a job as `banco up` does (a reconstructable job, the location's executor); its timings."""
    start = time.perf_counter()
    result = dg.execute_job(dg.reconstructable(job), instance, run_config=QUIET, tags=tags, raise_on_error=False)
    wall = time.perf_counter() - start
    if not result.success:
        raise SystemExit(f"the {result.job_def.name} run failed: see run {result.run_id}")
    return {"job": result.job_def.name, "wall_s": wall, **timeline(instance, result.run_id)}


def main() -> None:
    from models.metrics.days import days_with_coups
    from pipelines.commands.up import build_marts_job, ingest_landing_job
    from pipelines.definitions import defs
    from pipelines.defs.partitions import range_tags

    instance = dg.DagsterInstance.get()
    runs = [run_job(ingest_landing_job, instance)]
    warehouse = defs.resources["warehouse"]
    with warehouse.snapshot() as con:
        days = [day.isoformat() for day in days_with_coups(con, warehouse.gaming_day)]
    runs.append(run_job(build_marts_job, instance, range_tags(days)))
    print(json.dumps({"runs": runs, "days": days}))


if __name__ == "__main__":
    main()
