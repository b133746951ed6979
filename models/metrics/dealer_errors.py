"""The errors a dealer makes, counted from the quarantine: per dealer, table and gaming day, every
quarantined row of their coups, and the tableau violations, outcome mismatches and payout mismatches.

A quarantined round names its dealer and time only in its `raw` text (the row as read: JSON for
every source, a broken line's own text); a quarantined bet's round, where it was accepted, names
them in core.rounds. A row whose table, dealer or time cannot be read is counted nowhere.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import polars as pl

from models.gaming_day import GamingDay, gaming_day
from models.logs.checks import _instant as ingested_instant  # a row's time read as its checks read it
from models.warehouse import schema

COUNTS = ("quarantined", "tableau_violations", "outcome_mismatches", "payout_mismatches")
REASONS = {
    "tableau_violations": "tableau_violation",
    "outcome_mismatches": "outcome_mismatch",
    "payout_mismatches": "payout_mismatch",
}
SCHEMA = {"dealer_id": pl.String, "table_id": pl.String, "gaming_day": pl.Date} | dict.fromkeys(COUNTS, pl.Int64)


def raw_field(name: str) -> str:
    # a line the reader could not make a row of keeps its own text, which is no JSON object
    return f"CASE WHEN json_valid(raw) THEN json_extract_string(raw, '$.{name}') END"


def _where(column: str, tables: Sequence[str] | None) -> str:
    """SQL keeping the rows of `tables` by their `column` (every row when None)."""
    if tables is None:
        return f"{column} IS NOT NULL"
    listed = ", ".join("'" + table.replace("'", "''") + "'" for table in tables)
    return f"{column} IN ({listed})" if tables else "FALSE"


def _spans(column: str, day_bounds: Sequence[tuple[dt.datetime, dt.datetime]] | None) -> str:
    """SQL keeping the instants of `column` within the bounds (every one when None)."""
    if day_bounds is None:
        return "TRUE"
    spans = [f"({column} >= '{start.isoformat()}' AND {column} < '{end.isoformat()}')" for start, end in day_bounds]
    return f"({' OR '.join(spans)})" if spans else "FALSE"


def dealer_errors(
    con, day_bounds: Sequence[tuple[dt.datetime, dt.datetime]] | None, tables: Sequence[str] | None, day: GamingDay
) -> pl.DataFrame:
    """Per dealer_id, table_id and gaming_day: every quarantined row (round or bet) of a coup the
    dealer dealt, and how many are tableau violations, outcome mismatches and payout mismatches; read
    through the connection's warehouse views, for the coups within `day_bounds` (UTC instants, start
    included, end not; every time when None) at `tables` (all when None), as `loading.core_rows` picks."""
    rounds = con.sql(
        f"SELECT table_id, reason, {raw_field('dealer_id')} AS dealer_id, {raw_field('started_at')} AS started_at "
        f"FROM {schema.QUARANTINE_ROUNDS} WHERE {_where('table_id', tables)}"
    ).pl()
    rounds = rounds.with_columns(
        pl.col("dealer_id").str.strip_chars().replace("", None),  # as the checks read it: blank is none
        started_at=ingested_instant(rounds, "started_at"),
    )
    # a time range on core.rounds reads only the row groups of those days (rows land in time order)
    bets = con.sql(
        f"SELECT q.table_id, q.reason, r.dealer_id, r.started_at FROM {schema.QUARANTINE_BETS} q "
        f"JOIN {schema.CORE_ROUNDS} r USING (table_id, shoe_id, round_no) "
        f"WHERE {_where('q.table_id', tables)} AND {_spans('r.started_at', day_bounds)}"
    ).pl()
    bets = bets.with_columns(pl.col("started_at").dt.convert_time_zone("UTC"))
    within = pl.lit(day_bounds is None)
    for start, end in day_bounds or ():
        within = within | ((pl.col("started_at") >= start) & (pl.col("started_at") < end))
    rows = pl.concat([rounds, bets], how="vertical_relaxed")
    return (
        rows.filter(pl.col("dealer_id").is_not_null() & pl.col("started_at").is_not_null() & within)
        .with_columns(gaming_day(pl.col("started_at"), day))
        .group_by("dealer_id", "table_id", "gaming_day")
        .agg(
            quarantined=pl.len().cast(pl.Int64),
            **{name: (pl.col("reason") == reason).sum().cast(pl.Int64) for name, reason in REASONS.items()},
        )
        .select(list(SCHEMA))
        .cast(SCHEMA)
        .sort("gaming_day", "dealer_id", "table_id")
    )
