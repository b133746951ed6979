"""Watch the landing folder: every new (or rewritten) round-log file is ingested once."""

import hashlib
import json
import time

import dagster as dg

from models.warehouse.serving import published
from pipelines.defs.core.shards import ingest_run_config
from pipelines.defs.jobs import ingest_job
from pipelines.defs.resources import Warehouse

#: A file younger than this may still be being copied in; it waits for the next tick.
SETTLE_SECONDS = 5.0


def _signature(stat) -> str:
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def _ingested(warehouse: Warehouse) -> dict:
    """Files already ingested, by path, from the serving snapshot (none before the first ingest)."""
    from models.warehouse.ingest import last_ingested

    if not published(warehouse.db_path):
        return {}
    with warehouse.snapshot() as con:
        return last_ingested(con)


@dg.sensor(
    job=ingest_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Ingest each new round-log file of the landing folder once (cursor: the files seen, by size "
    "and modification time; run key: the batch), rounds before bets.",
)
def landing_sensor(context: dg.SensorEvaluationContext, warehouse: Warehouse) -> dg.SensorResult:
    from models.warehouse.ingest import expand

    seen: dict[str, str] = json.loads(context.cursor) if context.cursor else {}
    if not warehouse.landing_path.is_dir():
        return dg.SensorResult(skip_reason=f"no landing folder at {warehouse.landing_path}")
    now, new, known = time.time(), {}, {}
    ingested = _ingested(warehouse)
    for path in expand([warehouse.landing_path]):
        stat = path.stat()
        if seen.get(str(path)) != _signature(stat) and now - stat.st_mtime >= SETTLE_SECONDS:
            # a file `banco ingest` or `banco up` already took since it last changed needs no run
            done = ingested.get(str(path))
            (known if done and done.timestamp() >= stat.st_mtime else new)[str(path)] = _signature(stat)
    if not new:
        cursor = json.dumps({**seen, **known}, sort_keys=True) if known else context.cursor
        return dg.SensorResult(skip_reason="no new files in the landing folder", cursor=cursor)
    batch = sorted(new)
    run_key = hashlib.sha256(json.dumps([[p, new[p]] for p in batch]).encode()).hexdigest()[:16]
    request = dg.RunRequest(
        run_key=run_key,
        run_config=ingest_run_config(batch),
        tags={"banco/files": str(len(batch))},
    )
    return dg.SensorResult(run_requests=[request], cursor=json.dumps({**seen, **known, **new}, sort_keys=True))
