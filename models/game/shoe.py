"""What a shoe holds: its composition by point value and, where known, by rank."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from models.game.cards import RANKS, Card, rank_value

MAX_DECKS = 8
#: The fewest cards from which any coup can be dealt to the end.
MIN_CARDS_FOR_A_COUP = 6


class CompositionError(ValueError):
    """A shoe composition that cannot exist (too many cards removed, bad deck count)."""


def _check_decks(decks: int) -> int:
    if not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
        raise CompositionError(f"decks must be a whole number from 1 to {MAX_DECKS}, got {decks}")
    return decks


@dataclass(frozen=True)
class Composition:
    """The cards in a shoe: counts by point value 0..9, and by rank A..K when every rank is known."""

    values: tuple[int, ...]
    ranks: tuple[int, ...] | None

    @classmethod
    def full(cls, decks: int) -> Composition:
        """A freshly shuffled shoe of `decks` 52-card packs."""
        per_rank = 4 * _check_decks(decks)
        ranks = (per_rank,) * len(RANKS)
        return cls(values=_values_of(ranks), ranks=ranks)

    @classmethod
    def after(cls, decks: int, seen: Iterable[Card]) -> Composition:
        """A full shoe of `decks` packs once `seen` were dealt from it; a suited card seen more often
        than the packs hold it cannot have been."""
        seen = list(seen)
        suited = Counter(card for card in seen if card.suit is not None)
        for card, count in suited.items():
            if count > _check_decks(decks):
                raise CompositionError(f"{card} seen {count} times, but a {decks}-deck shoe holds {decks}")
        return cls.full(decks).remove(seen)

    @classmethod
    def from_values(cls, values: Iterable[int]) -> Composition:
        """A composition known only by point value (ranks unknown)."""
        counts = tuple(int(count) for count in values)
        if len(counts) != 10 or min(counts) < 0:
            raise CompositionError("a composition needs ten non-negative counts, one per value 0..9")
        return cls(values=counts, ranks=None)

    @property
    def cards(self) -> int:
        return sum(self.values)

    def remove(self, seen: Iterable[Card]) -> Composition:
        """The cards left after `seen` were dealt; ranks are forgotten if a seen card had none."""
        values, ranks = list(self.values), list(self.ranks) if self.ranks else None
        for card in seen:
            if ranks is not None and card.rank is None:
                ranks = None
            elif ranks is not None:
                ranks[card.rank - 1] -= 1
                if ranks[card.rank - 1] < 0:
                    raise CompositionError(f"the shoe has no {RANKS[card.rank - 1]} left to deal")
            values[card.value] -= 1
            if values[card.value] < 0:
                raise CompositionError(f"the shoe has no card of value {card.value} left to deal")
        return Composition(values=tuple(values), ranks=tuple(ranks) if ranks else None)


def _values_of(ranks: tuple[int, ...]) -> tuple[int, ...]:
    values = [0] * 10
    for rank, count in enumerate(ranks, start=1):
        values[rank_value(rank)] += count
    return tuple(values)
