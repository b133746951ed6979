"""Exact odds: the published 8-deck figures, and the compiled kernel against the pure-Python oracle."""

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.game.cards import Card, parse_hand
from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.game.shoe import Composition, CompositionError
from models.game.tableau import DrawPolicy
from models.odds.exact import exact_odds
from models.odds.oracle import oracle_weights

EIGHT_DECKS = Composition.full(8)


def test_published_eight_deck_figures():
    odds = exact_odds(EIGHT_DECKS)
    assert odds.p_banker == pytest.approx(0.458597423, abs=1e-9)
    assert odds.p_player == pytest.approx(0.446246609, abs=1e-9)
    assert odds.p_tie == pytest.approx(0.095155968, abs=1e-9)
    assert odds.p_bank_keeps == pytest.approx(0.506824830, abs=1e-9)
    assert odds.expected_cards == pytest.approx(4.938818850, abs=1e-9)
    edge = {name: bet.edge for name, bet in odds.bets().items()}
    assert edge["banker"] == pytest.approx(0.010579058, abs=1e-9)
    assert edge["player"] == pytest.approx(0.012350813, abs=1e-9)
    assert edge["tie"] == pytest.approx(0.143596288, abs=1e-9)
    assert odds.bets(PayTable(commission="0.04"))["banker"].edge == pytest.approx(0.005993084, abs=1e-9)
    assert odds.bets(PayTable(tie=9))["tie"].edge == pytest.approx(0.048440320, abs=1e-9)
    super6 = exact_odds(EIGHT_DECKS, Game.SUPER6).bets()["banker"].edge
    assert super6 == pytest.approx(0.014581045, abs=1e-9)


def test_published_combination_counts_exactly():
    weights = exact_odds(EIGHT_DECKS).weights.sum(axis=(2, 3))
    player, banker = np.indices(weights.shape)
    assert int(weights[banker > player].sum()) == 2_292_252_566_437_888
    assert int(weights[player > banker].sum()) == 2_230_518_282_592_256
    assert int(np.trace(weights)) == 475_627_426_473_216
    assert int(weights.sum()) == 4_998_398_275_503_360


def _as_array(weights):
    array = np.zeros((10, 10, 2, 2))
    for cell, weight in weights.items():
        array[cell] = float(weight)
    return array


def _mid_shoe(decks, dealt, seed):
    deck = [Card.of(rank, suit) for rank in range(1, 14) for suit in "CDHS"] * decks
    random.Random(seed).shuffle(deck)
    return Composition.full(decks).remove(deck[:dealt])


CASES = [
    *[(Composition.full(decks), Game.PUNTO_BANCO, DrawPolicy()) for decks in (1, 2, 4, 6, 8)],
    (_mid_shoe(8, 137, seed=1), Game.PUNTO_BANCO, DrawPolicy()),
    (_mid_shoe(8, 390, seed=2), Game.PUNTO_BANCO, DrawPolicy()),
    (_mid_shoe(6, 250, seed=3), Game.SUPER6, DrawPolicy()),
    (_mid_shoe(1, 40, seed=4), Game.EZ_BACCARAT, DrawPolicy()),
    (Composition.from_values([0, 0, 3, 0, 1, 2, 0, 5, 1, 0]), Game.PUNTO_BANCO, DrawPolicy()),
    (Composition.full(6), Game.CHEMIN_DE_FER, DrawPolicy(punter_on_5=0.5, banker_optional=0.25)),
    (Composition.full(3), Game.CHEMIN_DE_FER, DrawPolicy(punter_on_5=0.0, banker_optional=1.0)),
    (_mid_shoe(2, 50, seed=5), Game.BACCARAT_BANQUE, DrawPolicy(banker_optional=0.5)),
]


@pytest.mark.parametrize(("composition", "game", "policy"), CASES)
@pytest.mark.slow
def test_kernel_equals_oracle(composition, game, policy):
    fast = exact_odds(composition, game, policy).weights
    slow = _as_array(oracle_weights(composition, game, policy))
    assert np.allclose(fast, slow, rtol=1e-12, atol=0)
    if policy.punter_on_5 in (0.0, 1.0) and policy.banker_optional in (None, 0.0, 1.0):
        assert (fast == slow).all()  # integer weights: exactly equal


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_side_bet_edges_against_the_oracle(decks):
    composition = Composition.full(decks)
    weights = oracle_weights(composition)
    total = sum(weights.values())

    def p(condition):
        return Fraction(sum(w for cell, w in weights.items() if condition(*cell)), total)

    dragon = p(lambda pt, bt, p3, b3: bt > pt and b3 and bt == 7)
    panda = p(lambda pt, bt, p3, b3: pt > bt and p3 and pt == 8)
    ez_push = dragon
    banker = p(lambda pt, bt, p3, b3: bt > pt)
    player = p(lambda pt, bt, p3, b3: pt > bt)
    ties = [p(lambda pt, bt, p3, b3, k=k: pt == bt == k) for k in range(10)]
    n, per_rank = composition.cards, 4 * decks
    pair = Fraction(13 * per_rank * (per_rank - 1), n * (n - 1))

    bets = exact_odds(composition).bets()
    assert bets["dragon7"].edge == pytest.approx(float(1 - 41 * dragon), abs=1e-12)
    assert bets["panda8"].edge == pytest.approx(float(1 - 26 * panda), abs=1e-12)
    assert bets["player_pair"].edge == pytest.approx(float(1 - 12 * pair), abs=1e-12)
    assert bets["banker_pair"].edge == bets["player_pair"].edge
    for k, pays in enumerate(DEFAULT_PAYTABLE.egalite):
        assert bets[f"egalite_{k}"].edge == pytest.approx(float(1 - (int(pays) + 1) * ties[k]), abs=1e-12)
    ez = exact_odds(composition, Game.EZ_BACCARAT).bets()["banker"].edge
    assert ez == pytest.approx(float(player - (banker - ez_push)), abs=1e-12)


def test_variance_of_even_money_bets():
    odds = exact_odds(EIGHT_DECKS)
    player = odds.bets()["player"]
    expected = (odds.p_player + odds.p_banker) - (odds.p_player - odds.p_banker) ** 2
    assert player.variance == pytest.approx(expected, rel=1e-12)


def test_pairs_unknown_without_ranks():
    values = Composition.from_values(Composition.full(8).values)
    odds = exact_odds(values)
    assert odds.p_pair is None
    assert "player_pair" not in odds.bets()
    assert odds.p_banker == pytest.approx(exact_odds(EIGHT_DECKS).p_banker, abs=1e-15)


def test_compositions_that_cannot_deal():
    with pytest.raises(CompositionError, match="a coup needs"):
        exact_odds(Composition.from_values([1, 1, 1, 1, 1, 0, 0, 0, 0, 0]))
    with pytest.raises(CompositionError, match="decks"):
        Composition.full(9)
    with pytest.raises(CompositionError, match="no A left"):
        Composition.full(1).remove([Card.of(1, "H")] * 5)


def test_removing_value_only_cards_forgets_ranks():
    left = Composition.full(1).remove([Card(value=0), Card.of(5)])
    assert left.ranks is None
    assert left.values[0] == 15 and left.values[5] == 3 and left.cards == 50


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 8), st.floats(0.0, 0.97), st.integers(0, 2**32 - 1), st.sampled_from(list(Game)))
def test_kernel_equals_oracle_on_random_mid_shoes(decks, fraction_dealt, seed, game):
    composition = _mid_shoe(decks, int(fraction_dealt * (52 * decks - 6)), seed)
    fast = exact_odds(composition, game).weights
    assert (fast == _as_array(oracle_weights(composition, game))).all()


def test_a_shoe_after_seen_cards_holds_each_suited_card_at_most_once_a_deck():
    assert Composition.after(2, parse_hand("AS AS 9H")).cards == 101  # two packs: two aces of spades
    assert Composition.after(1, parse_hand("A A")).cards == 50  # ranks only: four aces to a pack
    with pytest.raises(CompositionError, match="AS seen 3 times, but a 2-deck shoe holds 2"):
        Composition.after(2, parse_hand("AS AS AS"))
