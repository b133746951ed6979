"""Which rows an export keeps: some gaming days and some tables, and how each table is cut to them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import polars as pl

from models.gaming_day import GamingDay, gaming_day
from models.warehouse import views
from models.warehouse.schema import CORE_ROUNDS, CORE_TABLE_EVENTS

#: The relations `prepare` registers on the reading connection: what the cut keeps.
SHOES, SHIFTS, TABLE_IDS = "export_shoes", "export_shifts", "export_table_ids"
#: How many table ids an error lists before it says "...".
LISTED = 12


@dataclass(frozen=True)
class Cut:
    """Gaming days from `first` to `last` (an open end for None) and the tables `tables` (all when empty)."""

    first: dt.date | None = None
    last: dt.date | None = None
    tables: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.first is not None and self.last is not None and self.first > self.last:
            raise ValueError(f"--days goes backwards: {self.first} is after {self.last}")

    @property
    def by_day(self) -> bool:
        return self.first is not None or self.last is not None

    @property
    def whole(self) -> bool:
        return not self.by_day and not self.tables

    def days(self) -> str:
        if self.first == self.last:
            return f"gaming day {self.first}"
        return f"gaming days {self.first or 'the first'} to {self.last or 'the last'}"

    def describe(self) -> str:
        said = [self.days()] if self.by_day else []
        said += [f"tables {', '.join(self.tables)}"] if self.tables else []
        return "; ".join(said) or "none: every row"


def prepare(con, cut: Cut, day: GamingDay) -> None:
    """Register on the serving snapshot's connection the shoes, table-shifts and table ids `cut` keeps
    (a shoe's gaming day is its first coup's, a shift's the one it opened in, as the marts count
    them); one-line ValueError for a table the warehouse does not have, or days with nothing in them."""
    rounds, events = views.scan(con, CORE_ROUNDS), views.scan(con, CORE_TABLE_EVENTS)
    shoes = _kept(rounds, "shoe_id", "started_at", cut, day)
    shifts = _kept(events, "shift_id", "recorded_at", cut, day)
    if cut.tables:
        known = sorted(set(_ids(rounds)) | set(_ids(events)))
        unknown = [table for table in cut.tables if table not in known]
        if unknown:
            listed = ", ".join(known[:LISTED]) + (", ..." if len(known) > LISTED else "")
            raise ValueError(f"--tables: the warehouse has no table {', '.join(unknown)} (it has {listed or 'none'})")
    if cut.by_day and shoes.is_empty() and shifts.is_empty():
        where = f" at {', '.join(cut.tables)}" if cut.tables else ""
        raise ValueError(f"--days: nothing was played on {cut.days()}{where}")
    con.register(SHOES, shoes)
    con.register(SHIFTS, shifts)
    con.register(TABLE_IDS, pl.DataFrame({"table_id": list(cut.tables)}, schema={"table_id": pl.String}))


def _ids(frame: pl.LazyFrame) -> list[str]:
    return frame.select(pl.col("table_id").unique()).collect()["table_id"].to_list()


def _kept(frame: pl.LazyFrame, key: str, instant: str, cut: Cut, day: GamingDay) -> pl.DataFrame:
    """The (table_id, `key`) pairs whose first `instant` falls in the cut's days, at its tables."""
    firsts = frame.group_by("table_id", key).agg(pl.col(instant).min()).with_columns(gaming_day(pl.col(instant), day))
    keep = pl.lit(True)
    if cut.first is not None:
        keep &= pl.col("gaming_day") >= cut.first
    if cut.last is not None:
        keep &= pl.col("gaming_day") <= cut.last
    if cut.tables:
        keep &= pl.col("table_id").is_in(cut.tables)
    return firsts.filter(keep).select("table_id", key).collect()


def rows(relation: str, columns: set[str], cut: Cut, iceberg: bool) -> tuple[str, str]:
    """The SELECT of the rows of `relation` (with `columns`) that `cut` keeps, and how it chose them
    in a few words. The Iceberg tables are cut by shoe or by table-shift (their rows hold no gaming
    day), the DuckDB tables by `gaming_day` and `table_id`; a relation without them is kept whole."""
    select = f"SELECT * FROM {relation}"
    if cut.whole:
        return select, "whole"
    if iceberg and cut.by_day:
        for key, pairs, what in (("shoe_id", SHOES, "shoe"), ("shift_id", SHIFTS, "table-shift")):
            if {"table_id", key} <= columns:
                tables = " and table" if cut.tables else ""
                return f"{select} SEMI JOIN {pairs} USING (table_id, {key})", f"by its {what}'s gaming day{tables}"
    joins, where, said = "", [], []
    if cut.by_day and "gaming_day" in columns:
        where += [f"gaming_day >= DATE '{cut.first}'"] if cut.first else []
        where += [f"gaming_day <= DATE '{cut.last}'"] if cut.last else []
        said.append("gaming day")
    if cut.tables and "table_id" in columns:
        joins = f" SEMI JOIN {TABLE_IDS} USING (table_id)"
        said.append("table")
    if not said:
        return select, "whole"
    if cut.tables and "table_id" not in columns:
        said[-1] += " only (no table column: every table's rows)"
    return select + joins + (" WHERE " + " AND ".join(where) if where else ""), "by " + " and ".join(said)
