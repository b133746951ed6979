"""A plain pure-Python enumeration of every deal: slow, obvious, and the tests' oracle.

It deals each hand card by card in the order of the table (Player, Banker, Player, Banker, then
third cards) and asks the tableau at every decision. Weights are exact (ints, or Fractions for
mixed policies) in the same unit as the compiled kernel: ordered six-card deals.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from models.game.games import Game
from models.game.shoe import Composition
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, Hand

Cell = tuple[int, int, int, int]  # player total, banker total, player drew, banker drew


def _exact(probability: float) -> int | Fraction:
    return int(probability) if probability in (0.0, 1.0) else Fraction(probability)


def _completions(left: int, used: int) -> int:
    """Ways to deal the cards a coup that used `used` cards leaves unused out of six."""
    ways = 1
    for k in range(6 - used):
        ways *= left - k
    return ways


def oracle_weights(
    composition: Composition, game: Game = Game.PUNTO_BANCO, policy: DrawPolicy = DEFAULT_POLICY
) -> dict[Cell, int | Fraction]:
    counts = list(composition.values)
    n = sum(counts)
    weights: dict[Cell, int | Fraction] = defaultdict(int)

    def chance(hand: Hand, total: int, third: int | None) -> int | Fraction:
        return _exact(policy.draw_probability(game, hand, total, third))

    def banker_turn(weight, player: int, banker: int, player_drew: int, third: int | None) -> None:
        used = 4 + player_drew
        left = n - used
        draws = chance(Hand.BANKER, banker, third)
        if draws != 1:
            weights[player, banker, player_drew, 0] += weight * (1 - draws) * _completions(left, used)
        if draws != 0:
            for b3 in range(10):
                if counts[b3]:
                    weights[player, (banker + b3) % 10, player_drew, 1] += (
                        weight * draws * counts[b3] * _completions(left - 1, used + 1)
                    )

    for p1 in range(10):
        for b1 in range(10):
            for p2 in range(10):
                for b2 in range(10):
                    weight = 1
                    for value in (p1, b1, p2, b2):
                        weight *= counts[value]
                        counts[value] -= 1
                    if weight:
                        player, banker = (p1 + p2) % 10, (b1 + b2) % 10
                        if player >= 8 or banker >= 8:
                            weights[player, banker, 0, 0] += weight * _completions(n - 4, 4)
                        else:
                            draws = chance(Hand.PLAYER, player, None)
                            if draws != 1:
                                banker_turn(weight * (1 - draws), player, banker, 0, None)
                            if draws != 0:
                                for p3 in range(10):
                                    if counts[p3]:
                                        taken = weight * draws * counts[p3]
                                        counts[p3] -= 1
                                        banker_turn(taken, (player + p3) % 10, banker, 1, p3)
                                        counts[p3] += 1
                    for value in (p1, b1, p2, b2):
                        counts[value] += 1
    return dict(weights)
