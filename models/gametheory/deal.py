"""How likely each deal is: ordered card values from a shoe, with replacement or without.

The one place the game-theory room counts cards. A `Shoe` holds counts by point value 0..9;
`sequence_weights(shoe, k)` gives every ordered k-card sequence's probability as an integer
numerator over `denominator(shoe, k)` (N**k with replacement, N(N-1)...(N-k+1) without), so sums
of them stay exact in int64 arrays and become `Fraction`s only at the end.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from math import prod

import numpy as np

from models.game.shoe import Composition

VALUES = range(10)
#: Exact int64 sums need every denominator below this.
_INT64_LIMIT = 2**63


@dataclass(frozen=True)
class Shoe:
    """Cards by point value 0..9; `replace` deals each card back (an endless shoe of these proportions)."""

    counts: tuple[int, ...]
    replace: bool = False

    @classmethod
    def decks(cls, decks: int | None) -> Shoe:
        """A full shoe of `decks` 52-card packs dealt without replacement; None for an endless one
        (one pack's proportions, with replacement)."""
        if decks is None:
            return cls(counts=Composition.full(1).values, replace=True)
        return cls(counts=Composition.full(decks).values, replace=False)

    @classmethod
    def of(cls, composition: Composition) -> Shoe:
        """What is left in a part-dealt shoe, dealt without replacement."""
        return cls(counts=tuple(composition.values), replace=False)

    @property
    def cards(self) -> int:
        return sum(self.counts)


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1)."""
    return prod(range(n - k + 1, n + 1))


def denominator(shoe: Shoe, k: int) -> int:
    """What every k-card sequence weight is over."""
    return shoe.cards**k if shoe.replace else falling(shoe.cards, k)


def sequence_weights(shoe: Shoe, k: int) -> np.ndarray:
    """Shape (10,)*k int64: weight[v1, ..., vk] / denominator(shoe, k) is the probability that the
    next k cards have values v1..vk in that order."""
    if denominator(shoe, k) >= _INT64_LIMIT:
        raise ValueError(f"a {shoe.cards}-card shoe is too large for exact {k}-card weights")
    counts = np.asarray(shoe.counts, dtype=np.int64)
    index = np.indices((10,) * k, dtype=np.int64)
    weights = np.ones((10,) * k, dtype=np.int64)
    for position in range(k):
        left = counts[index[position]]
        if not shoe.replace:  # earlier cards of the same value are no longer in the shoe
            left = left - sum((index[earlier] == index[position]).astype(np.int64) for earlier in range(position))
        weights *= np.maximum(left, 0)
    return weights


def probability(shoe: Shoe, values: tuple[int, ...]) -> Fraction:
    """The exact probability that the next cards have `values`, in that order."""
    left, weight = list(shoe.counts), 1
    for value in values:
        weight *= left[value]
        if not shoe.replace:
            left[value] = max(left[value] - 1, 0)
    return Fraction(weight, denominator(shoe, len(values)))


def two_card_hands(shoe: Shoe) -> dict[tuple[int, int], Fraction]:
    """Each two-card composition (low value, high value) with its exact probability, either order."""
    hands: dict[tuple[int, int], Fraction] = {}
    for first, second in itertools.product(VALUES, repeat=2):
        key = (min(first, second), max(first, second))
        hands[key] = hands.get(key, Fraction(0)) + probability(shoe, (first, second))
    return hands
