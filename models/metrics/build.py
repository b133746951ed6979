"""Recompute the marts from the core tables, for every gaming day or only some, and publish.

Three parts: how the marts are reckoned (config.py), each mart computed from frames (marts.py), and
the warehouse read and written (loading.py, storing.py); this module runs them. Every mart row
belongs to one gaming day, so a new day recomputes that day's rows and leaves the history alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import chain, product
from pathlib import Path

import polars as pl

from models.metrics.combine import combine
from models.metrics.config import MartConfig
from models.metrics.count_room import shift_spans
from models.metrics.loading import (
    BET_COLUMNS,
    ROUND_COLUMNS,
    SHIFT_COUP_COLUMNS,
    core_rows,
    dealer_errors_of,
    shift_coups,
    table_events,
)
from models.metrics.marts import compute_marts, count_marts, each_mart
from models.metrics.storing import outdated, quiet_checkpoints, store_marts
from models.warehouse import partials, schema
from models.warehouse.shards import Sharding
from models.warehouse.store import WarehouseError, current, write

#: What callers of the builds import from here, besides the builds.
__all__ = ["BET_COLUMNS", "ROUND_COLUMNS", "MartConfig", "build", "build_from_partials", "build_shard", "compute_marts"]
#: The marts as the project's defaults reckon them.
DEFAULT_CONFIG = MartConfig()


def build(db: Path, config: MartConfig = DEFAULT_CONFIG, days: Sequence[dt.date] | None = None) -> dict[str, int]:
    """Recompute the marts (of the given gaming days only, or all) and the tenure fit of their
    months, in one transaction; publish. Returns the rows written to each mart."""
    if not db.exists():
        raise WarehouseError(f"no warehouse at {db} yet: run `banco ingest PATH` first")
    with write(db) as con:
        quiet_checkpoints(con)
        rounds, bets, shoes = core_rows(con, days, config)
        if rounds.height == 0 and days is not None:
            raise WarehouseError(_nothing_on(db, days))
        if rounds.height == 0:
            raise WarehouseError(f"the warehouse at {db} holds no rounds yet: run `banco ingest PATH` first")
        if days is None:  # each mart is stored while the next is computed
            every = _every_mart(con, config, (rounds, bets, shoes))
            return store_marts(con, every, None, config.comp_rate, config.report_rules)
        errors = dealer_errors_of(con, days, config)
        marts = compute_marts(rounds, bets, shoes, config, errors) | _count_marts_of(con, days, config)
        return _store_days(con, config, days, marts)


def build_shard(
    db: Path, config: MartConfig, days: Sequence[dt.date], shard: str, sharding: Sharding, run_id: str
) -> dict[str, int]:
    """A sharded build's first stage, on any machine: the marts of `days` over the coups of `shard`'s
    tables alone, each day's stored apart (partials.py) as run `run_id` for `build_from_partials`;
    a day without coups on the shard stores empty marts. Returns the rows stored to each mart."""
    if shard not in sharding.names:
        raise ValueError(f"no shard {shard!r} among {sharding.count} shards: {', '.join(sharding.names)}")
    days = sorted(set(days))
    if not days:
        raise ValueError("a shard's marts are built a gaming day at a time: name the days")
    with current(db) as con:
        known = [table for (table,) in con.sql(f"SELECT DISTINCT table_id FROM {schema.CORE_SHOES}").fetchall()]
        tables = sharding.tables_in(shard, known)
        rounds, bets, shoes = core_rows(con, days, config, tables)
        errors = dealer_errors_of(con, days, config, tables)
        counted = _count_marts_of(con, days, config, tables)
    marts = compute_marts(rounds, bets, shoes, config, errors) | counted
    rows = dict.fromkeys(marts, 0)
    for day in days:
        # a shoe that began the day before belongs to that day, and is stored with it
        kept = {name: frame.filter(pl.col("gaming_day") == day) for name, frame in marts.items()}
        partials.write(db, day, shard, sharding.count, kept, run_id)
        rows = {name: rows[name] + frame.height for name, frame in kept.items()}
    return rows


def build_from_partials(db: Path, config: MartConfig, days: Sequence[dt.date], sharding: Sharding) -> dict[str, int]:
    """A sharded build's second stage, on the serving host: every shard's marts of `days` (from
    `build_shard`) combined and stored, with the tenure fit of their months, as `build(db, config,
    days)` stores them; publish. Returns the rows written to each mart. When a mart is missing from
    a warehouse that holds others, or stored with other columns (an earlier release's), it rebuilds
    every day from the core tables instead, as `build(db, config)`, and the rows are those of every
    day; a warehouse with no marts yet starts with these days (a run over a range builds them all)."""
    days = sorted(set(days))
    with ThreadPoolExecutor(8) as reader:  # on an object store, most of a read is waiting for it
        parts = list(reader.map(lambda key: partials.read(db, *key, sharding.count), product(days, sharding.names)))
    marts = combine(parts, config.comp_rate, config.surveillance_fdr)
    if not marts or marts[schema.MARTS_TIE_FREQUENCY].height == 0:  # every coup has its table's row there
        raise WarehouseError(_nothing_on(db, days))
    with write(db) as con:
        quiet_checkpoints(con)
        return _store_days(con, config, days, marts, fresh=False)


def _every_mart(
    con, config: MartConfig, loaded: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame] | None = None
) -> Iterator[tuple[str, pl.DataFrame]]:
    """Every mart of every day, from every core row (`loaded`: `core_rows`'s, when read already), the
    count room's too, one mart at a time; all is read before the first is computed (the marts are
    stored on the connection meanwhile)."""
    rounds, bets, shoes = core_rows(con, None, config) if loaded is None else loaded
    errors, events = dealer_errors_of(con, None, config), table_events(con, None, config)
    return chain(
        each_mart(rounds, bets, shoes, config, errors),
        count_marts(events, rounds.select(SHIFT_COUP_COLUMNS), bets, config),
    )


def _count_marts_of(
    con, days: Sequence[dt.date], config: MartConfig, tables: Sequence[str] | None = None
) -> dict[str, pl.DataFrame]:
    """The count room's marts of `days` (of `tables` only, when given), read from the warehouse."""
    events = table_events(con, days, config, tables)
    coups, bets = shift_coups(con, shift_spans(events, config.day, days))
    return dict(count_marts(events, coups, bets, config, days))


def _store_days(
    con, config: MartConfig, days: Sequence[dt.date], marts: dict[str, pl.DataFrame], fresh: bool = True
) -> dict[str, int]:
    """Store the marts' rows of `days` (and refit their months), or, when the stored marts are
    outdated (`outdated`), rebuild every day from the core tables; the rows written to each mart."""
    if outdated(con, marts, fresh):
        # a mart is missing or its columns changed (a newer release): rebuild every day, not just these
        return store_marts(con, _every_mart(con, config), None, config.comp_rate, config.report_rules)
    # a shoe that began the day before belongs to that day
    kept = ((n, f.filter(pl.col("gaming_day").is_in(list(days)))) for n, f in marts.items())
    return store_marts(con, kept, days, config.comp_rate, config.report_rules)


def _nothing_on(db: Path, days: Sequence[dt.date]) -> str:
    asked = ", ".join(str(day) for day in days)
    return f"the warehouse at {db} holds no coups of gaming day {asked}: nothing to build"
