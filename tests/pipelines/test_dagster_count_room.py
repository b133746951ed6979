"""The count room in Dagster on real files: the shifts' blocking check, the reconciliation warning, and
the monthly report asset and its schedule."""

import datetime as dt
import hashlib
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from models.reports import manifest
from pipelines.defs.core import checks as core_checks
from pipelines.defs.core.assets import ingest_landing
from pipelines.defs.core.shards import SHARD_INGESTS
from pipelines.defs.count_room import checks as count_room_checks
from pipelines.defs.count_room.assets import monthly_statistical_report
from pipelines.defs.count_room.schedules import monthly_statistical_report as monthly_schedule
from pipelines.defs.count_room.schedules import previous_month
from pipelines.defs.landing.assets import landing_files
from pipelines.defs.marts.assets import build_marts
from pipelines.defs.marts.shards import SHARD_MARTS
from pipelines.defs.resources import Warehouse
from pipelines.defs.serving.assets import serving_snapshot

GRAPH = [
    landing_files,
    *SHARD_INGESTS,
    ingest_landing,
    *SHARD_MARTS,
    build_marts,
    serving_snapshot,
    *dg.load_asset_checks_from_modules([core_checks, count_room_checks]),
]
DAY = {"dagster/asset_partition_range_start": "2026-10-01", "dagster/asset_partition_range_end": "2026-10-01"}
#: Three naturals at T1 and T2: Player wins (9 v 8), Banker wins (8 v 9), Player wins.
ROUNDS = [
    "table_id,shoe_id,round_no,started_at,player_cards,banker_cards",
    *(f"{table},S1,1,2026-10-01T12:01:00Z,9H KS,8D KC" for table in ("T1", "T2")),
    *(f"{table},S1,2,2026-10-01T12:02:00Z,8H KD,9D QC" for table in ("T1", "T2")),
    *(f"{table},S1,3,2026-10-01T12:03:00Z,9S JS,8C JC" for table in ("T1", "T2")),
]
#: At each table: player 100 wins (-100), banker 100 wins less 5 % (-95), banker 200 loses (+200): +5.
BETS = [
    "table_id,shoe_id,round_no,seat,bet,amount,player_id",
    *(
        f"{table},S1,{n},1,{bet},{amount},P1"
        for table in ("T1", "T2")
        for n, bet, amount in ((1, "player", 100), (2, "banker", 100), (3, "banker", 200))
    ),
]
#: Each shift: the player bought 500 in chips for cash; T1's closer is 10,000 - 500 + 5 (reconciled),
#: T2's is 100 short (chips walked from the tray).
EVENTS = [
    "table_id,shift_id,event_id,event,recorded_at,amount,denominations",
    "T1,A,1,opener,2026-10-01T06:00:00Z,10000,100x100",
    "T1,A,2,drop,2026-10-01T14:00:00Z,500,",
    "T1,A,3,closer,2026-10-01T14:00:00Z,9505,100x95 5x1",
    "T2,A,1,opener,2026-10-01T06:00:00Z,10000,100x100",
    "T2,A,2,drop,2026-10-01T14:00:00Z,500,",
    "T2,A,3,closer,2026-10-01T14:00:00Z,9405,100x94 5x1",
]


def landed(tmp_path: Path, events: list[str]) -> Warehouse:
    warehouse = Warehouse(db=str(tmp_path / "warehouse" / "banco.duckdb"), landing=str(tmp_path / "landing"))
    warehouse.landing_path.mkdir(parents=True)
    for name, lines in (("rounds.csv", ROUNDS), ("bets.csv", BETS), ("table_events.csv", events)):
        (warehouse.landing_path / name).write_text("\n".join(lines) + "\n")
    return warehouse


def test_a_shift_never_closed_stops_the_marts(tmp_path):
    warehouse = landed(tmp_path, [line for line in EVENTS if ",closer," not in line or not line.startswith("T2")])
    result = dg.materialize(GRAPH, resources={"warehouse": warehouse}, tags=DAY, raise_on_error=False)
    assert not result.success
    checks = {check.check_name: check for check in result.get_asset_check_evaluations()}
    assert not checks["shifts_open_and_close"].passed
    assert checks["shifts_open_and_close"].metadata["shifts_incomplete"].value == 1
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert "core/table_events" in materialized
    assert not {key for key in materialized if key.startswith("marts/")}


@pytest.mark.slow
def test_unreconciled_shifts_warn_and_the_month_is_filed(tmp_path):
    warehouse = landed(tmp_path, EVENTS)
    result = dg.materialize(GRAPH, resources={"warehouse": warehouse}, tags=DAY)
    checks = {check.check_name: check for check in result.get_asset_check_evaluations()}
    assert checks["shifts_open_and_close"].passed
    reconciled = checks["shifts_reconciled"]
    assert not reconciled.passed and reconciled.severity == dg.AssetCheckSeverity.WARN
    assert reconciled.metadata["shifts"].value == 2
    assert reconciled.metadata["shifts_unreconciled"].value == 1
    assert reconciled.metadata["difference_total"].value == -100.0

    reports = tmp_path / "reports"
    filed = dg.materialize(
        [monthly_statistical_report],
        resources={"warehouse": warehouse},
        partition_key="2026-10-01",
        run_config=dg.RunConfig(ops={"reports__monthly_statistical_report": {"config": {"folder": str(reports)}}}),
    )
    (event,) = filed.get_asset_materialization_events()
    metadata = event.materialization.metadata
    assert metadata["tables"].value == 2 and metadata["table_shifts_unreconciled"].value == 1
    paths = {fmt: Path(metadata[f"{fmt}_path"].value) for fmt in ("csv", "xlsx", "pdf")}
    assert all(path.parent == reports for path in paths.values())
    rows = pl.read_csv(paths["csv"])
    assert set(rows.filter(pl.col("level") == "table")["table_id"]) == {"T1", "T2"}
    assert "report" in load_workbook(paths["xlsx"]).sheetnames[0].lower()
    text = "".join(page.extract_text() for page in PdfReader(paths["pdf"]).pages)
    assert "October 2026" in text and "T2" in text
    # each file's manifest, as `banco report` writes it: the file's sha256 and the commit it stands on
    for path in paths.values():
        made = manifest.read(manifest.path_of(path))
        assert made.files == {path.name: hashlib.sha256(path.read_bytes()).hexdigest()}
        assert made.commit is not None and made.format == path.suffix[1:]


def test_the_report_is_filed_for_the_previous_month_on_the_second():
    assert previous_month(dt.datetime(2026, 12, 2, 4, 0, tzinfo=dt.UTC)) == "2026-11-01"
    assert previous_month(dt.datetime(2027, 1, 2, 4, 0, tzinfo=dt.UTC)) == "2026-12-01"
    context = dg.build_schedule_context(scheduled_execution_time=dt.datetime(2026, 12, 2, 4, 0, tzinfo=dt.UTC))
    request = monthly_schedule(context)
    assert request.partition_key == "2026-11-01" and request.run_key == "report-2026-11-01"
    assert monthly_schedule.cron_schedule == "0 4 2 * *"
