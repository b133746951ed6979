"""The solved games as card-indexed arrays: each free cell is the solver's probability, each forced
cell the tableau's, and Banque's theta is solved on its grid."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from models.game.games import Game
from models.game.tableau import Draw, Hand, tableau
from models.gametheory import banque_grid
from models.gametheory.banque_nash import nash
from models.gametheory.banque_payoffs import STOOD as BANQUE_STOOD
from models.gametheory.banque_payoffs import Cell
from models.gametheory.equilibrium import solve
from models.gametheory.models import STOOD, Model
from models.gametheory.payoffs import payoffs
from models.gametheory.strategy import (
    SHOWN_NATURAL,
    SHOWN_STOOD,
    SOLUTIONS,
    THETA_STEP,
    baccarat_banque,
    chemin_de_fer,
    rounded_theta,
    solved_banque,
)


@pytest.mark.parametrize("model", list(Model))
def test_chemin_de_fer_cells_are_the_solvers_where_free_and_the_tableaus_where_forced(model):
    strategy = chemin_de_fer(6, Fraction(1, 20), model)
    (equilibrium,) = solve(payoffs(model, 6), Fraction(1, 20))
    assert np.array_equal(strategy.punter, strategy.punter.T)
    assert np.array_equal(strategy.banker, strategy.banker.transpose(1, 0, 2))
    on_5 = {"A1": ("5", 0, 5), "B2": ("5", 1, 4), "B3": ("1+4", 1, 4)}[model.value]
    assert strategy.punter[on_5[1], on_5[2]] == float(equilibrium.player[on_5[0]])
    assert strategy.punter[2, 2] == 1.0 and strategy.punter[3, 3] == 0.0 and strategy.punter[4, 5] == 0.0
    row = "6" if model is Model.A1 else "0+6"
    for column in range(11):
        third = None if column == STOOD else column
        rule = tableau(Game.CHEMIN_DE_FER, Hand.BANKER, 6, third)
        expected = float(equilibrium.banker[row][column]) if rule is Draw.OPTIONAL else float(rule)
        assert strategy.banker[0, 6, column] == expected


def test_the_b3_punter_on_5_draws_by_his_cards():
    strategy = chemin_de_fer(8, Fraction(1, 20))
    assert strategy.punter[0, 5] == 1.0 and strategy.punter[2, 3] == 0.0 and 0 < strategy.punter[1, 4] < 1


def test_banque_is_the_nash_solution_at_theta_on_its_grid():
    assert rounded_theta(0.47) == Fraction(1, 2) and rounded_theta(0.01) == Fraction(1, 10)
    strategy = baccarat_banque(Fraction(47, 100))
    solution = nash(Fraction(1, 2))
    assert strategy.theta == Fraction(1, 2)
    assert strategy.punters[0, 1, 4] == float(solution.draws_on_5(1)) == float(Fraction(9, 11))
    assert strategy.banker[6, SHOWN_STOOD, SHOWN_STOOD] == float(solution.banker[Cell(6, BANQUE_STOOD, BANQUE_STOOD)])
    assert strategy.banker[3, 9, 9] == float(solution.banker.get(Cell(3, 9, 9), 1))


def test_an_unknown_banque_solution_is_refused_in_words():
    with pytest.raises(ValueError, match="unknown Baccarat Banque solution 'best'"):
        baccarat_banque(Fraction(1, 2), "best")


@pytest.mark.parametrize("kind", ["nash", "correlated"])
def test_the_stored_grid_is_the_solvers_at_even_stakes(kind):
    punters, banker = banque_grid.arrays(kind, Fraction(1, 2))
    solved_punters, solved_banker = solved_banque(Fraction(1, 2), kind)
    assert np.array_equal(punters, solved_punters) and np.array_equal(banker, solved_banker)


@pytest.mark.slow
def test_the_stored_grid_is_the_solvers_everywhere():
    kept = banque_grid.stored()
    assert len(kept) == len(SOLUTIONS) * 9
    for kind in SOLUTIONS:
        for step in range(1, 10):
            theta = step * THETA_STEP
            solved = solved_banque(theta, kind)
            found = banque_grid.arrays(kind, theta)
            assert (found is None) == (solved is None), (kind, theta)
            if solved is not None:
                assert all(np.array_equal(a, b) for a, b in zip(found, solved, strict=True)), (kind, theta)


def test_a_solution_that_does_not_exist_at_theta_is_said():
    with pytest.raises(ValueError, match="no independent solution at theta 1/2"):
        baccarat_banque(Fraction(1, 2), "independent")


def test_the_banque_banker_never_draws_over_two_naturals():
    for kind in ("nash", "correlated"):
        assert (baccarat_banque(Fraction(1, 2), kind).banker[:, SHOWN_NATURAL, SHOWN_NATURAL] == 0).all()
