"""One worker of the scale-out benchmark: a process that runs its tasks (a shard's ingest, a (day, shard)
build, the serving host's steps) one after another and prints what each cost as one JSON line.

Run as `python -m benchmarks.scale_out_worker TASKS_JSON DB`; the parent (bench_scale_out.py) starts
one or two side by side, each with the warehouse's settings in its environment.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

from models.metrics.build import MartConfig, build_from_partials, build_shard
from models.warehouse.ingest import ingest
from models.warehouse.shards import Sharding


class Probe:
    """The catalog's locks and commits, timed in this process: how long each lock was waited for and
    held, and how many table commits there were and how long they took (pyiceberg's own calls)."""

    def __init__(self) -> None:
        self.counts: dict[str, float] = defaultdict(float)

    def install(self) -> Probe:
        from models.warehouse.iceberg import Tables

        lock, commit, probe = Tables._catalog_lock, Tables._commit, self

        @contextlib.contextmanager
        def timed_lock(tables, name: str = "commit"):
            kind = "commit_lock" if name == "commit" else "ingest_lock"
            asked = time.perf_counter()
            with lock(tables, name):
                got = time.perf_counter()
                try:
                    yield
                finally:
                    probe.counts[f"{kind}_wait_s"] += got - asked
                    probe.counts[f"{kind}_held_s"] += time.perf_counter() - got
                    probe.counts[f"{kind}_times"] += 1

        def timed_commit(tables, name, function):
            start = time.perf_counter()
            try:
                return commit(tables, name, function)
            finally:
                probe.counts["table_commits"] += 1
                probe.counts["table_commit_s"] += time.perf_counter() - start

        Tables._catalog_lock, Tables._commit = timed_lock, timed_commit
        return self

    def taken(self) -> dict[str, float]:
        """What was counted since the last call, and a fresh count."""
        counts, self.counts = dict(self.counts), defaultdict(float)
        return counts


def cpu_seconds() -> float:
    """User and system time of this process, every thread, so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def reset_peak() -> None:
    """Start the peak resident memory (VmHWM) afresh, so each task's own peak is read (Linux)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_task(db: Path, task: dict) -> dict:
    """Run one task; its result's counts (rows, files, marts rows) as the task gives them."""
    sharding = Sharding(task.get("shards", 4))
    kind = task["kind"]
    if kind == "ingest":  # a shard's writer, or with no shard the serving writer (maintains, publishes)
        results = ingest(db, [Path(path) for path in task["paths"]], shard=task.get("shard"))
        failed = [r.error for r in results if r.status == "failed"]
        if failed:
            raise SystemExit(f"ingest failed: {failed[0]}")
        return {
            "files": len(results),
            "rows": sum(r.rows_read for r in results),
            "accepted": sum(r.accepted for r in results),
            "file_commit_s": sum(r.commit_seconds for r in results),
        }
    if kind == "stage1":
        days = [dt.date.fromisoformat(day) for day in task["days"]]
        rows = build_shard(db, MartConfig(), days, task["shard"], sharding, task["run_id"])
        return {"mart_rows": sum(rows.values())}
    if kind == "stage2":
        rows = build_from_partials(db, MartConfig(), [dt.date.fromisoformat(day) for day in task["days"]], sharding)
        return {"mart_rows": sum(rows.values())}
    raise SystemExit(f"unknown task {kind!r}")


def main(tasks: list[dict], db: Path) -> None:
    probe = Probe().install()
    done = []
    started, cpu = time.perf_counter(), cpu_seconds()
    for task in tasks:
        reset_peak()
        begun, used = time.perf_counter(), cpu_seconds()
        counts = run_task(db, task)
        done.append(
            {
                **{key: value for key, value in task.items() if key != "paths"},
                **counts,
                **probe.taken(),
                "wall_s": time.perf_counter() - begun,
                "cpu_s": cpu_seconds() - used,
                "peak_mb": peak_mb(),
            }
        )
    whole = {"wall_s": time.perf_counter() - started, "cpu_s": cpu_seconds() - cpu, "tasks": done}
    print(json.dumps(whole))


if __name__ == "__main__":
    main(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]))
