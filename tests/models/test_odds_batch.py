"""The exact engine over many compositions at once, against exact_odds and the pure-Python oracle."""

import random
from fractions import Fraction

import numpy as np
import pytest

from models.game.cards import Card
from models.game.coup import Coup
from models.game.games import Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PAIR_BETS, PayTable, bet_result
from models.game.shoe import Composition
from models.odds.batch import UNKNOWN_RANKS, house_edges
from models.odds.exact import exact_odds
from models.odds.oracle import oracle_weights

HOUSE_GAMES = (Game.PUNTO_BANCO, Game.SUPER6, Game.EZ_BACCARAT)


def _part_dealt(decks: int, dealt: int, seed: int, ranks: bool = True) -> Composition:
    deck = [Card.of(rank, suit) for rank in range(1, 14) for suit in "CDHS"] * decks
    random.Random(seed).shuffle(deck)
    left = Composition.full(decks).remove(deck[:dealt])
    return left if ranks else Composition.from_values(left.values)


SHOES = [
    Composition.full(8),
    _part_dealt(8, 60, seed=1),
    _part_dealt(8, 250, seed=2, ranks=False),
    _part_dealt(8, 400, seed=3),
    _part_dealt(6, 200, seed=4),
    _part_dealt(1, 30, seed=5),
    _part_dealt(1, 44, seed=6, ranks=False),
    Composition(values=(2, 0, 1, 0, 1, 0, 1, 0, 1, 0), ranks=(0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 0, 0, 0)),
]


def _arrays(compositions):
    values = np.array([c.values for c in compositions])
    ranks = np.array([c.ranks if c.ranks is not None else (UNKNOWN_RANKS,) * 13 for c in compositions])
    return values, ranks


def _expected(composition: Composition, game: Game, table: PayTable = DEFAULT_PAYTABLE) -> list[float]:
    bets = exact_odds(composition, game).bets(table)
    return [bets[bet].edge if bet in bets else np.nan for bet in BETS]


@pytest.mark.parametrize("game", HOUSE_GAMES)
def test_every_row_equals_exact_odds(game):
    values, ranks = _arrays(SHOES)
    table = PayTable(commission="0.04", pair=12, dragon7=30)
    edges = house_edges(values, ranks, game, table)
    assert edges.shape == (len(SHOES), len(BETS))
    expected = np.array([_expected(composition, game, table) for composition in SHOES])
    np.testing.assert_allclose(edges, expected, rtol=0, atol=1e-13)  # NaN where expected is NaN
    assert np.isnan(edges[2, [BETS.index(bet) for bet in PAIR_BETS]]).all()


def _oracle_edges(composition: Composition, game: Game) -> dict[str, Fraction]:
    """Every bet's house edge from the oracle's exact weights, settled cell by cell by `bet_result`."""
    weights = oracle_weights(composition, game)
    total = sum(weights.values())
    edges = {}
    for bet in BETS:
        if bet in PAIR_BETS:
            continue
        mean = sum(
            w * Fraction(bet_result(game, DEFAULT_PAYTABLE, bet, Coup(pt, bt, 2 + p3, 2 + b3)).net)
            for (pt, bt, p3, b3), w in weights.items()
        )
        edges[bet] = -mean / total
    if composition.ranks is not None:
        n = composition.cards
        pair = Fraction(sum(r * (r - 1) for r in composition.ranks), n * (n - 1))
        edges.update(dict.fromkeys(PAIR_BETS, 1 - pair * (int(DEFAULT_PAYTABLE.pair) + 1)))
    return edges


@pytest.mark.parametrize(
    ("composition", "game"),
    [
        (_part_dealt(8, 120, seed=7), Game.PUNTO_BANCO),
        (_part_dealt(8, 330, seed=8, ranks=False), Game.PUNTO_BANCO),
        (_part_dealt(6, 150, seed=9), Game.SUPER6),
        (_part_dealt(1, 35, seed=10), Game.EZ_BACCARAT),
    ],
)
def test_rows_equal_the_oracle(composition, game):
    values, ranks = _arrays([composition])
    edges = house_edges(values, ranks, game)[0]
    exact = _oracle_edges(composition, game)
    for i, bet in enumerate(BETS):
        if bet in exact:
            assert edges[i] == pytest.approx(float(exact[bet]), abs=1e-13), bet
        else:
            assert np.isnan(edges[i]), bet


def test_ranks_none_leaves_pairs_unknown_and_rows_that_recur_agree():
    values, _ = _arrays([SHOES[1], SHOES[0], SHOES[1], SHOES[0]])
    edges = house_edges(values, None, Game.PUNTO_BANCO)
    pairs = [BETS.index(bet) for bet in PAIR_BETS]
    assert np.isnan(edges[:, pairs]).all()
    np.testing.assert_array_equal(edges[0], edges[2])
    np.testing.assert_allclose(edges[1], _expected(Composition.from_values(SHOES[0].values), Game.PUNTO_BANCO))


def test_too_few_cards_for_a_coup_is_nan():
    few = Composition(values=(1, 1, 1, 0, 0, 0, 0, 1, 1, 0), ranks=(1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1))
    values, ranks = _arrays([few, SHOES[0]])
    edges = house_edges(values, ranks, Game.SUPER6)
    assert np.isnan(edges[0]).all()
    assert not np.isnan(edges[1]).any()


def test_no_rows_and_bad_arrays():
    assert house_edges(np.zeros((0, 10), np.int64), None, Game.PUNTO_BANCO).shape == (0, len(BETS))
    with pytest.raises(ValueError, match=r"values must be an int array of shape \(n, 10\)"):
        house_edges(np.zeros((2, 9), np.int64), None, Game.PUNTO_BANCO)
    with pytest.raises(ValueError, match="values counts must be 0 or more"):
        house_edges(np.array([[-1] + [4] * 9]), None, Game.PUNTO_BANCO)
    values, ranks = _arrays([SHOES[0]])
    with pytest.raises(ValueError, match="as many cards"):
        house_edges(values, ranks - 1, Game.PUNTO_BANCO)
