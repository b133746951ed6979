"""The reference simulator: plain Python, the same random streams, the tableau function itself.

It deals a shoe card by card through `models.game.coup.deal_coup` (or by card-indexed chances, as
an equilibrium plays, through `deal_by_cards`), so the compiled kernels can be
checked against it coup by coup: same seed and shoe number, same cards. It is the tests' oracle and
the benchmarks' baseline; it deals the two-hand games (everything but baccarat_banque).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from models.game.cards import SUITS, Card, hand_total
from models.game.coup import deal_coup
from models.game.games import Game
from models.game.tableau import DEFAULT_POLICY, DrawPolicy
from models.gametheory.strategy import SHOWN_STOOD
from models.simulate.dealing import CUT_CARD_FROM_BACK
from models.simulate.rng import CARDS

MASK64 = (1 << 64) - 1


def splitmix64(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


class Stream:
    """xoshiro256** for one (seed, shoe, purpose), exactly as models/simulate/rng.py."""

    def __init__(self, seed: int, shoe: int, purpose: int) -> None:
        x = splitmix64(splitmix64(splitmix64(seed) ^ shoe) ^ purpose)
        self.s = []
        for _ in range(4):
            x = splitmix64(x)
            self.s.append(x)

    def next_u64(self) -> int:
        s = self.s
        result = (((s[1] * 5) & MASK64) << 7 | ((s[1] * 5) & MASK64) >> 57) & MASK64
        result = (result * 9) & MASK64
        t = (s[1] << 17) & MASK64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = ((s[3] << 45) | (s[3] >> 19)) & MASK64
        return result

    def bounded(self, n: int) -> int:
        """Lemire's unbiased multiply-shift draw in [0, n)."""
        m = (self.next_u64() >> 32) * n
        low = m & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next_u64() >> 32) * n
                low = m & 0xFFFFFFFF
        return m >> 32

    def random(self) -> float:
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)


def card_of(code: int) -> Card:
    return Card.of(code // 4 + 1, SUITS[code % 4])


@dataclass
class Shoe:
    """A shoe dealt card by card: lazily shuffled, burned, cut 16 cards from the back."""

    stream: Stream
    cards: list[int]
    pos: int = 0

    def draw(self) -> Card:
        j = self.pos + self.stream.bounded(len(self.cards) - self.pos)
        self.cards[self.pos], self.cards[j] = self.cards[j], self.cards[self.pos]
        self.pos += 1
        return card_of(self.cards[self.pos - 1])


def _decide(probability: float, stream: Stream) -> bool:
    return probability >= 1.0 or (probability > 0.0 and stream.random() < probability)


def deal_by_cards(
    draw_card: Callable[[], Card], punter: np.ndarray, banker: np.ndarray, stream: Stream
) -> tuple[list[Card], list[Card]]:
    """One two-hand coup by card-indexed chances: punter[a, b], banker[a, b, shown, SHOWN_STOOD]."""
    player = [draw_card()]
    banker_hand = [draw_card()]
    player.append(draw_card())
    banker_hand.append(draw_card())
    if hand_total(c.value for c in player) >= 8 or hand_total(c.value for c in banker_hand) >= 8:
        return player, banker_hand
    shown = SHOWN_STOOD
    if _decide(punter[player[0].value, player[1].value], stream):
        player.append(draw_card())
        shown = player[2].value
    if _decide(banker[banker_hand[0].value, banker_hand[1].value, shown, SHOWN_STOOD], stream):
        banker_hand.append(draw_card())
    return player, banker_hand


def reference_shoe(
    seed: int,
    shoe: int,
    decks: int = 8,
    game: Game = Game.PUNTO_BANCO,
    policy: DrawPolicy = DEFAULT_POLICY,
    cards: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[tuple[list[Card], list[Card]]]:
    """Every coup of one shoe as (player cards, banker cards): by the tableau under `policy`, or by
    `cards`, a punter's (10, 10) and a banker's (10, 10, 12, 12) chances (strategies.py) when given."""
    if game.second_player_hand:
        raise ValueError("the reference simulator deals the two-hand games only")
    stream = Stream(seed, shoe, CARDS)
    deck = Shoe(stream, list(range(52)) * decks)
    first = deck.draw()
    for _ in range(min(first.rank, 10)):
        deck.draw()
    cut = len(deck.cards) - CUT_CARD_FROM_BACK
    coups, last = [], False
    while deck.pos + 6 <= len(deck.cards):
        last = last or deck.pos >= cut
        if cards is None:
            coups.append(deal_coup(deck.draw, game, policy, stream))
        else:
            coups.append(deal_by_cards(deck.draw, *cards, stream))
        if last:
            break
        last = deck.pos > cut
    return coups
