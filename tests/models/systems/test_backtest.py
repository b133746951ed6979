"""Back-tests over simulated shoes (the simulator's real cards) against the exact chain."""

from decimal import Decimal

import polars as pl
import pytest

from models.game.games import Game
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.systems.backtest import against_exact, backtest, shoes_of, summary
from models.systems.rules import Limits


@pytest.fixture(scope="module")
def rounds() -> pl.DataFrame:
    return pl.concat([chunk.rounds for chunk in simulate(Simulation(shoes=600, bets=False, seed=22))])


def test_shoes_are_read_in_round_order_one_session_each(rounds):
    shuffled = rounds.sample(fraction=1.0, shuffle=True, seed=1)
    shoes = shoes_of(shuffled)
    assert len(shoes) == 600 and sum(len(o) for _, _, o in shoes) == rounds.height
    table_id, shoe_id, outcomes = shoes[0]
    same = (pl.col("table_id").cast(pl.String) == table_id) & (pl.col("shoe_id").cast(pl.String) == shoe_id)
    first = rounds.filter(same).sort("round_no")["outcome"].cast(pl.String).to_list()
    assert outcomes == first
    sessions = backtest("flat", "banker", Limits(), shuffled)
    assert sessions.height == 600 and (sessions["coups"] == sessions["played"]).all()
    assert sessions["end"].unique().to_list() == ["shoe end"]


@pytest.mark.parametrize(
    ("name", "bet", "limits"),
    [
        ("martingale", "banker", Limits(bankroll=2000, goal=500)),
        ("1-3-2-6", "player", Limits(bankroll=1000)),
        ("paroli", "banker", Limits(goal=300, stop_loss=300)),
        ("chop", "banker", Limits(bankroll=500)),
    ],
)
def test_a_backtest_over_simulated_shoes_agrees_with_the_exact_chain(rounds, name, bet, limits):
    """The shoes' coups are dealt from real cards (not independent); the chain assumes independent
    coups at a full shoe's odds. They agree within sampling error, shoe lengths matched."""
    sessions = backtest(name, bet, limits, rounds)
    agreement = against_exact(name, bet, limits, sessions)
    assert agreement.p_value > 1e-3, agreement.table
    assert agreement.table["expected"].sum() == pytest.approx(sessions.height)
    assert agreement.dof >= 3


def test_the_summary_counts_action_and_ends(rounds):
    sessions = backtest("martingale", "banker", Limits(bankroll=2000, goal=500), rounds)
    s = summary(sessions)
    assert s["sessions"] == 600 and sum(s["ends"].values()) == pytest.approx(1)
    assert s["mean_wagered"] == sum(sessions["wagered"].to_list(), Decimal(0)) / 600
    assert isinstance(s["mean_result"], Decimal)


def test_outcome_lists_and_games_whose_nets_need_the_cards():
    sessions = backtest("flat", "player", Limits(), ["PPB", "T"])
    assert sessions["result"].to_list() == [Decimal(25), Decimal(0)]
    with pytest.raises(ValueError, match="needs the cards' totals"):
        backtest("flat", "banker", Limits(), ["B"], game=Game.SUPER6)
