"""The solved games as arrays indexed by cards: what the simulator deals by and the ratings compare with.

Chemin de Fer: the equilibrium of `models.gametheory.equilibrium` under a model (B3 by default: each
side sees its own two cards), for the shoe's decks and the house's commission on the bank's wins.
Baccarat Banque: one of Ethier and Lee's three solutions at Player 1's share theta of the stakes.
Every cell the rules force holds 0 or 1 from the tableau; a free cell holds the solution's probability.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from models.game.games import Game
from models.game.tableau import Draw, Hand, tableau
from models.gametheory import banque_grid
from models.gametheory.banque_game import NASH
from models.gametheory.banque_grid import SHOWN, SHOWN_NATURAL, SHOWN_STOOD, SOLUTIONS, THETA_STEP, solved_banque
from models.gametheory.equilibrium import solve
from models.gametheory.models import COLUMNS, STOOD, Model, label
from models.gametheory.payoffs import payoffs

__all__ = ["SHOWN", "SHOWN_NATURAL", "SHOWN_STOOD", "SOLUTIONS", "THETA_STEP", "solved_banque"]


@dataclass(frozen=True)
class CheminStrategy:
    """Chemin de Fer's equilibrium by cards (values 0..9, a ten or face card 0).

    `punter[a, b]`: the punter's probability of drawing holding a and b (symmetric).
    `banker[a, b, column]`: the banker's, holding a and b, by the punter's third card (columns 0..9)
    or his standing (column 10, `STOOD`). Naturals stand.
    """

    model: Model
    decks: int | None
    commission: Fraction
    punter: np.ndarray
    banker: np.ndarray


@dataclass(frozen=True)
class BanqueStrategy:
    """Baccarat Banque's solution `kind` at theta, by cards.

    `punters[i, a, b]`: punter i's (0: the larger share's side, as Player 1) probability of drawing
    holding a and b. `banker[total, first, second]`: the banker's, by his two-card total and what
    each punter showed (third card 0..9, `SHOWN_STOOD`, `SHOWN_NATURAL`). Naturals stand.
    """

    kind: str
    theta: Fraction
    punters: np.ndarray
    banker: np.ndarray


def _forced(game: Game, hand: Hand, total: int, third: int | None) -> float | None:
    rule = tableau(game, hand, total, third)
    return None if rule is Draw.OPTIONAL else float(rule)


def _frozen(*arrays: np.ndarray) -> None:
    for array in arrays:
        array.flags.writeable = False


@lru_cache(maxsize=32)
def chemin_de_fer(decks: int | None, commission: Fraction = Fraction(0), model: Model = Model.B3) -> CheminStrategy:
    """The equilibrium for `decks` (None: an endless shoe) and the house's `commission` on the bank's
    wins; the first found where there are several (with rare exceptions there is one)."""
    found = solve(payoffs(model, decks), Fraction(commission))
    if not found:
        raise ValueError(f"Chemin de Fer under {model} with {decks} decks has no equilibrium the solver finds")
    equilibrium = found[0]
    punter, banker = np.zeros((10, 10)), np.zeros((10, 10, COLUMNS))
    for a in range(10):
        for b in range(10):
            total, cards = (a + b) % 10, (min(a, b), max(a, b))
            forced = _forced(Game.CHEMIN_DE_FER, Hand.PLAYER, total, None)
            information = cards if model.player_sees_composition else total
            punter[a, b] = forced if forced is not None else float(equilibrium.player[label(information)])
            if total >= 8:
                continue
            row = equilibrium.banker[label(cards if model.banker_sees_composition else total)]
            for column in range(COLUMNS):
                third = None if column == STOOD else column
                forced = _forced(Game.CHEMIN_DE_FER, Hand.BANKER, total, third)
                banker[a, b, column] = forced if forced is not None else float(row[column])
    _frozen(punter, banker)
    return CheminStrategy(model, decks, Fraction(commission), punter, banker)


def rounded_theta(theta: float | Fraction) -> Fraction:
    """Theta on the solving grid, kept strictly between 0 and 1."""
    steps = round(Fraction(theta) / THETA_STEP)
    return min(max(steps, 1), round(1 / THETA_STEP) - 1) * THETA_STEP


@lru_cache(maxsize=32)
def baccarat_banque(theta: Fraction, kind: str = NASH) -> BanqueStrategy:
    """Ethier and Lee's solution `kind` (nash, independent, correlated) at theta, rounded to the grid:
    read from the stored grid (models/gametheory/banque_grid.json), solved where it holds none."""
    if kind not in SOLUTIONS:
        raise ValueError(f"unknown Baccarat Banque solution {kind!r}: choose one of {', '.join(SOLUTIONS)}")
    theta = rounded_theta(theta)
    found = banque_grid.arrays(kind, theta)
    if found is False:
        found = solved_banque(theta, kind)
    if found is None:
        raise ValueError(f"Baccarat Banque has no {kind} solution at theta {theta}")
    punters, banker = found
    banker[:, SHOWN_NATURAL, SHOWN_NATURAL] = 0.0  # both Players' naturals end the coup: the banker cannot draw
    _frozen(punters, banker)
    return BanqueStrategy(kind, theta, punters, banker)
