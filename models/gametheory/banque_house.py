"""The project's Baccarat Banque beside the solutions: its default banker and punters, valued exactly.

The simulator's banker draws as Punto Banco against the side staked more (side 1 on equal stakes)
and stands when that side shows a natural; its punters draw on 5 (`DEFAULT_POLICY`).
"""

from __future__ import annotations

from fractions import Fraction

from models.game.games import Game
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, Hand
from models.gametheory.banque_cooperative import upper_value
from models.gametheory.banque_game import banker_value
from models.gametheory.banque_payoffs import NATURAL, STOOD, Cell, banque_payoffs


def policy_banker(theta: Fraction, policy: DrawPolicy = DEFAULT_POLICY) -> dict[Cell, Fraction]:
    """The banker's draw probability in every decision cell under the project's policy."""
    side = 1 if theta >= Fraction(1, 2) else 2
    banker = {}
    for cell in banque_payoffs().cells():
        seen = cell.first if side == 1 else cell.second
        if seen == NATURAL:  # the simulator stops the banker when his side shows a natural
            banker[cell] = Fraction(0)
            continue
        third = None if seen == STOOD else seen
        p = policy.draw_probability(Game.BACCARAT_BANQUE, Hand.BANKER, cell.total, third)
        banker[cell] = Fraction(p).limit_denominator(10**6)
    return banker


def policy_players(policy: DrawPolicy = DEFAULT_POLICY) -> dict[tuple[int, int], Fraction]:
    """Both punters follow `punter_on_5`, independently."""
    p = Fraction(policy.punter_on_5).limit_denominator(10**6)
    return {(a, b): (p if a else 1 - p) * (p if b else 1 - p) for a in (0, 1) for b in (0, 1)}


def house_view(theta: Fraction, policy: DrawPolicy = DEFAULT_POLICY) -> dict[str, Fraction]:
    """The banker's exact expectation per unit staked in all, under the project's policy (settled as
    the rules are published, as the simulator settles), and his best reply to the project's punters."""
    players = policy_players(policy)
    value = banker_value(theta, players, policy_banker(theta, policy))
    return {
        "policy": value,
        "best_reply_to_policy_punters": upper_value(theta, players),
    }
