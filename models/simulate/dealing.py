"""The shoe procedure and the dealing of coups, compiled.

A shoe is shuffled lazily (Fisher-Yates one card at a time as it is dealt, which is the same
uniform shuffle), the first card is turned and that many cards burned (ten-value cards burn 10), and
the cut card stands 16 cards from the back: when it comes out the coup in progress is finished and
one more is dealt; if it comes out before a coup's first card, that coup is the last.

Drawing decisions read the card-indexed arrays of models/simulate/strategies.py: the one tableau's
`draw_table()` filled out by total, or a solved game's strategy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.game.outcome import compiled_settled_on_natural
from models.gametheory.strategy import SHOWN_NATURAL, SHOWN_STOOD
from models.simulate.rng import bounded, uniform

CUT_CARD_FROM_BACK = 16
NO_CARD = -1
#: Columns of a dealt coup's cards: Player 1..3, Banker 1..3, second Player hand 1..3 (banque).
P1, B1, Q1 = 0, 3, 6
CARD_SLOTS = 9

# Card codes 0..51: rank index (A=0 .. K=12) * 4 + suit index (C, D, H, S).
CARD_VALUE = np.array([(code // 4 + 1) % 10 if code // 4 < 9 else 0 for code in range(52)], np.int64)
BURN_COUNT = np.array([min(code // 4 + 1, 10) for code in range(52)], np.int64)


def new_deck(decks: int) -> np.ndarray:
    """The cards of a shoe in pack order (shuffling happens as they are dealt)."""
    return np.tile(np.arange(52, dtype=np.int16), decks)


def max_coups(decks: int) -> int:
    """An upper bound on the coups one shoe can deal."""
    return (52 * decks) // 4 + 2


@njit(inline="always", cache=True)
def draw(state, deck, pos):
    """Deal the card at `pos`: swap a uniformly chosen undealt card into place."""
    j = pos + bounded(state, deck.shape[0] - pos)
    card = deck[j]
    deck[j] = deck[pos]
    deck[pos] = card
    return card


@njit(cache=True)
def start_shoe(state, deck, template):
    """Reset the shoe, turn the first card and burn; returns the position of the first coup's card."""
    deck[:] = template
    first = draw(state, deck, 0)
    burn = BURN_COUNT[first]
    for pos in range(1, 1 + burn):
        draw(state, deck, pos)
    return 1 + burn


@njit(inline="always", cache=True)
def _decide(state, probability):
    if probability >= 1.0:
        return True
    if probability <= 0.0:
        return False
    return uniform(state) < probability


@njit(inline="always", cache=True)
def _shown(row, first, two_card):
    """What a Player hand shows the banker: its third card's value, that it stood, or its natural."""
    if row[first + 2] != NO_CARD:
        return CARD_VALUE[row[first + 2]]
    return SHOWN_NATURAL if two_card >= 8 else SHOWN_STOOD


@njit(inline="always", cache=True)
def deal_coup(state, deck, pos, p_draw, q_draw, banker_draw, three_hands, side, row):
    """Deal one coup into `row` (CARD_SLOTS codes, NO_CARD where none).

    `p_draw[a, b]` and `q_draw[a, b]`: the first and second Player hand's punters' chances of drawing
    on their cards; `banker_draw[a, b, large, small]`: the banker's, by what the Player hand with the
    larger stake (`side`, 1 or 2) and the other showed (models/simulate/strategies.py). Returns the
    next position and the final totals of the Player, the Banker and the second Player hand; with
    `three_hands` (baccarat_banque) two Player hands are dealt.
    """
    row[P1 + 2] = NO_CARD
    row[B1 + 2] = NO_CARD
    row[Q1] = row[Q1 + 1] = row[Q1 + 2] = NO_CARD
    row[P1] = draw(state, deck, pos)
    pos += 1
    if three_hands:
        row[Q1] = draw(state, deck, pos)
        pos += 1
    row[B1] = draw(state, deck, pos)
    row[P1 + 1] = draw(state, deck, pos + 1)
    pos += 2
    if three_hands:
        row[Q1 + 1] = draw(state, deck, pos)
        pos += 1
    row[B1 + 1] = draw(state, deck, pos)
    pos += 1
    player = (CARD_VALUE[row[P1]] + CARD_VALUE[row[P1 + 1]]) % 10
    banker = (CARD_VALUE[row[B1]] + CARD_VALUE[row[B1 + 1]]) % 10
    second = (CARD_VALUE[row[Q1]] + CARD_VALUE[row[Q1 + 1]]) % 10 if three_hands else 0
    # a natural of the banker's, or of every Player hand, ends the coup (Baccarat Banque: both hands')
    if banker >= 8 or (player >= 8 and (not three_hands or second >= 8)):
        return pos, player, banker, second
    player_two = player
    if player < 8 and _decide(state, p_draw[CARD_VALUE[row[P1]], CARD_VALUE[row[P1 + 1]]]):
        row[P1 + 2] = draw(state, deck, pos)
        pos += 1
        player = (player + CARD_VALUE[row[P1 + 2]]) % 10
    large = _shown(row, P1, player_two)
    small = SHOWN_STOOD
    if three_hands:
        second_two = second
        if second < 8 and _decide(state, q_draw[CARD_VALUE[row[Q1]], CARD_VALUE[row[Q1 + 1]]]):
            row[Q1 + 2] = draw(state, deck, pos)
            pos += 1
            second = (second + CARD_VALUE[row[Q1 + 2]]) % 10
        small = _shown(row, Q1, second_two)
        if side == 2:
            large, small = small, large
    if _decide(state, banker_draw[CARD_VALUE[row[B1]], CARD_VALUE[row[B1 + 1]], large, small]):
        row[B1 + 2] = draw(state, deck, pos)
        pos += 1
        banker = (banker + CARD_VALUE[row[B1 + 2]]) % 10
    return pos, player, banker, second


@njit(inline="always", cache=True)
def banker_faced(row, first, total, banker_total):
    """The Banker total and draw (0/1) the Player hand at `first` (P1 or Q1) of a dealt `row` is
    settled against: a natural meets his first two cards (`settled_on_natural`), any other hand his last."""
    if compiled_settled_on_natural(total, row[first + 2] != NO_CARD):
        return (CARD_VALUE[row[B1]] + CARD_VALUE[row[B1 + 1]]) % 10, 0
    return banker_total, 1 if row[B1 + 2] != NO_CARD else 0
