"""The draw probabilities the dealing kernel reads, by the cards each side holds and sees.

A fixed policy is the tableau's `draw_table()` filled out by total; an equilibrium is the solved
game's card-indexed strategy (models/gametheory/strategy.py). Both land in the same arrays, so the
kernel has one way to deal:

- `punter[style, theta, role, a, b]`: the punter's chance of drawing holding a and b (values 0..9);
  role 0 is the Player hand with the larger stake (or the only one), role 1 Baccarat Banque's other;
- `banker[style, theta, a, b, large, small]`: the banker's, holding a and b, by what each Player
  hand showed him (`SHOWN_STOOD`, `SHOWN_NATURAL` or its third card), the larger stake's first;
  Chemin de Fer's absent second hand shows `SHOWN_STOOD`.

Punter styles are the table's play and the strategy players' (advantage.STRATEGY_KINDS); banker
styles the table's and the equilibrium player's. Baccarat Banque's solutions depend on theta, the
larger stake's share of the two hands' stakes, on the grid of `THETAS` (one slot when no solution is
needed, or when the game has one Player hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from models.game.games import Game
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, draw_table
from models.gametheory.banque_game import CORRELATED
from models.gametheory.strategy import SHOWN, SHOWN_NATURAL, SHOWN_STOOD, SOLUTIONS, baccarat_banque, chemin_de_fer

#: Punter styles: the table's play, then the strategy players' (advantage.STRATEGY_KINDS, in order).
TABLE, DRAWS_ON_5, STANDS_ON_5, PLAYS_EQUILIBRIUM = range(4)
PUNTER_STYLES = 4
#: Banker styles: the table's play, and the equilibrium player's holding the bank.
BANKER_STYLES = 2
#: Baccarat Banque's theta grid for the larger stake's share: 1/2, 6/10, ..., 9/10.
THETAS = tuple(Fraction(k, 10) for k in range(5, 10))

__all__ = ["SHOWN_NATURAL", "SHOWN_STOOD"]


@dataclass(frozen=True)
class TablePlay:
    """How a table plays the free cells: the fixed policy, or the equilibrium for either side.

    `banque_solution`: which of Ethier and Lee's solutions Baccarat Banque's equilibrium is.
    """

    policy: DrawPolicy = DEFAULT_POLICY
    punter_equilibrium: bool = False
    banker_equilibrium: bool = False
    banque_solution: str = SOLUTIONS[0]

    def __post_init__(self) -> None:
        if self.banque_solution not in SOLUTIONS:
            raise ValueError(
                f"unknown Baccarat Banque solution {self.banque_solution!r}: choose one of {', '.join(SOLUTIONS)}"
            )


DEFAULT_PLAY = TablePlay()


@dataclass(frozen=True)
class Draws:
    """The kernel's arrays (see the module's docstring)."""

    punter: np.ndarray  # (PUNTER_STYLES, thetas, 2, 10, 10)
    banker: np.ndarray  # (BANKER_STYLES, thetas, 10, 10, SHOWN, SHOWN)

    def fixed(self) -> tuple[np.ndarray, np.ndarray]:
        """The table's play at theta 1/2: what the outcomes-only tally deals by."""
        return self.punter[TABLE, 0], self.banker[TABLE, 0]


def _totals() -> np.ndarray:
    return np.add.outer(np.arange(10), np.arange(10)) % 10


def by_total(game: Game, policy: DrawPolicy = DEFAULT_POLICY) -> tuple[np.ndarray, np.ndarray]:
    """A fixed policy as card-indexed arrays: punter (2, 10, 10), banker (10, 10, SHOWN, SHOWN).

    The banker plays the tableau against the larger stake's hand; its natural stops him."""
    table = draw_table(game, policy)
    totals = _totals()
    punter = np.broadcast_to(table.player[totals], (2, 10, 10)).copy()
    banker = np.zeros((10, 10, SHOWN, SHOWN))
    banker[:, :, :SHOWN_NATURAL, :] = table.banker[totals][:, :, :, None]
    return punter, banker


def _equilibria(game: Game, play: TablePlay, decks: int, commission: Fraction, thetas: int):
    """Per theta slot: the equilibrium's punter (2, 10, 10) and banker (10, 10, SHOWN, SHOWN)."""
    if game is Game.CHEMIN_DE_FER:
        solved = chemin_de_fer(decks, commission)
        banker = np.zeros((10, 10, SHOWN, SHOWN))
        banker[:, :, : SHOWN_STOOD + 1, :] = solved.banker[:, :, :, None]
        return [(np.broadcast_to(solved.punter, (2, 10, 10)), banker)] * thetas
    out = []
    for theta in THETAS[:thetas]:
        try:
            solved = baccarat_banque(theta, play.banque_solution)
        except ValueError:
            # the independent solution exists only at some thetas (3/10, 2/5, 3/5, 7/10 on the grid);
            # elsewhere the correlated one, which Ethier and Lee's independent one is the special case of
            solved = baccarat_banque(theta, CORRELATED)
        out.append((solved.punters, solved.banker[_totals()]))
    return out


@lru_cache(maxsize=16)
def draws(game: Game, play: TablePlay, decks: int, commission: Fraction, players_play: bool = False) -> Draws:
    """The arrays for `game` at a table playing `play`; `players_play`: strategy players may sit there.

    Only Chemin de Fer and Baccarat Banque have free cells; elsewhere every style is the tableau.
    Baccarat Banque's solutions are read from the stored grid; Chemin de Fer's solve takes under a second."""
    return _solved(game, play, decks, commission, players_play)


def _frozen(punter: np.ndarray, banker: np.ndarray) -> Draws:
    punter.flags.writeable = banker.flags.writeable = False
    return Draws(punter, banker)


def _solved(game: Game, play: TablePlay, decks: int, commission: Fraction, players_play: bool) -> Draws:
    punter_fixed, banker_fixed = by_total(game, play.policy)
    free = game in (Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE)
    wanted = free and (players_play or play.punter_equilibrium or play.banker_equilibrium)
    thetas = len(THETAS) if wanted and game is Game.BACCARAT_BANQUE else 1
    punter = np.empty((PUNTER_STYLES, thetas, 2, 10, 10))
    banker = np.empty((BANKER_STYLES, thetas, 10, 10, SHOWN, SHOWN))
    punter[:], banker[:] = punter_fixed, banker_fixed
    if wanted:
        for slot, (solved_punter, solved_banker) in enumerate(_equilibria(game, play, decks, commission, thetas)):
            punter[PLAYS_EQUILIBRIUM, slot] = solved_punter
            banker[1, slot] = solved_banker
            if play.punter_equilibrium:
                punter[TABLE, slot] = solved_punter
            if play.banker_equilibrium:
                banker[TABLE, slot] = solved_banker
    if free:
        on_5 = _totals() == 5
        for style, drawn in ((DRAWS_ON_5, 1.0), (STANDS_ON_5, 0.0)):
            punter[style, :, :, on_5] = drawn
    return _frozen(punter, banker)
