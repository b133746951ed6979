"""Reading what a build needs from the warehouse: the core rows of some gaming days (or all), the
table events around them, the coups and wagers of the count room's shifts, and the dealers' errors."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import polars as pl

from models.contract import BET_SCHEMA, EVENT_SCHEMA, MONEY, ROUND_INPUT_COLUMNS, ROUND_SCHEMA
from models.metrics import count_attribution
from models.metrics.config import MartConfig
from models.metrics.count_room import coups_in_spans
from models.metrics.dealer_errors import dealer_errors, raw_field
from models.warehouse import schema, settlement, views

ROUND_COLUMNS = (
    "table_id", "shoe_id", "round_no", "started_at", "game", "decks", "dealer_id", "bank_holder", "outcome",
    "player_total", "banker_total", "banker_third", "natural", "player_pair", "banker_pair", "cards_used",
    "player_cards", "banker_cards", "player2_cards",
)  # fmt: skip
BET_COLUMNS = (
    "table_id", "shoe_id", "round_no", "game", "bet", "amount", "house_net", "commission", "theo", "player_id",
    "side",
)  # fmt: skip
KEY = ("table_id", "shoe_id", "round_no")
#: Player ids as categories, for the ratings (read from the files' dictionaries as they are scanned).
_CATEGORIES = (pl.col("player_id").cast(pl.Categorical),)


def core_rows(
    con, days: Sequence[dt.date] | None, config: MartConfig, tables: Sequence[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The core rows the marts of `days` need (all of them when `days` is None): the days' coups,
    and every coup of the shoes those coups belong to; of the `tables` only, when given (with `days`)."""
    shoes = con.sql(f"SELECT * FROM {schema.CORE_SHOES}").pl()
    if days is None:
        if tables is not None:
            raise ValueError("the marts of some tables are built a gaming day at a time: name the days")
        # every row: Polars reads the tables' files itself, several times faster than DuckDB hands them over
        rounds = views.scan(con, schema.CORE_ROUNDS).select(ROUND_COLUMNS).collect()
        bets = views.scan(con, schema.CORE_BETS).select(BET_COLUMNS).with_columns(*_CATEGORIES).collect()
        return rounds, bets, shoes
    spans = " OR ".join(
        f"(started_at >= '{start.isoformat()}' AND started_at < '{end.isoformat()}')"
        for start, end in (config.day.bounds(day, day) for day in days)
    )
    if tables is not None:  # a shard's tables only, filtered as the rows are read
        listed = ", ".join("'" + table.replace("'", "''") + "'" for table in tables)
        spans = f"({spans}) AND table_id IN ({listed})" if tables else "FALSE"
    # a time range reads only the row groups of those days (rows land in time order)
    day_shoes = con.sql(f"SELECT DISTINCT table_id, shoe_id FROM {schema.CORE_ROUNDS} WHERE {spans}").pl()
    con.register("day_shoes", day_shoes)
    try:
        rounds, bets = (
            con.sql(
                f"SELECT {', '.join(map(_quoted, columns))} FROM {table} SEMI JOIN day_shoes USING (table_id, shoe_id)"
            ).pl()
            for columns, table in ((ROUND_COLUMNS, schema.CORE_ROUNDS), (BET_COLUMNS, schema.CORE_BETS))
        )
    finally:
        con.unregister("day_shoes")
    return rounds, bets.with_columns(*_CATEGORIES), shoes.join(day_shoes, on=["table_id", "shoe_id"], how="semi")


#: How far around the days the table events are read: a shift's neighbours at its table bound its
#: coups when it lacks an opener or a closer, and a shift lasts hours, not a week.
_EVENTS_MARGIN = dt.timedelta(days=7)
EVENT_COLUMNS = ("table_id", "shift_id", "event_id", "event", "recorded_at", "amount", "denominations")
SHIFT_COUP_COLUMNS = ("table_id", "shoe_id", "round_no", "started_at", "game", "decks")
_NO_BETS = {
    **{c: BET_SCHEMA[c] for c in ("table_id", "shoe_id", "round_no", "amount")},
    "game": pl.String, "bet": pl.String, "house_net": MONEY, "theo": settlement.THEO,
}  # fmt: skip


def table_events(
    con, days: Sequence[dt.date] | None, config: MartConfig, tables: Sequence[str] | None = None
) -> pl.DataFrame:
    """core.table_events' rows around `days` (all when None), of `tables` (all when None); none
    where the warehouse has no such table (one of a release before the count room)."""
    name = schema.CORE_TABLE_EVENTS
    empty = pl.DataFrame(schema={column: EVENT_SCHEMA[column] for column in EVENT_COLUMNS})
    if not views.exists(con, name):
        return empty
    where = []
    if days is not None:
        spans = (config.day.bounds(day, day) for day in days)
        where.append(
            "("
            + " OR ".join(
                f"(recorded_at >= '{(start - _EVENTS_MARGIN).isoformat()}' "
                f"AND recorded_at < '{(end + _EVENTS_MARGIN).isoformat()}')"
                for start, end in spans
            )
            + ")"
        )
    if tables is not None:
        where.append(f"table_id IN ({_listed(tables)})" if tables else "FALSE")
    filtered = f" WHERE {' AND '.join(where)}" if where else ""
    events = con.sql(f"SELECT {', '.join(map(_quoted, EVENT_COLUMNS))} FROM {name}{filtered}").pl()
    return events.cast({column: empty.schema[column] for column in EVENT_COLUMNS})


def shift_coups(
    con, spans: pl.DataFrame, loaded: tuple[pl.DataFrame, pl.DataFrame] | None = None, covered=()
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The coups dealt within `spans` (table_id, since, until: `shift_spans`) and their wagers;
    taken from `loaded` (rounds and bets read already) when every span lies within one of the
    `covered` (start, end) instants, whose every coup `loaded` holds, else read from the warehouse."""
    if spans.height == 0:
        return pl.DataFrame(schema={c: ROUND_SCHEMA[c] for c in SHIFT_COUP_COLUMNS}), pl.DataFrame(schema=_NO_BETS)
    if loaded is not None and _within(spans, covered):
        rounds, bets = loaded
        coups = coups_in_spans(rounds.select(SHIFT_COUP_COLUMNS), spans)
        keys = coups.select("table_id", "shoe_id", "round_no")
        kept = bets.join(keys, on=list(keys.columns), how="semi").select(BET_COLUMNS)
        return coups, kept.with_columns(pl.col("player_id").cast(pl.String))
    # literal bounds too, so that only the row groups of the spans' times are read
    since = spans["since"].min()
    until = None if spans["until"].null_count() else spans["until"].max()
    near = f"r.started_at >= '{since.isoformat()}'" + (f" AND r.started_at < '{until.isoformat()}'" if until else "")
    con.register("shift_spans", spans)
    try:
        coups = con.sql(
            f"SELECT DISTINCT {', '.join('r.' + _quoted(c) for c in SHIFT_COUP_COLUMNS)} FROM {schema.CORE_ROUNDS} r "
            "JOIN shift_spans s ON r.table_id = s.table_id AND r.started_at >= s.since "
            f"AND (s.until IS NULL OR r.started_at < s.until) WHERE {near}"
        ).pl()
        con.register("shift_coups", coups.select("table_id", "shoe_id", "round_no"))
        bets = con.sql(
            f"SELECT {', '.join(map(_quoted, BET_COLUMNS))} FROM {schema.CORE_BETS} "
            "SEMI JOIN shift_coups USING (table_id, shoe_id, round_no)"
        ).pl()
    finally:
        con.unregister("shift_spans")
        con.unregister("shift_coups")
    return coups, bets


def _within(spans: pl.DataFrame, covered) -> bool:
    """Whether every span is closed and lies within one of the `covered` (start, end) instants."""
    if spans["until"].null_count() or not covered:
        return False
    inside = pl.lit(False)
    for start, end in covered:
        inside = inside | ((pl.col("since") >= start) & (pl.col("until") <= end))
    return bool(spans.select(inside.all()).item())


def dealer_errors_of(
    con, days: Sequence[dt.date] | None, config: MartConfig, tables: Sequence[str] | None = None
) -> pl.DataFrame:
    """The dealers' quarantined rows of `days` (all when None) at `tables` (all when None), for dealer pace."""
    bounds = None if days is None else [config.day.bounds(day, day) for day in days]
    return dealer_errors(con, bounds, tables, config.day)


def _listed(names: Sequence[str]) -> str:
    return ", ".join("'" + name.replace("'", "''") + "'" for name in names)


def _quoted(name: str) -> str:
    return f'"{name}"'


def quarantined_of_spans(con, spans: pl.DataFrame, config: MartConfig) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The quarantined coups and wagers of the tables of `spans` (`shift_spans`), for the count room."""
    if spans.height == 0:
        return None
    until = None if spans["until"].null_count() else spans["until"].max()
    return quarantined_rows(con, config, spans["table_id"].unique().to_list(), spans["since"].min(), until)


def quarantined_of_days(
    con, days: Sequence[dt.date], config: MartConfig, tables: Sequence[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The quarantined coups and wagers of gaming days `days` (with a day's margin: a coup's day is its
    shoe's), of `tables` (all when None), for the day marts' note of them."""
    if not days:
        return None
    since, _ = config.day.bounds(min(days), min(days))
    _, until = config.day.bounds(max(days), max(days))
    return quarantined_rows(con, config, tables, since - dt.timedelta(days=1), until + dt.timedelta(days=1))


def quarantined_rows(
    con,
    config: MartConfig,
    tables: Sequence[str] | None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The quarantined coups and wagers of `tables` (all when None) read back and priced
    (count_attribution's `read_coups` and `quarantined_wagers`); the accepted coups that price the
    quarantined bets read between `since` and `until` (open when None). None without a quarantine."""
    if not views.exists(con, schema.QUARANTINE_BETS):
        return None
    where = "TRUE" if tables is None else f"table_id IN ({_listed(tables)})" if tables else "FALSE"
    fields = ", ".join(f"{raw_field(name)} AS {_quoted(name)}" for name in ROUND_INPUT_COLUMNS if name not in KEY)
    raw_rounds = con.sql(
        f"SELECT reason, table_id, shoe_id, round_no, {fields} FROM {schema.QUARANTINE_ROUNDS} WHERE {where}"
    ).pl()
    coups = count_attribution.read_coups(raw_rounds.with_columns(pl.col("round_no").cast(pl.String)))
    bets = con.sql(
        f"SELECT table_id, shoe_id, round_no, reason, lower(trim({raw_field('bet')})) AS bet, "
        f"TRY_CAST({raw_field('side')} AS TINYINT) AS side, "
        f"TRY_CAST({raw_field('amount')} AS DECIMAL(18, 4)) AS amount, "
        f"TRY_CAST({raw_field('payout')} AS DECIMAL(18, 4)) AS payout FROM {schema.QUARANTINE_BETS} WHERE {where}"
    ).pl()
    near = ["TRUE"]
    if since is not None:
        near.append(f"started_at >= '{since.isoformat()}'")
    if until is not None:
        near.append(f"started_at < '{until.isoformat()}'")
    facts = ", ".join(map(_quoted, settlement.SETTLED_BY_COLUMNS))
    con.register("quarantined_bet_keys", bets.select(KEY).unique())
    try:
        accepted = con.sql(
            f"SELECT table_id, shoe_id, round_no, started_at, {facts} FROM {schema.CORE_ROUNDS} "
            f"SEMI JOIN quarantined_bet_keys USING (table_id, shoe_id, round_no) WHERE {' AND '.join(near)}"
        ).pl()
    finally:
        con.unregister("quarantined_bet_keys")
    accepted = accepted.with_columns(pl.col("started_at").dt.convert_time_zone("UTC"))
    return coups, count_attribution.quarantined_wagers(coups, bets, accepted, config.paytable)
