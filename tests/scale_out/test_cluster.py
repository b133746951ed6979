"""The assets on Dagster's Celery executor: two workers, a Redis broker, the instance and the catalog in
PostgreSQL, the warehouse in S3, all on loopback. A month over four shards, one worker killed mid-step
on the way, ends with every row once and the marts of the embedded default, row for row."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import expand
from models.warehouse.location import catalog_properties, polars_options
from models.warehouse.shards import Sharding
from models.warehouse.store import read
from tests.scale_out.cluster import Cluster, cluster

SHARDS = 4
#: Tables T01..T05 fall into all four shards (T04 s0, T02 s1, T05 s2, T01 and T03 s3).
MONTH = Simulation(shoes=150, tables=5, shoes_per_day=1, start=dt.date(2026, 10, 1), seed=7)
#: The killed run waits for the dead worker's task this long before the daemon cancels it.
KILLED_MAX_RUNTIME_SECONDS = 45
SERVING_STEPS = {"ingest", "marts", "serving_snapshot"}
CORE = ["core.rounds", "core.bets", "core.table_events", "core.shoes", "quarantine.rounds", "quarantine.bets",
        "quarantine.table_events", "meta.ingest_log"]  # fmt: skip
MARTS = ["banker_streaks", "decision_runs", "tenure_fit", "commission", "commission_by_dealer", "commission_per_unit",
         "tie_frequency", "tie_frequency_by_shoe", "tie_frequency_by_dealer", "ties_by_total", "table_day",
         "dealer_day", "shoe_summary", "player_sessions", "player_day", "player_bets", "players", "side_bets",
         "dealer_pace", "table_shift", "count_room", "statistical_report"]  # fmt: skip
LOG = (
    "SELECT count(*), count(DISTINCT path), sum(rows_read), "
    "sum(rows_accepted + rows_quarantined + rows_duplicate), bool_and(status = 'ok') FROM meta.ingest_log"
)


def embedded(db: Path, landing: Path, *commands: str) -> None:
    """`banco ingest` (and `banco build`) into a local warehouse, with none of the cluster's settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("BANCO_", "PYICEBERG_", "DAGSTER"))}
    for command in commands:
        argv = [sys.executable, "-m", "pipelines.cli", command, "--db", str(db)]
        done = subprocess.run([*argv, str(landing)] if command == "ingest" else argv, env=env, capture_output=True,
                              text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr


def counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    return {table: con.sql(f"SELECT count(*) FROM {table}").fetchall()[0][0] for table in CORE}


def rows_in(files: list[Path]) -> int:
    return sum(pl.scan_parquet(path).select(pl.len()).collect().item() for path in files)


def accounted(con: duckdb.DuckDBPyConnection, landing: Path) -> None:
    """One log row per file, each ok, its rows read all accepted, quarantined or duplicate; the
    tables hold what the log says was accepted and quarantined."""
    files = expand([landing])
    assert con.sql(LOG).fetchall()[0] == (len(files), len(files), rows_in(files), rows_in(files), True)
    logged = con.sql("SELECT sum(rows_accepted), sum(rows_quarantined) FROM meta.ingest_log").fetchall()[0]
    held = counts(con)
    accepted = held["core.rounds"] + held["core.bets"] + held["core.table_events"]
    quarantined = held["quarantine.rounds"] + held["quarantine.bets"] + held["quarantine.table_events"]
    assert logged == (accepted, quarantined)


def marts_of(db: Path) -> dict[str, pl.DataFrame]:
    con = duckdb.connect(str(db.with_name(db.stem + ".serving.duckdb")), read_only=True)
    try:
        return {mart: con.sql(f"SELECT * FROM marts.{mart}").pl() for mart in MARTS}
    finally:
        con.close()


def same_marts(got: dict[str, pl.DataFrame], expected: dict[str, pl.DataFrame]) -> None:
    """Row for row: counts, Decimals, texts and flags exactly; floats (sums taken in another order
    on each shard) to 1e-9 of their value."""
    for mart, frame in expected.items():
        exact = [column for column, dtype in frame.schema.items() if not dtype.is_float()]
        left, right = got[mart].sort(exact), frame.sort(exact)
        assert_frame_equal(left.select(exact), right.select(exact))
        assert_frame_equal(left, right, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


def same_through_polars_and_duckdb(c: Cluster) -> None:
    """The Iceberg tables read by Polars (through pyiceberg, from the bucket) and by DuckDB (the
    serving snapshot's views) hold the same rows."""
    from pyiceberg.catalog import load_catalog

    # pyiceberg read its environment when first imported: the bucket's settings are given here
    catalog = load_catalog("banco", type="sql", uri=c.env["BANCO_CATALOG_URI"], **catalog_properties())
    bets = pl.scan_iceberg(catalog.load_table("core.bets"), storage_options=polars_options())
    rounds = pl.scan_iceberg(catalog.load_table("core.rounds"), storage_options=polars_options())
    counted = rounds.select(pl.len(), pl.col("banker_total").cast(pl.Int64).sum()).collect().row(0)
    summed = bets.select(pl.len(), pl.col("amount").sum(), pl.col("house_net").sum()).collect().row(0)
    by_polars = counted + summed
    con = read(c.serving_db)
    try:
        by_duckdb = (
            con.sql("SELECT count(*), sum(banker_total) FROM core.rounds").fetchall()[0]
            + con.sql("SELECT count(*), sum(amount), sum(house_net) FROM core.bets").fetchall()[0]
        )
    finally:
        con.close()
    assert by_polars == by_duckdb


def run_of(c: Cluster, job: str, tags: dict[str, str] | None = None) -> dg.DagsterRun:
    run = c.finished(c.launch(job, tags))
    assert run.status == dg.DagsterRunStatus.SUCCESS, f"{job} run {run.run_id} ended {run.status}"
    return run


def kill_mid_step(c: Cluster, run_id: str, worker: str) -> str:
    """Wait until `worker` runs a step of the run (started, not ended), then SIGKILL it; that step."""
    ended = (dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE)
    while True:
        events = [r.dagster_event for r in c.instance.all_logs(run_id) if r.dagster_event is not None]
        started = {e.step_key for e in events if e.event_type == dg.DagsterEventType.STEP_START}
        running = {step for step, by in c.steps_by_worker(run_id) if by == worker} & started
        running -= {e.step_key for e in events if e.event_type in ended}
        if running:
            c.kill(worker)
            return running.pop()
        assert not c.instance.get_run_by_id(run_id).is_finished, f"{worker} ran no step of run {run_id}"
        time.sleep(0.2)


@pytest.mark.slow
def test_two_celery_workers_build_the_embedded_marts_though_one_was_killed(tmp_path, monkeypatch):
    monkeypatch.setenv("POLARS_ICEBERG_PLANNER", "pyiceberg")  # Polars' own planner is not installed
    landing = tmp_path / "landing"
    write_simulation(MONTH, landing, misdeal_rate=0.01, sharding=Sharding(SHARDS))
    assert {path.stem[-2:] for path in expand([landing])} == set(Sharding(SHARDS).names)
    local = tmp_path / "local" / "banco.duckdb"
    with ThreadPoolExecutor(1) as beside, cluster(tmp_path / "cluster", landing, SHARDS, monkeypatch) as c:
        default = beside.submit(embedded, local, landing, "ingest", "build")  # while the cluster works

        # w2 dies with the step it runs, as with its machine: its task stays on the broker, unacknowledged,
        # until the visibility timeout (an hour) hands it on; the run waits for it until its max run time
        killed = c.launch("ingest_landing", {"dagster/max_runtime": str(KILLED_MAX_RUNTIME_SECONDS)})
        step = kill_mid_step(c, killed, "w2")
        c.replace("w2")
        outcome = c.finished(killed).status
        assert outcome in (dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE), f"{step} killed: {outcome}"
        ingest = run_of(c, "ingest_landing")  # the rerun
        days = {"dagster/asset_partition_range_start": "2026-10-01", "dagster/asset_partition_range_end": "2026-10-30"}
        marts = run_of(c, "build_marts", days)

        taken = c.steps_by_worker(ingest.run_id) + c.steps_by_worker(marts.run_id)
        assert {worker for _, worker in taken} == {"w1", "w2"}
        assert {step for step, worker in taken if worker == "w1"} >= SERVING_STEPS
        assert not any(step in SERVING_STEPS for step, worker in taken if worker == "w2")
        assert not (tmp_path / "cluster" / "w2" / "banco.duckdb").exists()  # the serving file is w1's alone
        con = read(c.serving_db)
        try:
            accounted(con, landing)
            on_cluster = counts(con)
        finally:
            con.close()
        same_through_polars_and_duckdb(c)
        default.result()
        same_marts(marts_of(c.serving_db), marts_of(local))
    con = duckdb.connect(str(local.with_name("banco.serving.duckdb")), read_only=True)
    try:
        assert on_cluster == counts(con)  # nothing lost, nothing counted twice
    finally:
        con.close()
