"""One coup: dealing it by the tableau, scoring it, and checking logged draws against the tableau."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from models.game.cards import Card, hand_total, is_pair
from models.game.games import Game
from models.game.outcome import outcome, settled_on_natural
from models.game.tableau import DEFAULT_POLICY, Draw, DrawPolicy, Hand, tableau


@dataclass(frozen=True, slots=True)
class Coup:
    """What settlement and the metrics need to know about a dealt coup."""

    player_total: int
    banker_total: int
    player_cards: int = 2
    banker_cards: int = 2
    player_pair: bool | None = False
    banker_pair: bool | None = False

    @property
    def outcome(self) -> str:
        return outcome(self.player_total, self.banker_total)


def score(player: Sequence[Card], banker: Sequence[Card]) -> Coup:
    """The facts a Player hand is settled on against the Banker's hand, cards in dealing order: a
    natural meets the Banker's first two cards (`settled_on_natural`: a Banque banker may draw after)."""
    if settled_on_natural(hand_total(card.value for card in player), len(player) == 3):
        banker = banker[:2]
    return Coup(
        player_total=hand_total(card.value for card in player),
        banker_total=hand_total(card.value for card in banker),
        player_cards=len(player),
        banker_cards=len(banker),
        player_pair=is_pair(player),
        banker_pair=is_pair(banker),
    )


def _decide(probability: float, rng: random.Random | None) -> bool:
    if probability in (0.0, 1.0):
        return probability == 1.0
    if rng is None:
        raise ValueError("a mixed drawing policy needs a random generator")
    return rng.random() < probability


def deal_coup(
    draw_card: Callable[[], Card],
    game: Game = Game.PUNTO_BANCO,
    policy: DrawPolicy = DEFAULT_POLICY,
    rng: random.Random | None = None,
) -> tuple[list[Card], list[Card]]:
    """Deal Player, Banker, Player, Banker, then third cards as the tableau says."""
    player = [draw_card()]
    banker = [draw_card()]
    player.append(draw_card())
    banker.append(draw_card())
    player_two = hand_total(card.value for card in player)
    banker_two = hand_total(card.value for card in banker)
    if player_two >= 8 or banker_two >= 8:
        return player, banker
    third = None
    if _decide(policy.draw_probability(game, Hand.PLAYER, player_two, None), rng):
        player.append(draw_card())
        third = player[2].value
    if _decide(policy.draw_probability(game, Hand.BANKER, banker_two, third), rng):
        banker.append(draw_card())
    return player, banker


def _said(hand: str, drew: bool, total: int) -> str:
    return f"{hand} {'drew' if drew else 'stood'} on {total}"


def tableau_violation(game: Game, player: Sequence[int], banker: Sequence[int]) -> str | None:
    """Why the logged draws break the tableau (point values in dealing order), or None if they don't.

    Hands must already hold two or three cards. Optional cells accept either choice. In
    a game with a second Player hand (baccarat_banque) the banker plays both hands at once, so only
    the banker's own natural stops it.
    """
    player_two, banker_two = hand_total(player[:2]), hand_total(banker[:2])
    player_drew, banker_drew = len(player) == 3, len(banker) == 3
    if player_two >= 8 or banker_two >= 8:
        if player_drew:
            return f"player drew on {player_two} after a natural"
        if banker_drew and (banker_two >= 8 or not game.second_player_hand):
            return f"banker drew on {banker_two} after a natural"
        return None
    rule = tableau(game, Hand.PLAYER, player_two)
    if rule is not Draw.OPTIONAL and bool(rule) != player_drew:
        return _said("player", player_drew, player_two)
    third = player[2] if player_drew else None
    rule = tableau(game, Hand.BANKER, banker_two, third)
    if rule is not Draw.OPTIONAL and bool(rule) != banker_drew:
        against = "when the player stood" if third is None else f"against a player third card of {third}"
        return f"{_said('banker', banker_drew, banker_two)} {against}"
    return None
