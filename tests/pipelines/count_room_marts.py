"""Crafted count-room marts (the design's columns) in a serving snapshot of their own, for the report's and
the Count room page's tests: every figure and flag chosen, so each can be checked where it shows."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import duckdb
import polars as pl

MONEY = "DECIMAL(18, 2)"
D = Decimal
NOV1, NOV2, OCT31 = dt.date(2026, 11, 1), dt.date(2026, 11, 2), dt.date(2026, 10, 31)


def _day(table, game, day, drop, win, mtd, ytd, md=None, ks=None, oh=None) -> dict:
    """A statistical_report row: mtd and ytd are (drop, win); md (base, period, low, high, flag); ks (base,
    flag); oh (rolling, lifetime, flag)."""
    md = md or (None, None, None, None, None)
    ks = ks or (None, None)
    oh = oh or (None, None, None)
    return dict(
        table_id=table, game=game, gaming_day=day, drop=D(drop), win=D(win), hold_pct=float(D(win) / D(drop) * 100),
        mtd_drop=D(mtd[0]), mtd_win=D(mtd[1]), mtd_hold_pct=float(D(mtd[1]) / D(mtd[0]) * 100),
        ytd_drop=D(ytd[0]), ytd_win=D(ytd[1]), ytd_hold_pct=float(D(ytd[1]) / D(ytd[0]) * 100),
        md_base_hold_pct=md[0], md_base_period=md[1], md_ci_low=md[2], md_ci_high=md[3], md_flag=md[4],
        ks_base_hold_pct=ks[0], ks_flag=ks[1],
        oh_rolling_hold_pct=oh[0], oh_lifetime_hold_pct=oh[1], oh_flag=oh[2],
    )  # fmt: skip


#: T01 (punto banco) over Maryland's interval in November; T02 (super 6) without a base, Ohio flagged on
#: its first day; T03 (punto banco) flagged by Maryland and Kansas; an October day that no November report shows.
STATISTICAL = [
    _day("T01", "punto_banco", OCT31, "1000.00", "100.00", ("1000.00", "100.00"), ("1000.00", "100.00"),
         (14.0, "2025", 12.0, 16.0, False), (14.0, False), (10.0, 10.0, False)),
    _day("T01", "punto_banco", NOV1, "2000.00", "300.00", ("2000.00", "300.00"), ("3000.00", "400.00"),
         (14.0, "2025", 12.5, 15.5, False), (14.0, False), (13.33, 13.33, False)),
    _day("T01", "punto_banco", NOV2, "1000.00", "50.00", ("3000.00", "350.00"), ("4000.00", "450.00"),
         (14.0, "2025", 12.0, 16.0, True), (14.0, False), (11.25, 11.25, False)),
    _day("T02", "super6", NOV1, "500.00", "100.00", ("500.00", "100.00"), ("500.00", "100.00"),
         oh=(20.0, 12.0, True)),
    _day("T02", "super6", NOV2, "500.00", "-20.00", ("1000.00", "80.00"), ("1000.00", "80.00"),
         oh=(8.0, 8.0, False)),
    _day("T03", "punto_banco", NOV2, "800.00", "200.00", ("800.00", "200.00"), ("800.00", "200.00"),
         (14.0, "2025", 10.0, 18.0, True), (14.0, True), (25.0, 25.0, False)),
]  # fmt: skip


def _shift(table, shift, day, game, status, drop, win, wagers_win, tolerance="1.00", theo="0.00") -> dict:
    opened = dt.datetime.combine(day, dt.time(8), dt.UTC)
    difference = None if win is None else D(win) - D(wagers_win)
    return dict(
        table_id=table, shift_id=shift, gaming_day=day, game=game, opened_at=opened,
        closed_at=None if status == "no_closer" else opened + dt.timedelta(hours=8), coups=60,
        opener=D("50000.00"), closer=None if win is None else D("50000.00"), fills=D(0), credits=D(0),
        drop_box=D(drop), markers=D(0), marker_payments=D(0), drop=D(drop), win=None if win is None else D(win),
        hold_pct=None if win is None else float(D(win) / D(drop) * 100), handle=D(drop) * 3,
        wagers_win=D(wagers_win), theo=D(theo), theo_hold_pct=float(D(theo) / D(drop) * 100),
        win_variance=1000.0, difference=difference, tolerance=D(tolerance),
        reconciled=None if difference is None else abs(difference) <= D(tolerance), status=status,
        quarantined_coups=0, quarantined_handle=D(0), quarantined_win=D(0), quarantined_stake=D(0), mispaid=D(0),
        unexplained=difference,
        attribution=f"the count is {abs(difference):,.2f} short of what the logs explain"
        if status == "unreconciled" else None,
    )  # fmt: skip


SHIFTS = [
    _shift("T01", "T01-1031-A", OCT31, "punto_banco", "unreconciled", "1000.00", "100.00", "130.00"),
    _shift("T01", "T01-1101-A", NOV1, "punto_banco", "reconciled", "2000.00", "300.00", "300.00", theo="25.00"),
    _shift("T01", "T01-1102-A", NOV2, "punto_banco", "reconciled", "1000.00", "50.00", "50.00", theo="12.40"),
    _shift("T02", "T02-1101-A", NOV1, "super6", "unreconciled", "500.00", "100.00", "125.00", theo="7.50"),
    _shift("T02", "T02-1102-A", NOV2, "super6", "reconciled", "500.00", "-20.00", "-20.00", theo="8.10"),
    _shift("T03", "T03-1102-A", NOV2, "punto_banco", "no_closer", "800.00", None, "180.00", theo="9.90"),
]
SHIFT_TYPES = {
    "gaming_day": "DATE", "opened_at": "TIMESTAMPTZ", "closed_at": "TIMESTAMPTZ", "coups": "BIGINT",
    "hold_pct": "DOUBLE", "theo_hold_pct": "DOUBLE", "win_variance": "DOUBLE", "reconciled": "BOOLEAN",
    "table_id": "VARCHAR", "shift_id": "VARCHAR", "game": "VARCHAR", "status": "VARCHAR",
    "quarantined_coups": "BIGINT", "attribution": "VARCHAR",
}  # fmt: skip
STAT_TYPES = {"table_id": "VARCHAR", "game": "VARCHAR", "gaming_day": "DATE", "md_base_period": "VARCHAR",
              "md_flag": "BOOLEAN", "ks_flag": "BOOLEAN", "oh_flag": "BOOLEAN"}  # fmt: skip


def _create(con: duckdb.DuckDBPyConnection, name: str, rows: list[dict], types: dict[str, str], money) -> None:
    columns = list(rows[0])
    kinds = {c: types.get(c) or (MONEY if c in money else "DOUBLE") for c in columns}
    con.execute(f"CREATE OR REPLACE TABLE {name} ({', '.join(f'{c} {kinds[c]}' for c in columns)})")
    marks = ", ".join("?" for _ in columns)
    con.executemany(f"INSERT INTO {name} VALUES ({marks})", [[row[c] for c in columns] for row in rows])


def count_room_rows() -> list[dict]:
    """marts.count_room from the crafted shifts: one shift per table-day, so its sums are the shift's."""
    rows = []
    for s in SHIFTS:
        rows.append(dict(
            table_id=s["table_id"], gaming_day=s["gaming_day"], game=s["game"], shifts=1, coups=s["coups"],
            fills=s["fills"], credits=s["credits"], drop_box=s["drop_box"], markers=s["markers"],
            marker_payments=s["marker_payments"], drop=s["drop"], win=s["win"], handle=s["handle"],
            wagers_win=s["wagers_win"], theo=s["theo"], win_variance=s["win_variance"], difference=s["difference"],
            opener=s["opener"], closer=s["closer"], hold_pct=s["hold_pct"], theo_hold_pct=s["theo_hold_pct"],
            unreconciled_shifts=int(s["status"] != "reconciled"), reconciled=s["status"] == "reconciled",
        ))  # fmt: skip
    return rows


def write(db: Path, into: bool = False, empty: bool = False) -> Path:
    """A serving snapshot beside `db` holding the three crafted marts (and nothing else), or with `into`
    the built warehouse's own snapshot with them put in (in place of any it has); `empty`: no rows at all.
    Returns `db`."""
    serving = db.with_name(f"{db.stem}.serving{db.suffix}")
    if not into:
        serving.unlink(missing_ok=True)
    con = duckdb.connect(str(serving))
    try:
        con.execute("CREATE SCHEMA IF NOT EXISTS marts")
        money = {"drop", "win", "mtd_drop", "mtd_win", "ytd_drop", "ytd_win"}
        _create(con, "marts.statistical_report", STATISTICAL, STAT_TYPES, money)
        shift_money = {k for k, v in SHIFTS[0].items() if isinstance(v, Decimal)}
        shift_money |= {"win", "closer", "difference", "unexplained"}
        _create(con, "marts.table_shift", SHIFTS, SHIFT_TYPES, shift_money)
        types = SHIFT_TYPES | {"shifts": "BIGINT", "unreconciled_shifts": "BIGINT"}
        _create(con, "marts.count_room", count_room_rows(), types, shift_money)
        if empty:
            for name in ("statistical_report", "table_shift", "count_room"):
                con.execute(f"DELETE FROM marts.{name}")
    finally:
        con.close()
    return db


def marts(db: Path, name: str) -> pl.DataFrame:
    con = duckdb.connect(str(db.with_name(f"{db.stem}.serving{db.suffix}")), read_only=True)
    try:
        return con.sql(f"SELECT * FROM {name}").pl()
    finally:
        con.close()
