"""Which gaming days the warehouse holds coups for: the days a build or a backfill has to cover."""

from __future__ import annotations

import datetime as dt

import polars as pl

from models.gaming_day import GamingDay, gaming_day
from models.warehouse import schema, views

# Time zone offsets are whole minutes, so minutes are all a gaming day needs from a coup's instant.
_MINUTES = f"SELECT DISTINCT date_trunc('minute', started_at) AS started_at FROM {schema.CORE_ROUNDS}"


def _days(instants: pl.DataFrame, day: GamingDay) -> list[dt.date]:
    return sorted(instants.select(gaming_day(pl.col("started_at"), day).unique())["gaming_day"].to_list())


def days_with_coups(con, day: GamingDay) -> list[dt.date]:
    """Every gaming day with at least one accepted coup."""
    return _days(con.sql(_MINUTES).pl(), day)


def first_day_with_coups(con, day: GamingDay) -> dt.date | None:
    """The first gaming day with an accepted coup (that of the earliest coup), None before any."""
    ((first,),) = con.sql(f"SELECT min(started_at) FROM {schema.CORE_ROUNDS}").fetchall()
    return None if first is None else day.of(first)


def coups_by_day(con, day: GamingDay) -> pl.DataFrame:
    """The coups of each gaming day with any (gaming_day, coups), in day order; Polars reads the
    files itself, several times faster than DuckDB hands the instants over."""
    rounds = views.scan(con, schema.CORE_ROUNDS)
    minutes = rounds.group_by(pl.col("started_at").dt.truncate("1m")).agg(coups=pl.len()).collect()
    return minutes.group_by(gaming_day(pl.col("started_at"), day)).agg(pl.col("coups").sum()).sort("gaming_day")


def days_touched_since(con, since: dt.datetime, day: GamingDay) -> list[dt.date]:
    """The gaming days whose marts rows ingested at or after `since` change: every day of every shoe
    that received rounds or bets (a shoe belongs to the day of its first coup), and the day of every
    shift that received table events (a shift belongs to the day it opened in)."""
    touched = (
        f"SELECT DISTINCT table_id, shoe_id FROM {schema.CORE_ROUNDS} WHERE ingested_at >= $since "
        f"UNION SELECT DISTINCT table_id, shoe_id FROM {schema.CORE_BETS} WHERE ingested_at >= $since"
    )
    query = f"{_MINUTES} SEMI JOIN ({touched}) AS touched USING (table_id, shoe_id)"
    # a count that lands after its coups changes the count room of the day its shift opened
    shifts = (
        f"SELECT min(recorded_at) AS started_at FROM {schema.CORE_TABLE_EVENTS} WHERE (table_id, shift_id) IN "
        f"(SELECT DISTINCT (table_id, shift_id) FROM {schema.CORE_TABLE_EVENTS} WHERE ingested_at >= $since) "
        "GROUP BY table_id, shift_id"
    )
    return _days(con.sql(f"{query} UNION {shifts}", params={"since": since}).pl(), day)


def coups_of_days(con, days: list[dt.date], day: GamingDay, columns: str = "game, decks, outcome") -> pl.DataFrame:
    """The accepted coups of the given gaming days (the named columns and `gaming_day`)."""
    if not days:
        return con.sql(f"SELECT {columns}, NULL::DATE AS gaming_day FROM {schema.CORE_ROUNDS} LIMIT 0").pl()
    # a day's instants lie within a day either side of its date, whatever the zone and start hour
    low = dt.datetime.combine(min(days) - dt.timedelta(days=1), dt.time(), dt.UTC)
    high = dt.datetime.combine(max(days) + dt.timedelta(days=3), dt.time(), dt.UTC)
    frame = con.sql(
        f"SELECT {columns}, started_at FROM {schema.CORE_ROUNDS} WHERE started_at >= $low AND started_at < $high",
        params={"low": low, "high": high},
    ).pl()
    return (
        frame.with_columns(gaming_day(pl.col("started_at"), day))
        .filter(pl.col("gaming_day").is_in(days))
        .drop("started_at")
    )
