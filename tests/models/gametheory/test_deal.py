"""The card counting the game-theory room stands on, against sums worked by hand."""

from fractions import Fraction

import numpy as np
import pytest

from models.gametheory.deal import Shoe, denominator, probability, sequence_weights, two_card_hands


@pytest.mark.parametrize("decks", [1, 6, 8, None])
def test_weights_sum_to_one_and_agree_with_probability(decks):
    shoe = Shoe.decks(decks)
    weights = sequence_weights(shoe, 3)
    assert weights.sum() == denominator(shoe, 3)
    assert Fraction(int(weights[0, 0, 5]), denominator(shoe, 3)) == probability(shoe, (0, 0, 5))


def test_without_replacement_a_one_deck_shoe_has_four_nines():
    shoe = Shoe.decks(1)
    assert probability(shoe, (9, 9, 9, 9)) == Fraction(4 * 3 * 2 * 1, 52 * 51 * 50 * 49)
    assert probability(shoe, (9,) * 5) == 0
    assert sequence_weights(shoe, 5)[9, 9, 9, 9, 9] == 0


def test_with_replacement_cards_are_independent():
    shoe = Shoe.decks(None)
    assert probability(shoe, (0, 0)) == Fraction(16, 52) ** 2
    assert shoe.replace and shoe.cards == 52


def test_two_card_hands():
    hands = two_card_hands(Shoe.decks(1))
    assert sum(hands.values()) == 1
    assert hands[(0, 0)] == Fraction(16 * 15, 52 * 51)
    assert hands[(4, 5)] == 2 * Fraction(4 * 4, 52 * 51)
    assert len(hands) == 55


def test_six_card_weights_fit_int64_for_eight_decks():
    weights = sequence_weights(Shoe.decks(8), 6)
    assert weights.dtype == np.int64 and int(weights.sum()) == denominator(Shoe.decks(8), 6)
