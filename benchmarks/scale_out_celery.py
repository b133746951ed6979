"""The scale-out benchmark's jobs on Dagster's Celery executor: the cluster of the scale-out test
(tests/scale_out/cluster.py: Redis, PostgreSQL and moto's S3 on loopback, the code server, two Celery
workers, the daemon), the ingest job and then the marts job of every gaming day launched as the UI
launches them, each timed from its launch to its end and its steps read back from the event log.
Run as `python -m benchmarks.scale_out_celery FOLDER LANDING SHARDS`; prints one JSON line."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

from benchmarks.scale_out_dagster import timeline

#: A run that takes longer is cancelled by the daemon (the harness waits that long and two minutes more).
MAX_RUNTIME = {"dagster/max_runtime": "240"}


class Environment:
    """What the harness asks of pytest's monkeypatch: the cluster's settings set in this process."""

    def setenv(self, key: str, value: str) -> None:
        os.environ[key] = value


def launched(c, job: str, tags: dict[str, str] | None = None) -> dict:
    started = time.perf_counter()
    run = c.finished(c.launch(job, {**MAX_RUNTIME, **(tags or {})}))
    wall = time.perf_counter() - started
    if not run.is_success:
        raise SystemExit(f"the {job} run {run.run_id} ended {run.status}")
    workers = sorted({worker for _, worker in c.steps_by_worker(run.run_id)})
    return {"job": job, "wall_s": wall, "workers": workers, **timeline(c.instance, run.run_id)}


def main(folder: Path, landing: Path, shards: int) -> None:
    from models.gaming_day import GamingDay
    from models.metrics.days import days_with_coups
    from models.warehouse.store import read
    from pipelines.defs.partitions import range_tags
    from tests.scale_out.cluster import cluster

    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # the cluster is stopped on the way out
    begun = time.perf_counter()
    with cluster(folder, landing, shards, Environment()) as c:
        started = time.perf_counter() - begun
        runs = [launched(c, "ingest_landing")]
        con = read(c.serving_db)
        try:
            days = [day.isoformat() for day in days_with_coups(con, GamingDay())]
        finally:
            con.close()
        runs.append(launched(c, "build_marts", range_tags(days)))
    print(json.dumps({"runs": runs, "days": days, "cluster_start_s": started}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
