"""The Dagster code location on real DuckDB files: the whole graph, blocking checks, schedule and sensors."""

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from models.warehouse.store import write
from pipelines.definitions import defs
from pipelines.defs.core import checks as core_checks
from pipelines.defs.core.assets import ingest_landing
from pipelines.defs.core.shards import SHARD_INGESTS
from pipelines.defs.landing.assets import landing_files, simulated_shoes
from pipelines.defs.landing.sensors import landing_sensor
from pipelines.defs.marts import checks as marts_checks
from pipelines.defs.marts.assets import build_marts
from pipelines.defs.marts.schedules import nightly_marts
from pipelines.defs.marts.sensors import marts_after_ingest
from pipelines.defs.marts.shards import SHARD_MARTS
from pipelines.defs.partitions import range_tags
from pipelines.defs.resources import Warehouse
from pipelines.defs.serving.assets import serving_snapshot
from pipelines.settings import PROJECT_ROOT

GRAPH = [
    simulated_shoes,
    landing_files,
    *SHARD_INGESTS,
    ingest_landing,
    *SHARD_MARTS,
    build_marts,
    serving_snapshot,
    *dg.load_asset_checks_from_modules([core_checks, marts_checks]),
]
DEMO = {
    "days": 2, "tables": 3, "shoes_per_day": 2, "start": "2026-10-01", "misdeal_rate": 0.003, "advantage_share": 0.0,
}  # fmt: skip
DAYS = {"dagster/asset_partition_range_start": "2026-10-01", "dagster/asset_partition_range_end": "2026-10-02"}


def warehouse_in(folder: Path) -> Warehouse:
    return Warehouse(db=str(folder / "warehouse" / "banco.duckdb"), landing=str(folder / "landing"))


def snapshot(warehouse: Warehouse):
    return duckdb.connect(str(warehouse.db_path.with_name("banco.serving.duckdb")), read_only=True)


def settled(*paths: Path) -> None:
    """Age files (every file of a folder) past the sensor's settle time, as if they had landed a while ago."""
    past = time.time() - 60
    for path in paths:
        for file in path.rglob("*") if path.is_dir() else [path]:
            os.utime(file, (past, past))


def _clean_root(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder laid out as the project's root (its Dagster files only; the code is installed) and an
    environment with nothing of Banco's or Dagster's set, as in a new user's shell."""
    root = tmp_path / "clone"
    root.mkdir()
    for name in ("pyproject.toml", "dagster.yaml", ".env"):
        shutil.copy(PROJECT_ROOT / name, root / name)
    return root, {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path)}


@pytest.mark.slow
def test_dagster_cli_works_in_a_fresh_root_with_nothing_set(tmp_path):
    root, env = _clean_root(tmp_path)
    dagster = [str(Path(sys.executable).with_name("dagster"))]
    run = lambda *argv: subprocess.run(argv, capture_output=True, text=True, env=env, cwd=root, timeout=300)  # noqa: E731
    validated = run(*dagster, "definitions", "validate")  # the code location from [tool.dagster]
    assert validated.returncode == 0, validated.stderr[-2000:]
    assert "Validation successful for code location banco" in validated.stderr + validated.stdout
    ingested = run(
        str(Path(sys.executable).with_name("banco")), "ingest", str(PROJECT_ROOT / "data/samples/01_rounds_suited.csv")
    )
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    snapshot = root / "data" / "warehouse" / "banco.serving.duckdb"
    with duckdb.connect(str(snapshot), read_only=True) as con:
        (day,) = con.sql("SELECT CAST(min(started_at - INTERVAL 6 HOUR) AS DATE) FROM core.rounds").fetchall()[0]
    built = run(*dagster, "asset", "materialize", "-m", "pipelines.definitions", "--select", "group:marts",
                "--partition", day.isoformat())  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    with duckdb.connect(str(snapshot), read_only=True) as con:
        days = con.sql("SELECT DISTINCT gaming_day FROM marts.tie_frequency").fetchall()
    assert days == [(day,)]
    assert (root / ".dagster" / "history").is_dir()  # the instance's storage, where `banco up` keeps it
    assert not list(root.glob(".tmp_dagster_home_*"))


@pytest.mark.slow
def test_whole_graph_materializes_into_a_real_warehouse(tmp_path):
    warehouse = warehouse_in(tmp_path)
    result = dg.materialize(
        GRAPH,
        resources={"warehouse": warehouse},
        run_config=dg.RunConfig(ops={"simulated_shoes": {"config": DEMO}}),
        tags=DAYS,
    )
    assert result.success
    checks = {check.check_name: check.passed for check in result.get_asset_check_evaluations()}
    assert checks == dict.fromkeys(
        [
            "rows_accounted",
            "tableau_violation_rate",
            "shoes_reconcile",
            "tie_rate_in_band",
            "banker_share_in_band",
            "ratings_within_table_handle",
            "no_new_surveillance_flags",
        ],
        True,
    )
    events = {
        (event.asset_key.to_user_string(), event.partition): event.materialization
        for event in result.get_asset_materialization_events()
    }
    log = events[("meta/ingest_log", None)].metadata
    simulated = events[("simulated_shoes", None)].metadata
    con = snapshot(warehouse)
    try:
        rounds, quarantined = (
            con.sql(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in ("core.rounds", "quarantine.rounds")
        )
        days = con.sql("SELECT DISTINCT gaming_day::VARCHAR FROM marts.table_day ORDER BY 1").fetchall()
        by_reason = dict(con.sql("SELECT reason, count(*) FROM quarantine.rounds GROUP BY 1 UNION ALL "
                                 "SELECT reason, count(*) FROM quarantine.bets GROUP BY 1").fetchall())  # fmt: skip
    finally:
        con.close()
    assert (
        log["rows_read"].value
        == log["rows_accepted"].value + log["rows_quarantined"].value + log["rows_duplicate"].value
    )
    assert log["rows_read"].value >= simulated["coups"].value + simulated["bets"].value - simulated["faults"].value
    assert events[("core/rounds", None)].metadata["dagster/row_count"].value == rounds
    assert events[("quarantine/rounds", None)].metadata["dagster/row_count"].value == quarantined > 0
    assert log["quarantined_by_reason"].value == by_reason
    assert log["gaming_days_touched"].value == ["2026-10-01", "2026-10-02"]
    assert days == [("2026-10-01",), ("2026-10-02",)]
    for day in ("2026-10-01", "2026-10-02"):  # one single-run backfill materializes every day of the range
        assert events[("marts/table_day", day)].metadata["rows_written"].value == 6  # 3 tables x 2 days
    assert ("serving_snapshot", None) in events
    assert events[("serving_snapshot", None)].metadata["copied_now"].value is False  # the build published it
    # a wager rated twice: the ratings' check (alone, on the stored marts) finds the table-day
    with write(warehouse.db_path) as con:
        con.execute("UPDATE marts.player_sessions SET handle = handle * 2 WHERE table_id = 'T01'")
    again = dg.materialize(
        GRAPH,
        selection=dg.AssetSelection.checks(marts_checks.ratings_within_table_handle),
        resources={"warehouse": warehouse},  # a run of the check alone: over every gaming day
    )
    (ratings,) = again.get_asset_check_evaluations()
    assert not ratings.passed and ratings.metadata["table_days_over"].value == 2
    # a day with a flag: surveillance's check warns, with the flag
    with write(warehouse.db_path) as con:
        con.execute(
            "INSERT INTO marts.surveillance_flags (gaming_day, player_id, rule, scope, detail) "
            "VALUES (DATE '2026-10-02', 'PL00001', 'zender', 'player_day', 'seen')"
        )
    flagged = dg.materialize(
        GRAPH,
        selection=dg.AssetSelection.checks(marts_checks.no_new_surveillance_flags),
        resources={"warehouse": warehouse},  # alone: over every gaming day
    )
    (flags,) = flagged.get_asset_check_evaluations()
    assert not flags.passed and flags.severity == dg.AssetCheckSeverity.WARN
    assert flags.metadata["flags"].value == flags.metadata["players_flagged"].value == 1


def test_a_failing_blocking_check_stops_the_marts(tmp_path):
    """A source whose coups break the tableau (a player standing on 5) trips the blocking check."""
    warehouse = warehouse_in(tmp_path)
    warehouse.landing_path.mkdir(parents=True)
    rows = ["table_id,shoe_id,round_no,started_at,player_cards,banker_cards"]
    for n in range(1, 21):  # every other coup: player 2 3 stands on 5 against banker 4 3 = 7
        player, banker = ("2H 3S", "4D 3C") if n % 2 else ("9H KS", "8D KC")
        rows.append(f"T1,S1,{n},2026-10-01T12:{n:02d}:00Z,{player},{banker}")
    (warehouse.landing_path / "rounds_bad.csv").write_text("\n".join(rows) + "\n")
    result = dg.materialize(
        [
            landing_files,
            *SHARD_INGESTS,
            ingest_landing,
            *SHARD_MARTS,
            build_marts,
            serving_snapshot,
            *dg.load_asset_checks_from_modules([core_checks]),
        ],
        resources={"warehouse": warehouse},
        tags={"dagster/asset_partition_range_start": "2026-10-01", "dagster/asset_partition_range_end": "2026-10-01"},
        raise_on_error=False,
    )
    assert not result.success
    checks = {check.check_name: check for check in result.get_asset_check_evaluations()}
    assert not checks["tableau_violation_rate"].passed
    assert checks["tableau_violation_rate"].metadata["violations"].value == 10
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert "core/rounds" in materialized
    assert not {key for key in materialized if key.startswith("marts/")} and "serving_snapshot" not in materialized


def test_nightly_schedule_builds_the_previous_gaming_day():
    # at 02:00 on the 29th the gaming day of the 28th (from 06:00) is still open: the previous one is the 27th
    context = dg.build_schedule_context(scheduled_execution_time=dt.datetime(2026, 11, 29, 2, 0, tzinfo=dt.UTC))
    request = nightly_marts(context)
    assert request.partition_key == "2026-11-27" and request.run_key == "nightly-2026-11-27"
    later = dg.build_schedule_context(scheduled_execution_time=dt.datetime(2026, 11, 29, 7, 0, tzinfo=dt.UTC))
    assert nightly_marts(later).partition_key == "2026-11-28"
    assert nightly_marts.cron_schedule == "0 2 * * *"


def test_landing_sensor_requests_each_new_file_once(tmp_path):
    warehouse = warehouse_in(tmp_path)
    dg.materialize([simulated_shoes], resources={"warehouse": warehouse},
                   run_config=dg.RunConfig(ops={"simulated_shoes": {"config": {**DEMO, "days": 1}}}))  # fmt: skip
    settled(warehouse.landing_path)
    with dg.instance_for_test() as instance:
        first = landing_sensor(dg.build_sensor_context(instance=instance, resources={"warehouse": warehouse}))
        (request,) = first.run_requests
        paths = request.run_config["ops"]["ingest"]["config"]["paths"]
        assert len(paths) == 3 and all("_faults" not in path for path in paths)  # rounds, bets, events; no labels
        for shard in SHARD_INGESTS:  # every shard's step sorts the same list
            assert request.run_config["ops"][shard.op.name]["config"]["paths"] == paths
        again = landing_sensor(
            dg.build_sensor_context(instance=instance, cursor=first.cursor, resources={"warehouse": warehouse})
        )
        assert not again.run_requests
        late = warehouse.landing_path / "rounds_late.csv"
        late.write_text("table_id,shoe_id,round_no,started_at,outcome\nT9,S1,1,2026-10-01T12:00:00Z,B\n")
        young = landing_sensor(
            dg.build_sensor_context(instance=instance, cursor=first.cursor, resources={"warehouse": warehouse})
        )
        assert not young.run_requests  # still settling: it may be mid-copy
        settled(late)
        third = landing_sensor(
            dg.build_sensor_context(instance=instance, cursor=first.cursor, resources={"warehouse": warehouse})
        )
        (new,) = third.run_requests
        assert new.run_config["ops"]["ingest"]["config"]["paths"] == [str(late)]
        assert new.run_key != request.run_key and set(json.loads(third.cursor)) == {*paths, str(late)}


def test_landing_sensor_passes_over_files_already_ingested(tmp_path):
    warehouse = warehouse_in(tmp_path)
    dg.materialize([simulated_shoes, landing_files, *SHARD_INGESTS, ingest_landing], resources={"warehouse": warehouse},
                   run_config=dg.RunConfig(ops={"simulated_shoes": {"config": {**DEMO, "days": 1}}}))  # fmt: skip
    settled(warehouse.landing_path)
    with dg.instance_for_test() as instance:
        result = landing_sensor(dg.build_sensor_context(instance=instance, resources={"warehouse": warehouse}))
    assert not result.run_requests and len(json.loads(result.cursor)) == 3  # rounds, bets and table events


@pytest.mark.slow
def test_marts_follow_a_successful_ingest_over_the_days_it_touched(tmp_path):
    warehouse = warehouse_in(tmp_path)
    dg.materialize([simulated_shoes], resources={"warehouse": warehouse},
                   run_config=dg.RunConfig(ops={"simulated_shoes": {"config": DEMO}}))  # fmt: skip
    with dg.instance_for_test() as instance:
        job = defs.resolve_job_def("ingest_landing")
        ingest = job.execute_in_process(instance=instance, resources={"warehouse": warehouse})
        assert ingest.success
        context = dg.build_run_status_sensor_context(
            sensor_name="marts_after_ingest",
            dagster_instance=instance,
            dagster_run=ingest.dagster_run,
            dagster_event=ingest.get_run_success_event(),
        )
        request = marts_after_ingest(context)
    assert request.tags == DAYS


@pytest.mark.parametrize("setting", ["BANCO_NIGHTLY_AT=25:00", "BANCO_DAY_START_HOUR=30", "BANCO_TIMEZONE=Mars/Base"])
def test_a_bad_setting_is_one_clear_line(setting, tmp_path):
    name, value = setting.split("=")
    banco = Path(sys.executable).with_name("banco")
    result = subprocess.run(
        [str(banco), "up", "--no-serve", "--db", str(tmp_path / "w.duckdb"), "--landing", str(tmp_path)],
        capture_output=True, text=True, env={**os.environ, name: value}, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("banco: error: bad BANCO_* setting") and len(result.stderr.splitlines()) == 1


def test_a_marts_range_keeps_only_the_days_the_partitions_hold():
    assert range_tags(["2019-12-31", "2026-01-03", "2026-01-01"]) == {
        "dagster/asset_partition_range_start": "2026-01-01",
        "dagster/asset_partition_range_end": "2026-01-03",
    }
    assert range_tags(["2019-05-01"]) is None  # before the first partition (2020-01-01 in the tests: conftest.py)


def test_the_orchestration_doc_lists_every_asset_check():
    doc = (PROJECT_ROOT / "docs" / "orchestration.md").read_text()
    table = doc[doc.index("## Checks") :].split("\n\n")[1]
    documented = {line.split("`")[1] for line in table.splitlines() if line.startswith("| `")}
    assert documented == {key.name for key in defs.resolve_asset_graph().asset_check_keys}
