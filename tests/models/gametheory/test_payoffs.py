"""The additive payoffs against a card-by-card walk of every deal, the papers' game sizes, and the
project's exact engine."""

import numpy as np
import pytest

from models.game.games import Game
from models.game.tableau import Hand, tableau
from models.gametheory.deal import Shoe
from models.gametheory.models import STOOD, Model, banker_rows, player_sets, total
from models.gametheory.payoffs import payoffs
from tests.models.gametheory.naive import expectation


def _player(p, x, y):
    win, lose = p.win, p.lose
    a, b, g, c = win.a - lose.a, win.b - lose.b, win.g - lose.g, win.c - lose.c
    return (c + np.dot(x, a) + np.dot(y.reshape(-1), b) + np.asarray(x) @ g @ y.reshape(-1)) / p.denominator


@pytest.mark.parametrize(("model", "sets", "rows"), [(Model.A1, 1, 8), (Model.B2, 1, 44), (Model.B3, 5, 44)])
def test_the_game_sizes_of_the_papers(model, sets, rows):
    """Ethier and Gamez (2013), abstract: A1 is a 2 x 2^88 matrix game, B2 2 x 2^484, B3 2^5 x 2^484
    (Banker's 88 or 484 information sets: his total or composition, by Player's third card or stand)."""
    p = payoffs(model, 6)
    assert 2 ** len(p.win.a) == 2**sets and len(player_sets(model)) == sets
    assert len(p.win.b) == {Model.A1: 88}.get(model, 484) == rows * 11 == len(banker_rows(model)) * 11


@pytest.mark.parametrize(("model", "decks"), [(Model.A1, None), (Model.B2, 1), (Model.B3, 1)])
def test_additive_sums_agree_with_walking_every_deal(model, decks):
    rng = np.random.default_rng(37)
    p = payoffs(model, decks)
    x, y = list(rng.random(len(p.win.a))), rng.random((len(banker_rows(model)), 11))
    shoe = Shoe.decks(decks)
    assert _player(p, x, y) == pytest.approx(expectation(model, list(shoe.counts), shoe.replace, x, y), abs=1e-13)


def test_punto_banco_play_gives_the_projects_eight_deck_odds():
    """Player drawing on 5 and Banker on the Punto Banco tableau: the exact engine's 8-deck figures
    (tests/pipelines/test_cli_odds.py)."""
    p = payoffs(Model.B3, 8)
    rows = banker_rows(Model.B3)
    y = np.array([[int(tableau(Game.PUNTO_BANCO, Hand.BANKER, total(r), None if c == STOOD else c)) for c in range(11)]
                  for r in rows])  # fmt: skip
    x = np.ones(5)
    win = (p.win.c + x @ p.win.a + p.win.b @ y.reshape(-1) + x @ p.win.g @ y.reshape(-1)) / p.denominator
    lose = (p.lose.c + x @ p.lose.a + p.lose.b @ y.reshape(-1) + x @ p.lose.g @ y.reshape(-1)) / p.denominator
    assert win == pytest.approx(0.446246609, abs=1e-9)
    assert lose == pytest.approx(0.458597423, abs=1e-9)


def test_a_part_dealt_shoe():
    """What is left after four nines and four tens left one deck: its own equilibrium, exactly."""
    from models.game.cards import Card
    from models.game.shoe import Composition
    from models.gametheory.equilibrium import solve
    from models.gametheory.payoffs import shoe_payoffs

    left = Composition.full(1).remove([Card.of(9)] * 4 + [Card.of(10)] * 4)
    p = shoe_payoffs(Model.B2, Shoe.of(left))
    assert p.denominator == 44 * 43 * 42 * 41 * 40 * 39
    (eq,) = solve(p)
    assert 0 <= eq.player["5"] <= 1
