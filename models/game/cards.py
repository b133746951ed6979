"""Card notation (rank+suit, rank alone, point value alone), point values and hand totals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "CDHS"
#: Rank codes are 1 (ace) .. 13 (king); ten-value cards are 10..13.
RANK_CODES = {symbol: code for code, symbol in enumerate(RANKS, start=1)}


class CardError(ValueError):
    """A card token or hand that cannot be read; the message names the bad token."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card as precisely as its source knew it.

    ``rank`` is None only for a value-only ten-value card (token ``0``): the source could not tell
    a ten from a king. ``suit`` is None when the source logs no suits.
    """

    value: int
    rank: int | None = None
    suit: str | None = None

    @classmethod
    def of(cls, rank: int, suit: str | None = None) -> Card:
        return cls(value=rank_value(rank), rank=rank, suit=suit)

    def __str__(self) -> str:
        return format_card(self)


def rank_value(rank: int) -> int:
    """Baccarat point value of a rank code: ace 1, 2..9 face value, ten and faces 0."""
    return rank if rank < 10 else 0


def parse_card(token: str) -> Card:
    """Read one token: ``9H``/``TD``/``10s`` (rank and suit), ``9``/``K`` (rank), ``0``..``9`` (value)."""
    text = token.strip().upper()
    if not text:
        raise CardError("empty card token")
    suit = None
    if text[-1] in SUITS and len(text) > 1:
        text, suit = text[:-1], text[-1]
    if text == "10":
        text = "T"
    if text in RANK_CODES:
        return Card.of(RANK_CODES[text], suit)
    if suit is None and text in ("0", "1"):
        # value-only tokens: 0 is any ten-value card, 1 is an ace
        return Card(value=0) if text == "0" else Card.of(1)
    if suit is None and text[:-1].replace("10", "T") in RANK_CODES:
        raise CardError(f"bad card token {token!r}: suit must be one of C D H S")
    raise CardError(f"bad card token {token!r}: rank must be one of A 2-9 T/10 J Q K")


def format_card(card: Card) -> str:
    """The canonical token: ``TD`` with a suit, ``T`` with a rank alone, ``0`` for a value alone."""
    if card.rank is None:
        return str(card.value)
    return RANKS[card.rank - 1] + (card.suit or "")


def parse_hand(text: str | None) -> tuple[Card, ...]:
    """A hand as logged: its tokens in dealing order, separated by spaces (commas tolerated)."""
    if text is None:
        return ()
    return tuple(parse_card(token) for token in text.replace(",", " ").split())


def format_hand(cards: Iterable[Card]) -> str:
    return " ".join(format_card(card) for card in cards)


def hand_total(values: Iterable[int]) -> int:
    """A hand's total: the sum of its point values, modulo 10."""
    return sum(values) % 10


def is_pair(cards: Sequence[Card]) -> bool | None:
    """Whether the first two cards share a rank; None when the source does not say the ranks."""
    first, second = cards[0], cards[1]
    if first.value != second.value:
        return False
    if first.rank is None or second.rank is None:
        return None
    return first.rank == second.rank
