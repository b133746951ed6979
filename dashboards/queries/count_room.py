"""The Count room's reads: the filtered table-shifts, hold against theoretical hold by gaming day, and the
statistical report's months and rows."""

from __future__ import annotations

import datetime as dt

import polars as pl

from dashboards import filters, query
from models.reports import hold, monthly
from models.warehouse import schema

SHIFT_MONEY = (
    "opener", "closer", "fills", "credits", "drop", "win", "wagers_win", "difference", "quarantined_win", "unexplained",
    "tolerance",
)  # fmt: skip
#: Beside the difference and the tolerance, what decides a shift's status (models/metrics/count_room.py).
DECIDING = ("quarantined_stake", "mispaid")
SHIFTS = (
    "SELECT gaming_day, table_id, shift_id, game, status, attribution, opened_at, closed_at, coups, quarantined_coups, "
    f"{', '.join(SHIFT_MONEY)}, hold_pct, theo_hold_pct, {', '.join(DECIDING)} "
    f"FROM {schema.MARTS_TABLE_SHIFT} WHERE {{where}} "
    "ORDER BY gaming_day, table_id, opened_at, shift_id"
)
SHIFT_COUNT = f"SELECT count(*) AS n FROM {schema.MARTS_TABLE_SHIFT}"
DAYS = f"SELECT {', '.join(hold.COLUMNS)} FROM {schema.MARTS_COUNT_ROOM} WHERE {{where}}"
MONTHS = (
    f"SELECT DISTINCT date_trunc('month', gaming_day)::DATE AS month FROM {schema.MARTS_STATISTICAL_REPORT} "
    "ORDER BY 1 DESC"
)


def shifts(f: filters.Filters) -> pl.DataFrame:
    """The filtered table-shifts: the count, the wagers' win, their difference and the holds over the drop."""
    return f.frame(SHIFTS, "table_day")


def any_shift() -> bool:
    """Whether the warehouse holds any table-shift at all (table events were ingested)."""
    return query.frame(SHIFT_COUNT)["n"][0] > 0


def days(f: filters.Filters) -> pl.DataFrame:
    """Hold and theoretical hold over the drop per gaming day, pooled over the filtered tables."""
    where, params = f.where("table_day")
    return hold.by_day(query.frame(DAYS.format(where=where), params))


def months() -> list[dt.date]:
    """The months the statistical report covers, the latest first."""
    return query.frame(MONTHS)["month"].to_list()


def report_rows(month: dt.date) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The statistical report's rows and the table-shifts of the month starting on `month`."""
    period = monthly.window(month)
    return query.frame(monthly.STATISTICAL, period), query.frame(monthly.SHIFTS, period)
