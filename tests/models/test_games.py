"""The game's traits, and each rule's compiled and Polars forms against the plain one everywhere."""

import itertools
from decimal import Decimal

import numpy as np
import polars as pl
import pytest

from models.game.bank import bank_passes, bank_passes_expr, compiled_bank_passes, passing_outcomes
from models.game.cells import (
    CELL_FACTS,
    CELL_OUTCOMES,
    CELL_SHAPE,
    CELLS,
    cell_expr,
    cell_index,
    compiled_cell_index,
)
from models.game.coup import Coup
from models.game.games import Banker, BankPassing, Game
from models.game.outcome import (
    OUTCOMES,
    compiled_outcome_code,
    compiled_settled_on_natural,
    hand_outcome,
    hand_outcome_expr,
    outcome,
    outcome_code,
    outcome_expr,
    settled_on_natural,
    settled_on_natural_expr,
)
from models.game.paytable import BETS, DEFAULT_PAYTABLE, bet_result, settlement_grid

TOTALS = list(itertools.product(range(10), range(10)))
EVERY_CELL = list(itertools.product(*(range(size) for size in CELL_SHAPE)))


@pytest.mark.parametrize(
    ("game", "banker", "passing", "second_hand"),
    [
        (Game.PUNTO_BANCO, Banker.HOUSE, BankPassing.HOUSE, False),
        (Game.SUPER6, Banker.HOUSE, BankPassing.HOUSE, False),
        (Game.EZ_BACCARAT, Banker.HOUSE, BankPassing.HOUSE, False),
        (Game.CHEMIN_DE_FER, Banker.PLAYER, BankPassing.CHEMIN_DE_FER, False),
        (Game.BACCARAT_BANQUE, Banker.PLAYER, BankPassing.BANQUE, True),
        (Game.BANCO, Banker.PLAYER, BankPassing.ROTATING, False),
    ],
)
def test_each_games_traits(game, banker, passing, second_hand):
    assert game.banker is banker
    assert game.player_banked == (banker is Banker.PLAYER)
    assert game.passing is passing
    assert game.second_player_hand is second_hand


def test_the_outcome_is_the_higher_total_or_a_tie():
    assert (outcome(3, 7), outcome(8, 2), outcome(5, 5)) == ("B", "P", "T")
    for player, banker in TOTALS:
        expected = "B" if banker > player else "P" if player > banker else "T"
        assert outcome(player, banker) == OUTCOMES[outcome_code(player, banker)] == expected
        assert Coup(player, banker).outcome == expected


def test_compiled_outcome_agrees_with_the_plain_one_on_every_pair_of_totals():
    for player, banker in TOTALS:
        assert compiled_outcome_code(player, banker) == outcome_code(player, banker)
        assert compiled_outcome_code(np.int8(player), np.int64(banker)) == outcome_code(player, banker)


@pytest.mark.parametrize("dtype", [pl.Int8, pl.Int64])
def test_polars_outcome_agrees_with_the_plain_one_on_every_pair_of_totals(dtype):
    frame = pl.DataFrame(TOTALS, schema={"player": dtype, "banker": dtype}, orient="row")
    got = frame.lazy().select(outcome_expr(pl.col("player"), pl.col("banker"))).collect().to_series()
    assert got.to_list() == [outcome(player, banker) for player, banker in TOTALS]


def test_polars_outcome_is_null_without_totals_and_keeps_a_frames_height():
    frame = pl.DataFrame({"player": [None, 4], "banker": [3, None]}, schema={"player": pl.Int8, "banker": pl.Int8})
    assert frame.select(outcome_expr(pl.col("player"), pl.col("banker"))).to_series().to_list() == [None, None]
    one = pl.DataFrame({"player": [9], "banker": [8]}).with_columns(o=outcome_expr(pl.col("player"), pl.col("banker")))
    assert one["o"].to_list() == ["P"]
    empty = pl.DataFrame(schema={"player": pl.Int8, "banker": pl.Int8})
    assert empty.with_columns(o=outcome_expr(pl.col("player"), pl.col("banker"))).height == 0


#: Every (player total, player drew, banker's two-card total, banker's final total).
HAND_FACTS = list(itertools.product(range(10), (0, 1), range(10), range(10)))


def test_a_natural_meets_the_bankers_first_two_cards_and_any_other_hand_his_last():
    # Ethier and Lee: a Player's natural against a banker without one wins at once, whatever he draws
    assert hand_outcome(8, 0, 5, 9) == "P"  # a natural 8; the banker on 5 drew to 9 against the other hand
    assert hand_outcome(9, 0, 9, 9) == "T"  # naturals both: a tie
    assert hand_outcome(8, 1, 5, 9) == "B"  # 8 on three cards is no natural
    assert hand_outcome(7, 0, 5, 9) == "B"
    for total, drew, two, final in HAND_FACTS:
        natural = settled_on_natural(total, drew)
        assert natural == (not drew and total >= 8)
        assert hand_outcome(total, drew, two, final) == outcome(total, two if natural else final)
        assert hand_outcome(total, drew, final, final) == outcome(total, final)  # the banker stood


def test_compiled_and_polars_naturals_agree_with_the_plain_rule():
    for total, drew, _, _ in HAND_FACTS[::100]:
        assert compiled_settled_on_natural(np.int8(total), bool(drew)) == settled_on_natural(total, drew)
    frame = pl.DataFrame(HAND_FACTS, schema=["p", "drew", "two", "final"], orient="row").with_columns(
        pl.col("p", "two", "final").cast(pl.Int8), pl.col("drew").cast(pl.Boolean)
    )
    got = frame.select(
        natural=settled_on_natural_expr(pl.col("p"), pl.col("drew")),
        outcome=hand_outcome_expr(pl.col("p"), pl.col("drew"), pl.col("two"), pl.col("final")),
    )
    assert got["natural"].to_list() == [settled_on_natural(p, d) for p, d, _, _ in HAND_FACTS]
    assert got["outcome"].to_list() == [hand_outcome(*facts) for facts in HAND_FACTS]


def test_cells_are_numbered_once_each_in_the_odds_weights_c_order():
    numbers = [cell_index(*cell) for cell in EVERY_CELL]
    assert sorted(numbers) == list(range(CELLS))
    assert numbers == [int(np.ravel_multi_index(cell, CELL_SHAPE)) for cell in EVERY_CELL]
    assert [tuple(facts) for facts in CELL_FACTS.tolist()] == EVERY_CELL  # CELL_FACTS inverts cell_index
    assert list(CELL_OUTCOMES) == [outcome(player, banker) for player, banker, _, _ in EVERY_CELL]


def test_compiled_and_polars_cells_agree_with_the_plain_one_on_every_cell():
    numbers = [cell_index(*cell) for cell in EVERY_CELL]
    assert [compiled_cell_index(*cell) for cell in EVERY_CELL] == numbers
    frame = pl.DataFrame(
        [(pt, bt, bool(p3), bool(b3)) for pt, bt, p3, b3 in EVERY_CELL],
        schema={"pt": pl.Int8, "bt": pl.Int8, "p3": pl.Boolean, "b3": pl.Boolean},
        orient="row",
    )
    got = frame.select(cell=cell_expr(pl.col("pt"), pl.col("bt"), pl.col("p3"), pl.col("b3")))
    assert got.schema["cell"] == pl.Int16
    assert got["cell"].to_list() == numbers


@pytest.mark.parametrize("game", list(Game))
def test_the_settlement_grid_is_indexed_by_the_cell_number(game):
    net, commission = settlement_grid(game, DEFAULT_PAYTABLE)
    assert net.shape == commission.shape == (len(BETS), CELLS, 2)
    for cell in EVERY_CELL:
        pt, bt, p3, b3 = cell
        coup = Coup(pt, bt, 2 + p3, 2 + b3, player_pair=True, banker_pair=True)
        for b in (BETS.index("banker"), BETS.index("dragon7"), BETS.index("panda8"), BETS.index("player_pair")):
            result = bet_result(game, DEFAULT_PAYTABLE, BETS[b], coup)
            assert net[b, cell_index(*cell), 1] == result.net
            assert commission[b, cell_index(*cell), 1] == result.commission
    assert net[BETS.index("egalite_4"), cell_index(4, 4, 0, 0), 0] == Decimal(120)


def test_the_bank_passes_on_a_player_win_rotates_on_a_decision_and_stays_in_the_banque():
    assert {game: passing_outcomes(game) for game in Game} == {
        Game.PUNTO_BANCO: ("P",),
        Game.SUPER6: ("P",),
        Game.EZ_BACCARAT: ("P",),
        Game.CHEMIN_DE_FER: ("P",),
        Game.BACCARAT_BANQUE: (),
        Game.BANCO: ("B", "P"),
    }


def test_compiled_and_polars_passing_agree_with_the_plain_rule_for_every_game_and_outcome():
    pairs = list(itertools.product(Game, range(len(OUTCOMES))))
    for game, code in pairs:
        assert compiled_bank_passes(int(game.passing), code) == bank_passes(game.passing, code)
    frame = pl.DataFrame({"game": [game.value for game, _ in pairs], "outcome": [OUTCOMES[code] for _, code in pairs]})
    got = frame.select(bank_passes_expr(pl.col("game"), pl.col("outcome"))).to_series().to_list()
    assert got == [bank_passes(game.passing, code) for game, code in pairs]
