"""The compiled dealing against the reference simulator, the tableau and the exact odds."""

from collections import Counter

import numpy as np
import pytest

from models.game.coup import tableau_violation
from models.game.games import Game
from models.game.shoe import Composition
from models.game.tableau import DrawPolicy
from models.odds.exact import exact_odds
from models.simulate.config import Simulation
from models.simulate.dealing import NO_CARD, new_deck
from models.simulate.engine import deal_batch
from models.simulate.frames import ShoeBatch
from models.simulate.kernels import count_outcomes
from models.simulate.reference import card_of, reference_shoe
from models.simulate.strategies import by_total

TWO_HAND_GAMES = [game for game in Game if not game.second_player_hand]


def _deal(game, decks, shoes, seed=11, policy=None):
    sim = Simulation(shoes=len(shoes), decks=decks, seed=seed, games=(game,), policy=policy or DrawPolicy())
    zeros = np.zeros(len(shoes), np.int64)
    return deal_batch(sim, ShoeBatch(game, np.asarray(shoes, np.int64), zeros, zeros, zeros))


def _hands(row, first):
    return [card_of(code) for code in row[first : first + 3] if code != NO_CARD]


@pytest.mark.parametrize("game", TWO_HAND_GAMES)
@pytest.mark.parametrize("decks", [1, 6, 8])
def test_kernel_deals_exactly_what_the_reference_deals(game, decks):
    policy = DrawPolicy(punter_on_5=0.5, banker_optional=0.5)
    shoes = [0, 7, 123_456_789]
    dealt = _deal(game, decks, shoes, policy=policy)
    offset = 0
    for i, shoe in enumerate(shoes):
        reference = reference_shoe(11, shoe, decks, game, policy)
        assert dealt.n_coups[i] == len(reference)
        for k, (player, banker) in enumerate(reference):
            row = dealt.cards[offset + k]
            assert (_hands(row, 0), _hands(row, 3)) == (player, banker)
        offset += len(reference)


@pytest.mark.parametrize("game", list(Game))
def test_every_coup_passes_the_tableau_and_every_shoe_holds_its_composition(game):
    decks = 6
    dealt = _deal(game, decks, list(range(40)), policy=DrawPolicy(punter_on_5=0.5))
    offset = 0
    for n in dealt.n_coups:
        seen = Counter()
        for row in dealt.cards[offset : offset + n]:
            player, banker, second = _hands(row, 0), _hands(row, 3), _hands(row, 6)
            seen.update(str(card) for card in player + banker + second)
            values = ([c.value for c in player], [c.value for c in banker])
            assert tableau_violation(game, *values) is None
            if second:  # the second hand follows the punter's rules against the same banker
                assert tableau_violation(game, [c.value for c in second], values[1][:2]) is None
        assert max(seen.values()) <= decks  # never more of a card than the shoe holds
        assert sum(seen.values()) <= 52 * decks - 16 + 12  # the cut card leaves at most one coup
        offset += n


@pytest.mark.parametrize("game", list(Game))
@pytest.mark.parametrize("decks", [1, 6, 8])
def test_win_and_tie_frequencies_match_the_exact_odds(game, decks):
    draws = by_total(game)
    cards_per_coup = 7.5 if game.second_player_hand else 4.94
    shoes = int(1_050_000 / ((52 * decks - 22) / cards_per_coup + 1))
    counts = count_outcomes(2026, 0, shoes, new_deck(decks), *draws, game.second_player_hand)
    coups = counts[:, :3].sum()
    assert coups >= 1_000_000
    odds = exact_odds(Composition.full(decks), game)
    for observed, p in zip(counts[:, :3].sum(axis=0), (odds.p_banker, odds.p_player, odds.p_tie), strict=True):
        z = (observed - coups * p) / np.sqrt(coups * p * (1 - p))
        assert abs(z) < 4, (observed / coups, p, z)
    expected_cards = odds.expected_cards
    if game.second_player_hand:  # the second hand: two cards, and a third as often as the first
        expected_cards += 2 + odds.cells[:, :, 1, :].sum()
    assert counts[:, 3].sum() / coups == pytest.approx(expected_cards, abs=0.03)


def test_outcome_tally_equals_the_full_kernel():
    counts = count_outcomes(11, 0, 30, new_deck(8), *by_total(Game.PUNTO_BANCO), False)
    dealt = _deal(Game.PUNTO_BANCO, 8, list(range(30)))
    assert (counts[:, :3].sum(axis=1) == dealt.n_coups).all()
    assert np.bincount(dealt.outcomes, minlength=3).tolist() == counts[:, :3].sum(axis=0).tolist()
