"""The drawing rules: the one tableau every part of the project uses.

`tableau()` states rules.md cell by cell for every game. The simulator, the exact-odds kernel and the
validator all derive their decisions from it: `draw_table()` turns it, under a `DrawPolicy` for the
optional cells, into the probability arrays the compiled kernels read.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import lru_cache

import numpy as np

from models.game.games import Game

#: Column of the banker table used when the player did not draw a third card.
NO_THIRD = 10


class Hand(StrEnum):
    PLAYER = "player"
    BANKER = "banker"


class Draw(IntEnum):
    STAND = 0
    DRAW = 1
    OPTIONAL = 2  # the rules leave the choice to the one holding the hand


def _banker_vs_third_punto_banco(total: int, third: int) -> bool:
    return {
        3: third != 8,
        4: 2 <= third <= 7,
        5: 4 <= third <= 7,
        6: 6 <= third <= 7,
    }.get(total, total <= 2)


def _banker_vs_third_chemin_de_fer(total: int, third: int) -> Draw:
    if total == 3:
        return Draw.OPTIONAL if third == 9 else Draw(third != 8)
    if total == 5 and third == 4:
        return Draw.OPTIONAL
    return Draw(_banker_vs_third_punto_banco(total, third))


def tableau(game: Game, hand: Hand, total: int, player_third: int | None = None) -> Draw:
    """Whether `hand` with two-card `total` draws, given the player's third card value (or None).

    Naturals are settled before the tableau is consulted: a hand on 8 or 9 always stands here.
    """
    if total >= 8:
        return Draw.STAND
    chemin_rules = game.punter_has_choice
    if hand is Hand.PLAYER:
        if chemin_rules and total == 5:
            return Draw.OPTIONAL
        return Draw(total <= 5)
    if game is Game.BACCARAT_BANQUE:
        return Draw.OPTIONAL  # the banque's banker has free choice on every cell
    if player_third is None:
        return Draw(total <= 5)
    if chemin_rules:
        return _banker_vs_third_chemin_de_fer(total, player_third)
    return Draw(_banker_vs_third_punto_banco(total, player_third))


@dataclass(frozen=True)
class DrawPolicy:
    """How optional cells are played: the probability of drawing there.

    `punter_on_5`: the Chemin de Fer punter on 5 (1 draws, 0 stands, 0.5 mixes evenly).
    `banker_optional`: the banker on an optional cell; None plays it as Punto Banco does.
    """

    punter_on_5: float = 1.0
    banker_optional: float | None = None

    def __post_init__(self) -> None:
        for name in ("punter_on_5", "banker_optional"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a probability between 0 and 1, got {value}")

    def draw_probability(self, game: Game, hand: Hand, total: int, third: int | None) -> float:
        rule = tableau(game, hand, total, third)
        if rule is not Draw.OPTIONAL:
            return float(rule)
        if hand is Hand.PLAYER:
            return self.punter_on_5
        if self.banker_optional is None:
            return float(tableau(Game.PUNTO_BANCO, hand, total, third))
        return self.banker_optional


DEFAULT_POLICY = DrawPolicy()


@dataclass(frozen=True)
class DrawTable:
    """The tableau under a policy as arrays: player[total], banker[total, third or NO_THIRD]."""

    player: np.ndarray
    banker: np.ndarray


@lru_cache(maxsize=64)
def draw_table(game: Game, policy: DrawPolicy = DEFAULT_POLICY) -> DrawTable:
    player = np.array([policy.draw_probability(game, Hand.PLAYER, t, None) for t in range(10)])
    banker = np.array(
        [
            [policy.draw_probability(game, Hand.BANKER, t, third) for third in range(10)]
            + [policy.draw_probability(game, Hand.BANKER, t, None)]
            for t in range(10)
        ]
    )
    player.flags.writeable = banker.flags.writeable = False
    return DrawTable(player=player, banker=banker)
