"""Baccara banque as Ethier and Lee model it: exact payoffs of every banker decision.

Cards are dealt with replacement from one deck; each Player sees only his two-card total and
chooses only on 5; the banker sees his own total and what each Player showed (a natural, a stand,
or the value of his face-up third card). Player 1 stakes theta, Player 2 stakes 1 - theta.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product

from models.gametheory.deal import VALUES, Shoe, probability

#: What the banker sees of a Player: a natural, a stand, or his third card's value.
NATURAL, STOOD = "N", "S"
STATES: tuple[str | int, ...] = (NATURAL, STOOD, *range(10))
#: The coalition's pure strategies: (Player 1 draws on 5, Player 2 draws on 5).
JOINT = tuple(product((0, 1), repeat=2))

# one deck dealt with replacement (Ethier and Lee's model A): ten-valued cards are 4 of 13
CARD = {value: probability(Shoe.decks(None), (value,)) for value in VALUES}


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@lru_cache(maxsize=1)
def two_card() -> tuple[Fraction, ...]:
    """The probability of each two-card total 0..9."""
    totals = [Fraction(0)] * 10
    for a, b in product(range(10), repeat=2):
        totals[(a + b) % 10] += CARD[a] * CARD[b]
    return tuple(totals)


@lru_cache(maxsize=2)
def player_mass(draws_on_5: int) -> dict[str | int, dict[int, Fraction]]:
    """state -> final total -> probability, for a Player who draws (1) or stands (0) on 5."""
    mass: dict[str | int, dict[int, Fraction]] = {s: {} for s in STATES}
    for t, p in enumerate(two_card()):
        if t >= 8:
            outcomes = [(NATURAL, t, p)]
        elif t >= 6 or (t == 5 and not draws_on_5):
            outcomes = [(STOOD, t, p)]
        else:
            outcomes = [(c, (t + c) % 10, p * CARD[c]) for c in range(10)]
        for state, final, weight in outcomes:
            mass[state][final] = mass[state].get(final, Fraction(0)) + weight
    return mass


def _banker_result(total: int, draws: int, player_final: int) -> Fraction:
    """The banker's expected result (+1 win, -1 loss) on two-card `total` against a Player's final."""
    if not draws:
        return Fraction(_sign(total - player_final))
    return sum((CARD[c] * _sign((total + c) % 10 - player_final) for c in range(10)), Fraction(0))


@lru_cache(maxsize=2)
def _side(draws_on_5: int) -> tuple[dict, dict]:
    """(state -> probability, (banker total, state, draws) -> banker's result x that probability)."""
    mass = player_mass(draws_on_5)
    seen = {s: sum(mass[s].values(), Fraction(0)) for s in STATES}
    result = {}
    for j, s, d in product(range(8), STATES, (0, 1)):
        if s == NATURAL:  # a Player's natural beats the banker's non-natural, whatever he draws
            result[j, s, d] = -seen[s]
        else:
            result[j, s, d] = sum((m * _banker_result(j, d, f) for f, m in mass[s].items()), Fraction(0))
    return seen, result


@dataclass(frozen=True)
class Cell:
    """One banker information set: his two-card total and what each Player showed."""

    total: int
    first: str | int
    second: str | int


@dataclass(frozen=True)
class BanquePayoffs:
    """The banker's expectation against each Player: a constant plus one term per cell and decision.

    `first[cell][d][k]` is the cell's contribution (probability included) to the banker's result
    against Player 1 when he draws (d = 1) or stands (d = 0) and the Players play `JOINT[k]`;
    `second` the same against Player 2. Each side's constant is the banker's naturals.
    """

    constant: Fraction
    first: dict[Cell, tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]
    second: dict[Cell, tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]

    def cells(self) -> list[Cell]:
        """The cells where drawing and standing differ for some pure pair of the Players."""
        return [c for c in self.first if self.first[c][0] != self.first[c][1] or self.second[c][0] != self.second[c][1]]

    def banker(self, theta: Fraction, cell: Cell, draws: int) -> tuple[Fraction, ...]:
        """The cell's term in the banker's whole result, Player 1 staking theta and Player 2 1 - theta."""
        return tuple(
            theta * a + (1 - theta) * b for a, b in zip(self.first[cell][draws], self.second[cell][draws], strict=True)
        )


def _constant() -> Fraction:
    """The banker's naturals: no decision; each Player's two-card total against them."""
    totals = two_card()
    return sum((totals[j] * totals[t] * _sign(j - t) for j in (8, 9) for t in range(10)), Fraction(0))


@lru_cache(maxsize=1)
def banque_payoffs() -> BanquePayoffs:
    """Every cell's payoff to the banker against each Player under the four pure pairs."""
    sides = {a: _side(a) for a in (0, 1)}
    first, second = {}, {}
    for j, s1, s2 in product(range(8), STATES, STATES):
        p = two_card()[j]
        one, two = [], []
        for d in (0, 1):
            one.append(tuple(p * sides[a1][1][j, s1, d] * sides[a2][0][s2] for a1, a2 in JOINT))
            two.append(tuple(p * sides[a2][1][j, s2, d] * sides[a1][0][s1] for a1, a2 in JOINT))
        first[Cell(j, s1, s2)] = (one[0], one[1])
        second[Cell(j, s1, s2)] = (two[0], two[1])
    return BanquePayoffs(constant=_constant(), first=first, second=second)
