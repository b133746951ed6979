"""What the marts were last built from, so that a build computes only what can have changed.

The ledger, three tables in the warehouse file, holds the data files of the tables the marts read as
they were at the last build, a digest of each shoe's row of core.shoes (an ingest rewrites that
table whole), and each gaming day's settings when it was built. Other core rows are only ever
added, in new files: a day is computed again when a new file holds a row of it (or of a shoe that
has a coup on it), when its shoe's row changed, or when it was built with other settings; the
other days' rows are kept. A file rewritten or removed makes every day new. A coup's exact edges
depend on nothing but its shoe's cards, the pay table and the gaming day: they are kept while its
shoe is untouched.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import polars as pl

from models.code_version import code_digest
from models.gaming_day import gaming_day
from models.logs.checks import _instant as ingested_instant  # a row's time read as its checks read it
from models.metrics.config import MartConfig
from models.metrics.dealer_errors import raw_field
from models.warehouse import schema, views

if TYPE_CHECKING:
    from models.warehouse.travel import Commit

#: The tables the marts read: a new data file in any of them may change a day's marts.
#: (core.shoes, rewritten whole by every ingest, is compared shoe by shoe instead.)
READ = (
    schema.CORE_ROUNDS, schema.CORE_BETS, schema.CORE_TABLE_EVENTS, schema.QUARANTINE_ROUNDS, schema.QUARANTINE_BETS,
)  # fmt: skip
#: Each shoe's row of core.shoes as a digest.
_SHOE_DIGESTS = f"SELECT table_id, shoe_id, hash(s) AS digest FROM {schema.CORE_SHOES} AS s"
SHOE = ["table_id", "shoe_id"]


@dataclass(frozen=True)
class Plan:
    """What a build computes: the gaming `days` (sorted), the days whose stored rows it keeps
    (`reused`), the shoes whose edges it computes again (`touched`: table_id, shoe_id; None for
    every shoe) and, when every day is computed, why."""

    days: list[dt.date]
    reused: list[dt.date]
    touched: pl.DataFrame | None
    why: str = ""


def settings_key(config: MartConfig) -> str:
    """A short digest of every setting the marts are reckoned by and of the code that reckons them
    (a new release computes every day again: its figures or its columns may differ)."""
    return hashlib.sha256(f"{config!r} {code_digest()}".encode()).hexdigest()[:16]


#: The code a coup's edges are computed by: the rules, the exact odds and the edges' own module.
EDGES_CODE = ("game", "odds", "metrics/coup_edges.py")


def edges_key(config: MartConfig) -> str:
    """A short digest of what a coup's edges depend on beside its shoe's cards: the pay table, the
    gaming day (it names the shoe's day) and the code that computes them."""
    return hashlib.sha256(f"{(config.paytable, config.day)!r} {code_digest(*EDGES_CODE)}".encode()).hexdigest()[:16]


def plan(con, config: MartConfig, days: Sequence[dt.date], every_day: bool = False) -> Plan:
    """Which of `days` (the warehouse's gaming days) a build computes, and which shoes' edges."""
    everything = Plan(sorted(days), [], None)
    if not _recorded(con):
        return Plan(everything.days, [], None, "no build recorded yet")
    if missing := [name for name in schema.MARTS if not views.exists(con, name)]:  # dropped since
        return Plan(everything.days, [], None, f"{missing[0]} is missing")
    built = con.sql(f"SELECT gaming_day, settings, edges FROM {schema.BUILT_DAYS}").pl()
    same_edges = built.height > 0 and bool((built["edges"] == edges_key(config)).all())
    stored, now = _stored_files(con), files(con)
    if any(stored.get(table, set()) - now[table] for table in READ):
        return Plan(everything.days, [], None, "a data file was rewritten or removed since the last build")
    new = {table: sorted(now[table] - stored.get(table, set())) for table in READ}
    shoes, touched_days = _touched(con, new, _changed_shoes(con), config)
    settled = set(built.filter(pl.col("settings") == settings_key(config))["gaming_day"].to_list())
    todo = sorted(day for day in days if every_day or day not in settled or day in touched_days)
    reused = sorted(set(days) - set(todo))
    why = "asked to compute every day" if every_day else ""
    if not settled and todo:
        why = "the settings or the release changed since the last build"
    return Plan(todo, reused, shoes if same_edges else None, why)


def files(con) -> dict[str, set[str]]:
    """The data files each table the marts read holds now."""
    return {table: set(views.locations(con, table)) for table in READ}


def reckoned_otherwise(con, config: MartConfig, days: Sequence[dt.date]) -> list[dt.date]:
    """Those of `days` whose marts no build noted as reckoned with `config`'s settings by this release
    (another release or other settings built them, or no build noted them)."""
    if not views.exists(con, schema.BUILT_DAYS):
        return sorted(days)
    built = con.sql(f"SELECT gaming_day, settings FROM {schema.BUILT_DAYS}").pl()
    settled = set(built.filter(pl.col("settings") == settings_key(config))["gaming_day"].to_list())
    return sorted(day for day in days if day not in settled)


def record_days(con, days: Sequence[dt.date], config: MartConfig) -> None:
    """Note `days` as built now with `config`'s settings."""
    _create(con)
    frame = pl.DataFrame(
        {"gaming_day": list(days), "settings": settings_key(config), "edges": edges_key(config)},
        schema={"gaming_day": pl.Date, "settings": pl.String, "edges": pl.String},
    )
    con.register("built_frame", frame)
    try:
        con.execute(f"DELETE FROM {schema.BUILT_DAYS} WHERE gaming_day IN (SELECT gaming_day FROM built_frame)")
        con.execute(f"INSERT INTO {schema.BUILT_DAYS} BY NAME SELECT * FROM built_frame")
    finally:
        con.unregister("built_frame")


class HeldBack(NamedTuple):
    """A table's gaming day left out of the marts, and why (one line)."""

    gaming_day: dt.date
    table_id: str
    reason: str


#: Held-back table-days as a frame.
HELD_SCHEMA = {"gaming_day": pl.Date, "table_id": pl.String, "reason": pl.String}


def record_held_back(con, days: Sequence[dt.date], held: Sequence[HeldBack]) -> None:
    """Note `held` as the table-days held back from the marts of `days`, now, in place of what was
    noted of those days (a day computed again notes its own)."""
    con.execute(
        f"CREATE TABLE IF NOT EXISTS {schema.HELD_BACK} "
        "(gaming_day DATE, table_id VARCHAR, reason VARCHAR, noted_at TIMESTAMPTZ)"
    )
    if days:
        listed = ", ".join(f"DATE '{day}'" for day in days)
        con.execute(f"DELETE FROM {schema.HELD_BACK} WHERE gaming_day IN ({listed})")
    frame = pl.DataFrame(list(held), schema=HELD_SCHEMA, orient="row")
    con.register("held_frame", frame)
    try:
        con.execute(f"INSERT INTO {schema.HELD_BACK} SELECT *, now() FROM held_frame")
    finally:
        con.unregister("held_frame")


def held_back(con) -> list[HeldBack]:
    """Every table-day held back from the marts, by day and table (none before a build noted any)."""
    if not views.exists(con, schema.HELD_BACK):
        return []
    rows = con.sql(f"SELECT gaming_day, table_id, reason FROM {schema.HELD_BACK} ORDER BY ALL").fetchall()
    return [HeldBack(*row) for row in rows]


def record_files(con, read: dict[str, set[str]], shoes: pl.DataFrame) -> None:
    """Note the data files the marts are built from now and the shoes' rows (`files` and
    `shoe_digests`, taken before the build read them); nothing is written when they are as noted."""
    if _unchanged(con, read, shoes):
        return
    _create(con)
    rows = pl.DataFrame(
        [(table, location) for table, locations in read.items() for location in sorted(locations)],
        schema={"table_name": pl.String, "location": pl.String},
        orient="row",
    )
    con.register("built_frame", rows)
    try:
        con.execute(f"CREATE OR REPLACE TABLE {schema.BUILT_FILES} AS SELECT * FROM built_frame")
    finally:
        con.unregister("built_frame")
    con.register("built_frame", shoes)
    try:
        con.execute(f"CREATE OR REPLACE TABLE {schema.BUILT_SHOES} AS SELECT * FROM built_frame")
    finally:
        con.unregister("built_frame")


def _unchanged(con, read: dict[str, set[str]], shoes: pl.DataFrame) -> bool:
    """Whether the ledger notes these files and shoes already."""
    if not _recorded(con) or _stored_files(con) != {table: found for table, found in read.items() if found}:
        return False
    noted = con.sql(f"SELECT count(*) FROM {schema.BUILT_SHOES}").fetchall()[0][0]
    return noted == shoes.height and _changed_shoes(con).height == 0


def record_commit(con, commit: Commit, config: MartConfig) -> None:
    """Note the warehouse's commit the marts were just stored from (the log's snapshot, its time and
    every table's snapshot) and the settings they were reckoned by, over what was noted before."""
    con.execute(
        f"CREATE OR REPLACE TABLE {schema.BUILT_FROM} AS SELECT ?::BIGINT AS log_snapshot, "
        "?::TIMESTAMPTZ AS committed_at, ?::VARCHAR AS point, ?::VARCHAR AS settings",
        [commit.log_snapshot, commit.committed_at, json.dumps(commit.point, sort_keys=True),
         json.dumps(config.recorded())],
    )  # fmt: skip


def shoe_digests(con) -> pl.DataFrame:
    """Each shoe's row of core.shoes as a digest (table_id, shoe_id, digest)."""
    return con.sql(_SHOE_DIGESTS).pl()


def forget(con) -> None:
    """Drop the ledger: the next build computes every day."""
    for name in (schema.BUILT_DAYS, schema.BUILT_FILES, schema.BUILT_SHOES):
        con.execute(f"DROP TABLE IF EXISTS {name}")


def _create(con) -> None:
    con.execute(f"CREATE TABLE IF NOT EXISTS {schema.BUILT_DAYS} (gaming_day DATE, settings VARCHAR, edges VARCHAR)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {schema.BUILT_FILES} (table_name VARCHAR, location VARCHAR)")
    con.execute(f"CREATE TABLE IF NOT EXISTS {schema.BUILT_SHOES} (table_id VARCHAR, shoe_id VARCHAR, digest UBIGINT)")


def _recorded(con) -> bool:
    return all(views.exists(con, name) for name in (schema.BUILT_DAYS, schema.BUILT_FILES, schema.BUILT_SHOES))


def _changed_shoes(con) -> pl.DataFrame:
    """The shoes whose row of core.shoes is new or changed since the last build."""
    return con.sql(
        f"SELECT table_id, shoe_id FROM ({_SHOE_DIGESTS}) ANTI JOIN {schema.BUILT_SHOES} "
        "USING (table_id, shoe_id, digest)"
    ).pl()


def _stored_files(con) -> dict[str, set[str]]:
    stored: dict[str, set[str]] = {}
    for table, location in con.sql(f"SELECT table_name, location FROM {schema.BUILT_FILES}").fetchall():
        stored.setdefault(table, set()).add(location)
    return stored


def _touched(
    con, new: dict[str, list[str]], changed: pl.DataFrame, config: MartConfig
) -> tuple[pl.DataFrame, set[dt.date]]:
    """The shoes the new files hold a row of, or whose row of core.shoes `changed`, and every gaming
    day those shoes' coups, the new quarantined rounds and the new table events fall on."""
    shoes = [pl.DataFrame(schema={"table_id": pl.String, "shoe_id": pl.String}), changed]
    days: set[dt.date] = set()
    for table in (schema.CORE_ROUNDS, schema.CORE_BETS, schema.QUARANTINE_BETS):
        if new[table]:
            shoes.append(_read(con, new[table], "table_id, shoe_id", "shoe_id IS NOT NULL"))
    if new[schema.QUARANTINE_ROUNDS]:
        quarantined = _read(con, new[schema.QUARANTINE_ROUNDS], f"table_id, shoe_id, {raw_field('started_at')} AS at")
        shoes.append(quarantined.filter(pl.col("shoe_id").is_not_null()).select(SHOE))
        instants = quarantined.select(at=ingested_instant(quarantined, "at")).drop_nulls()
        days |= set(instants.select(gaming_day(pl.col("at"), config.day))["gaming_day"].to_list())
    if new[schema.CORE_TABLE_EVENTS]:  # a shift belongs to the day it opened in
        con.register("new_shifts", _read(con, new[schema.CORE_TABLE_EVENTS], "DISTINCT table_id, shift_id"))
        try:
            opened = con.sql(
                f"SELECT min(recorded_at) AS at FROM {schema.CORE_TABLE_EVENTS} "
                "SEMI JOIN new_shifts USING (table_id, shift_id) GROUP BY table_id, shift_id"
            ).pl()
        finally:
            con.unregister("new_shifts")
        days |= set(opened.select(gaming_day(pl.col("at"), config.day))["gaming_day"].to_list())
    touched = pl.concat(shoes, how="vertical_relaxed").unique()
    if touched.height:  # every day a touched shoe's coups fall on
        con.register("touched_shoes", touched)
        try:
            coups = con.sql(
                f"SELECT DISTINCT started_at FROM {schema.CORE_ROUNDS} "
                "SEMI JOIN touched_shoes USING (table_id, shoe_id)"
            ).pl()
        finally:
            con.unregister("touched_shoes")
        days |= set(coups.select(gaming_day(pl.col("started_at"), config.day)).unique()["gaming_day"].to_list())
    return touched, days


def _read(con, locations: list[str], columns: str, where: str = "TRUE") -> pl.DataFrame:
    listed = ", ".join("'" + location.replace("'", "''") + "'" for location in locations)
    return con.sql(f"SELECT {columns} FROM read_parquet([{listed}]) WHERE {where}").pl()
