"""Hands as logged, read in bulk: the vectorised twin of `models.game.cards.parse_hand`.

Tokens are normalised (upper case, `10` as `T`), checked against the three notations of docs/round-log-format.md
(rank and suit, rank alone, point value alone) and decoded into point values, rank codes and card
codes. Tests hold this module to `parse_card` on every token.
"""

from __future__ import annotations

import polars as pl

from models.game.cards import RANK_CODES, SUITS

VALID_TOKEN = r"^([A2-9TJQK][CDHS]?|[01])$"
#: First character -> point value.
VALUES = {**{symbol: code if code < 10 else 0 for symbol, code in RANK_CODES.items()}, "0": 0, "1": 1}
#: First character -> rank index 0..12 (A..K); a value-only 0 has none.
RANK_INDEX = {**{symbol: code - 1 for symbol, code in RANK_CODES.items()}, "1": 0}
SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
MAX_CARDS = 3
#: The hand columns of a round log, and the prefix of each one's card slots.
HAND_COLUMNS = ("player_cards", "banker_cards", "player2_cards")
SLOT_PREFIX = dict(zip(HAND_COLUMNS, "pbq", strict=True))
#: A round's cards as checked: value, rank and suit of each slot of each hand.
SLOT_COLUMNS = [
    f"{prefix}{i}_{part}"
    for prefix in SLOT_PREFIX.values()
    for i in range(MAX_CARDS)
    for part in ("value", "rank", "suit")
]


def tokens(column: str) -> pl.Expr:
    """The hand's tokens, normalised; null when the field is empty."""
    text = pl.col(column).str.to_uppercase().str.replace_all(",", " ").str.strip_chars()
    return (
        pl.when(text.str.len_chars() > 0)
        .then(
            text.str.replace_all(r"\b10([CDHS]?)\b", "T$1")
            .str.split(" ")
            .list.eval(pl.element().filter(pl.element() != ""))
        )
        .alias(column)
    )


def bad_token(hand: pl.Expr) -> pl.Expr:
    """The first token that is no card in any notation, or null."""
    return hand.list.eval(pl.element().filter(~pl.element().str.contains(VALID_TOKEN))).list.first()


def card_at(hand: pl.Expr, i: int, prefix: str) -> list[pl.Expr]:
    """Point value, rank index, suit index of the i-th card (nulls where absent or unknown)."""
    token = hand.list.get(i, null_on_oob=True)
    first, suit = token.str.slice(0, 1), token.str.slice(1, 1)
    return [
        first.replace_strict(VALUES, default=None, return_dtype=pl.Int8).alias(f"{prefix}{i}_value"),
        first.replace_strict(RANK_INDEX, default=None, return_dtype=pl.Int8).alias(f"{prefix}{i}_rank"),
        suit.replace_strict(SUIT_INDEX, default=None, return_dtype=pl.Int8).alias(f"{prefix}{i}_suit"),
    ]


def canonical(hand: pl.Expr) -> pl.Expr:
    """The hand as text in canonical tokens (`TD`, `K`, `0`), space separated."""
    return hand.list.join(" ")


def _read(distinct: pl.DataFrame) -> pl.DataFrame:
    """The reading of each distinct hand in `hand`, in neutral column names (see `decode`)."""
    hand = pl.col("_tokens")
    return (
        distinct.with_columns(tokens("hand").alias("_tokens"))
        .with_columns(
            *(expr for i in range(MAX_CARDS) for expr in card_at(hand, i, "c")),
            hand.list.len().alias("count"),
            canonical(hand).alias("text"),
            bad_token(hand).alias("bad"),
        )
        .drop("_tokens")
    )


class _Readings:
    """Hands already read in this process, kept so that each distinct hand is parsed only once: a
    shoe's hands recur across batches and files (a few hundred thousand exist in any notation).
    Held to `LIMIT` hands, a cache and nothing more: every entry is `_read`'s own result."""

    LIMIT = 600_000

    def __init__(self) -> None:
        # filled at first use, not at import: a process forked after a Polars query has run (a
        # Celery worker's pool) hangs at its own first one
        self.frame: pl.DataFrame | None = None

    def of(self, hands: pl.Series) -> pl.DataFrame:
        """The readings of `hands` (and of others read before). Safe from several threads: each
        call returns the frame it completed, whatever another call stores meanwhile."""
        frame = self.frame
        if frame is None:
            frame = _read(pl.DataFrame({"hand": []}, schema={"hand": pl.String}))
        new = hands.to_frame("hand").join(frame.select("hand"), on="hand", how="anti")
        new = new.select(pl.col("hand").unique()).drop_nulls()
        if new.height:
            if frame.height + new.height > self.LIMIT:
                frame = frame.head(0)
            frame = self.frame = pl.concat([frame, _read(new)])
        return frame


_READINGS = _Readings()


def decode(frame: pl.DataFrame, source: str, prefix: str, count: str, text: str) -> pl.DataFrame:
    """Join each row's hand in `source` with its reading, decoding every distinct hand once.

    Adds `{prefix}{i}_value/_rank/_suit` for i < 3, `count` (cards in the hand), `text` (the hand in
    canonical tokens) and `_{text}_bad` (the first token that is no card), all null without a hand.
    """
    if frame.schema[source] != pl.String:
        frame = frame.with_columns(pl.col(source).cast(pl.String))
    names = {f"c{i}_{part}": f"{prefix}{i}_{part}" for i in range(MAX_CARDS) for part in ("value", "rank", "suit")}
    readings = _READINGS.of(frame[source]).rename(
        {"hand": source, **names, "count": count, "text": text, "bad": f"_{text}_bad"}
    )
    return frame.join(readings, on=source, how="left", nulls_equal=False)
