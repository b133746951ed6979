"""What the banque solvers share: a solution's shape, the game as float arrays, exact values."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from models.gametheory.banque_payoffs import JOINT, Cell, banque_payoffs

NASH, INDEPENDENT, CORRELATED = "nash", "independent", "correlated"


@dataclass(frozen=True)
class Solution:
    """One solution: the Players' joint law on 5, the banker's draw probability per cell, his value."""

    kind: str
    exists: bool
    players: dict[tuple[int, int], Fraction]
    banker: dict[Cell, Fraction]
    value: Fraction | None
    exact: bool = True
    #: Where the numbers are irrational: each Player's draw on 5 in closed form (quadratic surds).
    closed_form: tuple[str, str] | None = None

    def draws_on_5(self, player: int) -> Fraction:
        """The probability that Player 1 or 2 draws on 5."""
        return sum((q for pair, q in self.players.items() if pair[player - 1]), Fraction(0))


@dataclass(frozen=True)
class FloatGame:
    """The game at one theta as float arrays over the decision cells (rows) and pure pairs (columns)."""

    theta: Fraction
    cells: list[Cell]
    first: np.ndarray  # (2, cells, 4): banker's result against Player 1 per decision
    second: np.ndarray
    rest_first: np.ndarray  # (4,): the same summed over the cells without a decision, plus naturals
    rest_second: np.ndarray

    @property
    def banker(self) -> np.ndarray:
        t = float(self.theta)
        return t * self.first + (1 - t) * self.second

    @property
    def rest(self) -> np.ndarray:
        t = float(self.theta)
        return t * self.rest_first + (1 - t) * self.rest_second


def exact_rest(which: str) -> list[Fraction]:
    payoffs = banque_payoffs()
    table = getattr(payoffs, which)
    decided = set(payoffs.cells())
    rest = [payoffs.constant] * 4
    for cell, (stand, _) in table.items():
        if cell not in decided:
            rest = [r + s for r, s in zip(rest, stand, strict=True)]
    return rest


@lru_cache(maxsize=32)
def float_game(theta: Fraction) -> FloatGame:
    payoffs = banque_payoffs()
    cells = payoffs.cells()

    def arrays(table: dict) -> np.ndarray:
        return np.array([[[float(x) for x in table[c][d]] for c in cells] for d in (0, 1)])

    return FloatGame(
        theta=theta,
        cells=cells,
        first=arrays(payoffs.first),
        second=arrays(payoffs.second),
        rest_first=np.array([float(x) for x in exact_rest("first")]),
        rest_second=np.array([float(x) for x in exact_rest("second")]),
    )


def exact_values(theta: Fraction, players: dict, banker: dict[Cell, Fraction]) -> tuple[Fraction, Fraction]:
    """The banker's exact expectation against Player 1 and against Player 2."""
    payoffs = banque_payoffs()
    q = [players.get(pair, Fraction(0)) for pair in JOINT]
    out = []
    for which in ("first", "second"):
        table = getattr(payoffs, which)
        total = sum((r * w for r, w in zip(exact_rest(which), q, strict=True)), Fraction(0))
        for cell, draw in banker.items():
            stand, drawn = table[cell]
            total += sum(((1 - draw) * s + draw * d) * w for s, d, w in zip(stand, drawn, q, strict=True))
        out.append(total)
    return out[0], out[1]


def banker_value(theta: Fraction, players: dict, banker: dict[Cell, Fraction]) -> Fraction:
    """The banker's exact expectation per unit staked in all (theta on Player 1, 1 - theta on 2)."""
    first, second = exact_values(theta, players, banker)
    return theta * first + (1 - theta) * second


def exact_differences(theta: Fraction, cells: list[Cell]) -> dict[Cell, list[Fraction]]:
    payoffs = banque_payoffs()
    return {
        c: [d - s for s, d in zip(payoffs.banker(theta, c, 0), payoffs.banker(theta, c, 1), strict=True)] for c in cells
    }
