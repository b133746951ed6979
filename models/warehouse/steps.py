"""The rounds, bets and events steps: what becomes of one checked batch of a file.

Each reads as its stages: the rows that failed a check apart, duplicates split off by natural key,
then the rounds reconciled against their shoes (the bets settled against their rounds, the events
held to their shifts' rule), and the accepted and quarantined rows staged as data files of their tables.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from models.contract import BET_INPUT_COLUMNS, DETAIL_LENGTH, EVENT_INPUT_COLUMNS, EVENT_KEY, NATURAL_KEY
from models.game.paytable import PayTable
from models.logs.columns import RESERVED
from models.logs.read import describe
from models.warehouse import schema, settlement, shoes
from models.warehouse.columns import frame_schema
from models.warehouse.duplicates import split_duplicates
from models.warehouse.readahead import Batch
from models.warehouse.reconciliation import reconcile
from models.warehouse.shifts import accepted_marks, check_shifts
from models.warehouse.staging import EVENT_GROUP, SHOE, Stage, StoredShoes, with_shoe_key

KEY = list(NATURAL_KEY)
#: The columns every stored row carries of where it came from (`FileContext.provenance`).
PROVENANCE = ("source_file", "line_no", "ingested_at")
BET_KEY = [*KEY, "seat", "bet", "side"]
ROUND_CONTENT = [
    *KEY, "started_at", "player_cards", "banker_cards", "player2_cards", "game", "decks", "dealer_id",
    "bank_holder", "logged_outcome",
]  # fmt: skip
BET_CONTENT = [*BET_KEY, "amount", "payout", "player_id"]
#: A checked bet's own columns (its `_` working columns besides).
BET_COLUMNS = frozenset({*BET_INPUT_COLUMNS, "reason", "detail"})
#: An event's content, compared when its key (table_id, event_id) is met again.
EVENT_CONTENT = [
    *EVENT_KEY, "shift_id", "event", "recorded_at", "amount", "denominations", "player_id", "employee_id",
]  # fmt: skip
EVENT_COLUMNS = frozenset({*EVENT_INPUT_COLUMNS, "reason", "detail"})
QUARANTINE_OF = {
    schema.CORE_ROUNDS: schema.QUARANTINE_ROUNDS,
    schema.CORE_BETS: schema.QUARANTINE_BETS,
    schema.CORE_TABLE_EVENTS: schema.QUARANTINE_TABLE_EVENTS,
}
#: The stored rounds' columns the bets in `bet_keys` are settled by (`settlement.SETTLED_BY_COLUMNS`).
ROUNDS_OF_BETS = (
    f"SELECT {', '.join(f'r.{name}' for name in (*KEY, *settlement.SETTLED_BY_COLUMNS))} "
    f"FROM {schema.CORE_ROUNDS} r SEMI JOIN bet_keys USING (table_id, shoe_id, round_no)"
)


@dataclass
class Counts:
    """What became of a file's rows so far."""

    rows_read: int = 0
    accepted: int = 0
    duplicates: int = 0
    quarantined: Counter = field(default_factory=Counter)


@dataclass
class FileContext:
    """Everything one file's steps need: where it came from, the warehouse as it was before the
    file (`con`, read through views), the shoes already stored, and the file's stage."""

    con: object  # a DuckDB connection whose views show the warehouse's last commit
    source: str  # the path as given, in every row's source_file
    started: dt.datetime  # the file's ingested_at
    paytable: PayTable
    stored: StoredShoes
    stage: Stage
    counts: Counts = field(default_factory=Counts)
    shoe_parts: list[pl.DataFrame] = field(default_factory=list)  # each batch's shoe sums
    overdrawn: list[pl.DataFrame] = field(default_factory=list)
    marks: list[pl.DataFrame] = field(default_factory=list)  # the openers and closers accepted so far

    def provenance(self, rows: pl.DataFrame) -> pl.DataFrame:
        started = pl.lit(self.started)
        return rows.with_columns(source_file=pl.lit(self.source), line_no=pl.col("_line"), ingested_at=started)


def rounds_step(ctx: FileContext, batch: Batch) -> None:
    """Check, split duplicates, reconcile against the shoes, stage."""
    bad, good = _split(batch.checked)
    new, duplicates, conflicts = split_duplicates(ctx.con, with_shoe_key(good), ctx.stored, KEY, ROUND_CONTENT)
    accepted, overdrawn = reconcile(ctx.con, new, ctx.stored)
    ctx.shoe_parts.append(shoes.shoe_parts(accepted))
    ctx.overdrawn.append(overdrawn.select(*SHOE, "round_no"))
    _stage(ctx, batch, ctx.provenance(accepted), [bad, conflicts, overdrawn], duplicates)


def bets_step(ctx: FileContext, batch: Batch) -> None:
    """Check, split duplicates, settle against the rounds, stage."""
    # The bet's own columns only: an extra input column named like one joined in below (`game`,
    # `net_unit`, ...) must not stand in for it. Extra columns stay in a quarantined row's `raw`.
    columns = batch.checked.columns
    own = batch.checked.select(name for name in columns if name in BET_COLUMNS or name.startswith(RESERVED))
    bad, good = _split(own)
    new, duplicates, conflicts = split_duplicates(ctx.con, with_shoe_key(good), ctx.stored, BET_KEY, BET_CONTENT)
    joined = new.join(_rounds_of(ctx.con, new), on=KEY, how="left")
    orphans = joined.filter(pl.col("game").is_null()).with_columns(
        reason=pl.lit("orphan_bet"),
        detail=pl.format("no accepted round {} / {} / {}", pl.col("table_id"), pl.col("shoe_id"), pl.col("round_no")),
    )
    accepted, mismatched = settlement.settle(joined.filter(pl.col("game").is_not_null()), ctx.paytable)
    _stage(ctx, batch, ctx.provenance(accepted), [bad, conflicts, orphans, mismatched], duplicates)


def events_step(ctx: FileContext, batch: Batch) -> None:
    """Check, split duplicates, hold to the shifts' rule, stage. Events need no rounds."""
    columns = batch.checked.columns
    own = batch.checked.select(name for name in columns if name in EVENT_COLUMNS or name.startswith(RESERVED))
    bad, good = _split(own)
    keyed = with_shoe_key(good, EVENT_GROUP)
    new, duplicates, conflicts = split_duplicates(ctx.con, keyed, ctx.stored, list(EVENT_KEY), EVENT_CONTENT)
    accepted, clashing = check_shifts(ctx.con, new, ctx.marks, ctx.source)
    accepted = ctx.provenance(accepted)
    ctx.marks.append(accepted_marks(accepted))
    _stage(ctx, batch, accepted, [bad, conflicts, clashing], duplicates)


def _rounds_of(con, bets: pl.DataFrame) -> pl.DataFrame:
    """The stored rounds' facts the bets are settled by."""
    con.register("bet_keys", bets.select(KEY).unique())
    try:
        return con.sql(ROUNDS_OF_BETS).pl().select(*KEY, *settlement.SETTLED_BY)
    finally:
        con.unregister("bet_keys")


def _split(checked: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rows that failed a check, rows that passed)."""
    if checked["reason"].null_count() == checked.height:
        return checked.head(0), checked
    return checked.filter(pl.col("reason").is_not_null()), checked.filter(pl.col("reason").is_null())


def _stage(ctx: FileContext, batch: Batch, accepted: pl.DataFrame, rejected: list[pl.DataFrame], duplicates: int):
    """Stage a batch's accepted rows and its quarantined ones (with the row as read), and count them."""
    quarantined = _with_raw(pl.concat(rejected, how="diagonal_relaxed"), batch.rows, ctx.source)
    _quarantine(ctx, QUARANTINE_OF[ctx.stored.table], quarantined)
    staged = ctx.stage.write(ctx.stored.table, accepted)
    if staged:
        ctx.stored.add(staged, accepted)
    ctx.counts.rows_read += batch.rows.height
    ctx.counts.accepted += accepted.height
    ctx.counts.duplicates += duplicates
    ctx.counts.quarantined.update(dict(quarantined["reason"].value_counts().iter_rows()))


def _with_raw(quarantined: pl.DataFrame, batch: pl.DataFrame, source: str) -> pl.DataFrame:
    """Quarantined rows with `raw`: the row exactly as read, as JSON text (or a broken JSON line).
    A CSV file's nulls were empty fields, and show as such."""
    if quarantined.height == 0:
        return quarantined.with_columns(raw=pl.lit(None, pl.String))
    columns = [name for name in batch.columns if not name.startswith("_")]
    rows = batch.join(quarantined.select("_line"), on="_line", how="semi")
    as_read = [pl.col(name).cast(pl.String) for name in columns]
    if describe(Path(source))[0] == "csv":
        as_read = [column.fill_null("") for column in as_read]
    text = pl.struct(as_read).struct.json_encode() if columns else None
    if "_unparsed" in rows.columns:
        text = pl.col("_unparsed") if text is None else pl.coalesce(pl.col("_unparsed"), text)
    return quarantined.join(rows.select("_line", raw=text), on="_line", how="left")


def excerpt(detail: pl.Expr) -> pl.Expr:
    """A detail past DETAIL_LENGTH characters (one quoting a 100,000-character value) cut there,
    marked an excerpt with its full length; `raw` keeps the row whole."""
    length = detail.str.len_chars()
    cut = pl.format("{}… (an excerpt: the detail runs to {} characters)", detail.str.slice(0, DETAIL_LENGTH), length)
    return pl.when(length > DETAIL_LENGTH).then(cut).otherwise(detail).alias("detail")


def _quarantine(ctx: FileContext, table: str, frame: pl.DataFrame) -> None:
    """The rows in the quarantine table's columns: the key's as far as the row gives them."""
    if frame.height == 0:
        return
    types = frame_schema(table)
    keys = [name for name in types if name not in ("raw", "reason", "detail", *PROVENANCE)]
    frame = frame.with_columns(pl.lit(None, pl.String).alias(c) for c in keys if c not in frame.columns)
    rows = frame.select(
        "raw",
        "reason",
        excerpt(pl.col("detail")),
        *(pl.col(name).cast(types[name], strict=False) for name in keys),
        "_line",
    )
    ctx.stage.write(table, ctx.provenance(rows))
