"""core.shoes: one row per shoe, rewritten by each ingest of rounds from the rows it adds.

A file's batches give their shoes' sums (`shoe_parts`), which pool exactly (`pool`): counts and
cards add, times take their extremes, and a shoe is reconciled by card only if every part was.
Shoes that had rows before the file are pooled with those rows, so nothing is read twice.
"""

from __future__ import annotations

import polars as pl

from models.logs.hands import HAND_COLUMNS
from models.warehouse import schema
from models.warehouse.columns import conform
from models.warehouse.staging import SHOE, with_shoe_key

HANDS = list(HAND_COLUMNS)
ROUND_COLUMNS = [*SHOE, "game", "decks", "started_at", "cards_used", "has_cards", *HANDS]


def shoe_parts(rounds: pl.DataFrame) -> pl.DataFrame:
    """Per shoe of `rounds` (rows as core.rounds stores them): the sums that pool across batches."""
    # Hands are stored in canonical tokens of one or two characters, one space apart: every card
    # has a suit when the hands' lengths, each with one for a space, add up to three a card; and
    # the character 0 is in no token but the lone 0 of a point value without a rank.
    spaced = pl.sum_horizontal((pl.col(hand).str.len_bytes() + 1).fill_null(0) for hand in HANDS)
    cards = pl.col("has_cards")
    value_only = pl.any_horizontal(pl.col(hand).str.contains("0", literal=True).fill_null(False) for hand in HANDS)
    rounds = with_shoe_key(rounds).with_columns(_value_only=value_only)
    return rounds.group_by("_shoe").agg(
        *(pl.col(name).first() for name in SHOE),
        pl.col("game").first(),
        pl.col("decks").max(),
        rounds=pl.len(),
        first_started_at=pl.col("started_at").min(),
        last_started_at=pl.col("started_at").max(),
        cards_seen=pl.col("cards_used").sum(),
        with_cards=cards.sum(),
        suited=(spaced == 3 * pl.col("cards_used")).filter(cards).all(),
        ranked=pl.col("_value_only").not_().filter(cards).all(),
    ).drop("_shoe")  # fmt: skip


def pool(parts: pl.DataFrame, overdrawn: pl.DataFrame) -> pl.DataFrame:
    """core.shoes rows from any number of parts a shoe, and the shoes' overdrawn rounds
    (`table_id`, `shoe_id`, `round_no` of rows quarantined as `shoe_overdrawn`)."""
    overdrawn = overdrawn.group_by(SHOE).agg(overdrawn_rows=pl.col("round_no").n_unique())
    with_cards = pl.col("with_cards") > 0
    return (
        parts.group_by(SHOE, maintain_order=True)
        .agg(
            pl.col("game").first(),
            pl.col("decks").max(),
            pl.col("rounds").sum(),
            pl.col("first_started_at").min(),
            pl.col("last_started_at").max(),
            pl.col("cards_seen").sum(),
            pl.col("with_cards").sum(),
            pl.col("suited").all(),
            pl.col("ranked").all(),
        )
        .join(overdrawn, on=SHOE, how="left")
        .select(
            *SHOE,
            "game",
            "decks",
            "rounds",
            "first_started_at",
            "last_started_at",
            "cards_seen",
            reconciled_by=pl.when(~with_cards).then(pl.lit("none"))
            .when(pl.col("suited")).then(pl.lit("card"))
            .when(pl.col("ranked")).then(pl.lit("rank"))
            .otherwise(pl.lit("value")),
            overdrawn_rows=pl.col("overdrawn_rows").fill_null(0),
            reconciliation=pl.when(~with_cards).then(pl.lit("no cards"))
            .when(pl.col("overdrawn_rows") > 0).then(pl.lit("overdrawn"))
            .otherwise(pl.lit("reconciled")),
        )
    )  # fmt: skip


def refreshed(
    con, parts: list[pl.DataFrame], overdrawn: list[pl.DataFrame], in_table: pl.DataFrame
) -> pl.DataFrame | None:
    """core.shoes whole with the shoes a file touched made current (None for a file without rows),
    read before the file's own rows are committed: pooled from its batches' parts and overdrawn
    rounds (one frame of each a batch), and for shoes with rows before the file (`in_table`), from
    those rows too."""
    if not parts:
        return None
    parts, overdrawn = pl.concat(parts, how="vertical_relaxed"), pl.concat(overdrawn, how="vertical_relaxed")
    touched = pl.concat([parts.select(SHOE), overdrawn.select(SHOE)]).unique()
    earlier = touched.join(in_table, on=SHOE, how="semi")
    if earlier.height:
        stored, stored_overdrawn = _earlier_rows(con, earlier)
        parts = pl.concat([parts, shoe_parts(stored)], how="vertical_relaxed")
        overdrawn = pl.concat([overdrawn, stored_overdrawn], how="vertical_relaxed")
    kept = con.sql(f"SELECT * FROM {schema.CORE_SHOES}").pl().join(touched, on=SHOE, how="anti")
    return pl.concat([conform(schema.CORE_SHOES, kept), conform(schema.CORE_SHOES, pool(parts, overdrawn))])


def _earlier_rows(con, shoes: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The stored rounds of `shoes`, and their rounds quarantined as overdrawn."""
    con.register("earlier_shoes", shoes)
    try:
        rounds = con.sql(
            f"SELECT {', '.join(ROUND_COLUMNS)} FROM {schema.CORE_ROUNDS} "
            "SEMI JOIN earlier_shoes USING (table_id, shoe_id)"
        ).pl()
        overdrawn = con.sql(
            f"SELECT table_id, shoe_id, round_no FROM {schema.QUARANTINE_ROUNDS} "
            "SEMI JOIN earlier_shoes USING (table_id, shoe_id) WHERE reason = 'shoe_overdrawn'"
        ).pl()
    finally:
        con.unregister("earlier_shoes")
    return rounds.with_columns(pl.col("started_at").dt.convert_time_zone("UTC")), overdrawn  # DuckDB's is Etc/UTC
