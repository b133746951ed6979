"""Shoe reconciliation of new rounds against what each shoe holds, counting its stored rounds first."""

from __future__ import annotations

import numpy as np
import polars as pl

from models.game.cards import RANKS, SUITS
from models.logs import hands
from models.logs.reconcile import BY_CARD, BY_RANK, BY_VALUE, GRANULARITY, overdrawn_rows, shoes_over_limits
from models.warehouse import schema
from models.warehouse.staging import SHOE, StoredShoes, with_shoe_key

HANDS = tuple((prefix, hand) for hand, prefix in hands.SLOT_PREFIX.items())
STORED_COLUMNS = [
    "table_id",
    "shoe_id",
    "round_no",
    "decks",
    "player_cards",
    "banker_cards",
    "player2_cards",
    "has_cards",
]
SLOTS = len(HANDS) * hands.MAX_CARDS


def _card_codes(frame: pl.DataFrame) -> pl.DataFrame:
    """Per row: `_granularity` of its shoe (card when every card there has a suit, rank when every
    card has a rank, else value) and `_c0`.. `_c8`, each card's code at that granularity (-1: none)."""
    slots = [(f"{p}{i}_value", f"{p}{i}_rank", f"{p}{i}_suit") for p, _ in HANDS for i in range(hands.MAX_CARDS)]
    suited = pl.all_horizontal(pl.col(value).is_null() | pl.col(suit).is_not_null() for value, _, suit in slots)
    ranked = pl.all_horizontal(pl.col(value).is_null() | pl.col(rank).is_not_null() for value, rank, _ in slots)
    frame = frame.with_columns(
        _granularity=pl.when(suited.all().over(SHOE))
        .then(BY_CARD)
        .when(ranked.all().over(SHOE))
        .then(BY_RANK)
        .otherwise(BY_VALUE)
    )
    by = pl.col("_granularity")
    return frame.with_columns(
        pl.when(by == BY_CARD)
        .then(pl.col(rank).cast(pl.Int16) * 4 + pl.col(suit).cast(pl.Int16))
        .when(by == BY_RANK)
        .then(pl.col(rank).cast(pl.Int16))
        .otherwise(pl.col(value).cast(pl.Int16))
        .fill_null(-1)
        .alias(f"_c{j}")
        for j, (value, rank, suit) in enumerate(slots)
    )


def _shoes_that_may_overdraw(both: pl.DataFrame) -> pl.DataFrame:
    """The rows of `both` (with `_shoe`) whose shoe holds, over all its rows, more of some card
    than it can: only there can a row overdraw in round order."""
    # one slot a row of the array (column-major frame, transposed): cheaper than stacking the columns
    slots = both.select(pl.col(hands.SLOT_COLUMNS).fill_null(-1).cast(pl.Int8))
    cards = slots.to_numpy(order="fortran").T
    keys = both["_shoe"].to_numpy().view(np.int64)
    over = shoes_over_limits(keys, cards, both["decks"].to_numpy().astype(np.int64))
    return both.join(pl.DataFrame({"_shoe": over.view(np.uint64)}), on="_shoe", how="semi")


def _first_overdraws(coded: pl.DataFrame) -> np.ndarray:
    """For coded rows sorted by shoe, then in the order the cards came out: the first code each row
    takes past what its shoe holds, or -1."""
    return overdrawn_rows(
        coded["_shoe"].to_numpy().view(np.int64),
        coded.select(f"_c{j}" for j in range(SLOTS)).to_numpy().astype(np.int64),
        coded["_granularity"].to_numpy().astype(np.int64),
        coded["decks"].to_numpy().astype(np.int64),
    )


def _parse_stored(frame: pl.DataFrame) -> pl.DataFrame:
    """Stored rows with their cards in the slot columns, read by the hand parser."""
    parsed = frame.with_columns(**{name: hands.tokens(name) for _, name in HANDS})
    return parsed.with_columns(
        *(
            expr
            for prefix, name in HANDS
            for i in range(hands.MAX_CARDS)
            for expr in hands.card_at(pl.col(name), i, prefix)
        )
    )


def _code_label(granularity: int, code: int) -> str:
    """A reconciliation code as people write it: KH (card), K (rank) or 0 (value)."""
    if granularity == BY_CARD:
        return RANKS[code // 4] + SUITS[code % 4]
    return RANKS[code] if granularity == BY_RANK else str(code)


def reconcile(con, rows: pl.DataFrame, stored_shoes: StoredShoes) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(accepted, overdrawn) for new rows with cards, counting the shoes' stored rows first."""
    with_cards = rows if rows["has_cards"].all() else rows.filter(pl.col("has_cards"))
    if with_cards.height == 0:
        return rows, rows.head(0)
    with_cards = with_shoe_key(with_cards)
    columns = ["table_id", "shoe_id", "round_no", "decks", "_new", "_line", "_shoe", *hands.SLOT_COLUMNS]
    both = with_cards.select(*columns[:4], pl.lit(True).alias("_new"), *columns[5:])
    shoes = stored_shoes.known(with_cards.select(*SHOE, "_shoe"))
    if shoes.height:  # shoes with stored rows: those are counted first (the usual batch has none)
        stored = stored_shoes.rows(con, shoes, STORED_COLUMNS).filter(pl.col("has_cards")).drop("has_cards")
        stored = with_shoe_key(_parse_stored(stored)).with_columns(_new=pl.lit(False), _line=pl.lit(0, pl.Int64))
        both = pl.concat([stored.select(columns), both], how="vertical_relaxed")
    both = _shoes_that_may_overdraw(both)
    if both.height == 0:  # the usual case: no shoe holds more of any card than it can
        return rows, rows.head(0)
    both = _card_codes(both)
    both = both.sort("_shoe", "_new", "round_no", "_line")
    verdict = both.with_columns(_over=pl.Series(_first_overdraws(both)), _g="_granularity").filter(
        pl.col("_new") & (pl.col("_over") >= 0)
    )
    verdict = verdict.with_columns(
        detail=pl.format(
            "{} {} seen more often than a {}-deck shoe holds",
            pl.col("_g").replace_strict(dict(enumerate(GRANULARITY)), return_dtype=pl.String),
            pl.struct("_g", "_over").map_elements(
                lambda case: _code_label(case["_g"], case["_over"]), return_dtype=pl.String
            ),
            pl.col("decks"),
        ),
        reason=pl.lit("shoe_overdrawn"),
    ).select("_line", "reason", "detail")
    overdrawn = rows.drop("reason", "detail").join(verdict, on="_line")
    return rows.join(verdict.select("_line"), on="_line", how="anti"), overdrawn


def overdrawn_stored(con, shoes: pl.DataFrame) -> pl.DataFrame:
    """Audit of stored rows: the accepted coups of `shoes` (table_id, shoe_id) that take a card, rank
    or value past what their shoe holds. Ingest quarantines such rows, so this is empty when sound."""
    con.register("audited_shoes", shoes.select(SHOE).unique())
    stored = con.sql(
        "SELECT table_id, shoe_id, round_no, decks, player_cards, banker_cards, player2_cards "
        f"FROM {schema.CORE_ROUNDS} SEMI JOIN audited_shoes USING (table_id, shoe_id) WHERE has_cards"
    ).pl()
    con.unregister("audited_shoes")
    if stored.height == 0:
        return stored.select(*SHOE, "round_no", "decks")
    coded = _shoes_that_may_overdraw(with_shoe_key(_parse_stored(stored)))
    coded = _card_codes(coded).sort("_shoe", "round_no")
    return coded.filter(pl.Series(_first_overdraws(coded) >= 0)).select(*SHOE, "round_no", "decks")
