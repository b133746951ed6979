"""The count room's checks: every finished shift opened and closed (blocking), and every shift's count
reconciled with its wagers (a warning for the revenue audit)."""

import datetime as dt

import dagster as dg
import polars as pl

from models.count_status import AGREED, EXPLAINED
from models.gaming_day import gaming_day
from models.warehouse import schema
from pipelines.defs.core.assets import key_of, latest_ingest_start
from pipelines.defs.core.checks import NOTHING_YET
from pipelines.defs.metadata import preview
from pipelines.defs.partitions import on_run_days
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING

#: Per shift touched by an ingest: its openers, closers and first event (the opener's time, else the first).
SHIFTS = f"""
    SELECT table_id, shift_id, count(*) FILTER (event = 'opener') AS openers,
           count(*) FILTER (event = 'closer') AS closers,
           coalesce(min(recorded_at) FILTER (event = 'opener'), min(recorded_at)) AS opened_at
    FROM {schema.CORE_TABLE_EVENTS}
    WHERE (table_id, shift_id) IN (
        SELECT DISTINCT (table_id, shift_id) FROM {schema.CORE_TABLE_EVENTS} WHERE ingested_at >= $since)
    GROUP BY table_id, shift_id
"""


def incomplete_shifts(shifts: pl.DataFrame, warehouse: Warehouse, now: dt.datetime) -> pl.DataFrame:
    """The shifts of finished gaming days without an opener or without a closer (a shift of the gaming
    day in progress may still be open)."""
    today = pl.select(gaming_day(pl.lit(now), warehouse.gaming_day)).item()
    return (
        shifts.with_columns(gaming_day(pl.col("opened_at"), warehouse.gaming_day))
        .filter((pl.col("gaming_day") < today) & ((pl.col("openers") == 0) | (pl.col("closers") == 0)))
        .sort("gaming_day", "table_id", "shift_id")
        .select("gaming_day", "table_id", "shift_id", "openers", "closers")
    )


@dg.asset_check(
    asset=key_of(schema.CORE_TABLE_EVENTS),
    blocking=True,
    description="Every shift the latest ingest touched, of a gaming day that has ended, has an opener and a "
    "closer: without both its tray cannot be counted, and the count room's win of the day would be wrong.",
)
def shifts_open_and_close(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    since = latest_ingest_start(context)
    if since is None:
        return NOTHING_YET
    with warehouse.latest() as con:
        shifts = con.sql(SHIFTS, params={"since": since}).pl()
    bad = incomplete_shifts(shifts, warehouse, dt.datetime.now(dt.UTC))
    return dg.AssetCheckResult(
        passed=bad.height == 0,
        metadata={"shifts_touched": shifts.height, "shifts_incomplete": bad.height, "incomplete": preview(bad, 20)},
    )


@dg.asset_check(
    asset=key_of(schema.MARTS_TABLE_SHIFT), blocking=False, op_tags=SERVING,
    description="Every table-shift of the run's gaming days: the count's win equals the wagers' win within the "
    "tolerance (BANCO_COUNT_TOLERANCE) once the wagers of its quarantined coups are counted. A warning, with the "
    "shifts and what explains each, for the revenue auditor: chips short, a slip missing, a wager paid wrongly.",
)  # fmt: skip
def shifts_reconciled(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    listed = on_run_days(context, "gaming_day")
    with warehouse.snapshot() as con:
        shifts = con.sql(
            "SELECT gaming_day, table_id, shift_id, status, drop, win, wagers_win, difference, tolerance, "
            f"unexplained, attribution FROM {schema.MARTS_TABLE_SHIFT} WHERE {listed} "
            "ORDER BY gaming_day, table_id, shift_id"
        ).pl()
    # a shift its quarantined coups explain is no lead: the dealers' errors are checked on their own
    off = shifts.filter(~pl.col("status").is_in(AGREED))
    return dg.AssetCheckResult(
        passed=off.height == 0,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "shifts": shifts.height,
            "shifts_unreconciled": off.height,
            "shifts_explained": shifts.filter(pl.col("status") == EXPLAINED).height,
            "difference_total": float(off["difference"].fill_null(0).sum()) if off.height else 0.0,
            "unexplained_total": float(off["unexplained"].fill_null(0).sum()) if off.height else 0.0,
            "unreconciled": preview(off, 20),
        },
    )
