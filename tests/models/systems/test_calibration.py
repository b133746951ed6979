"""The patterns' calls against the exact odds: counted by hand, at chance on simulated shoes, and a
biased sequence caught."""

import random

import polars as pl
import pytest

from models.game.games import Game
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.systems.calibration import calibration, chart, pooled
from models.systems.patterns import PATTERNS


def row(frame: pl.DataFrame, pattern: str, side: str) -> dict:
    return frame.filter(pattern=pattern, side=side).row(0, named=True)


def test_calls_wins_and_ties_by_hand():
    # follow-winner on B B P T P B: backs B (won), B (lost), P (a tie), P (won), P (lost)
    frame = calibration([list("BBPTPB")])
    assert {k: row(frame, "follow-winner", "B")[k] for k in ("calls", "wins", "ties")} == {
        "calls": 2,
        "wins": 1,
        "ties": 0,
    }
    assert {k: row(frame, "follow-winner", "P")[k] for k in ("calls", "wins", "ties")} == {
        "calls": 2,
        "wins": 1,
        "ties": 1,
    }
    odds = exact_odds(Composition.full(8), Game.PUNTO_BANCO)  # no game given: the house's default shoe
    assert row(frame, "chop", "B")["expected_rate"] == pytest.approx(odds.p_banker / (odds.p_banker + odds.p_player))
    assert row(frame, "ask-big-eye-boy", "B")["road"] == "big_eye_boy" and row(frame, "chop", "P")["road"] is None


def test_given_odds_and_each_games_odds():
    assert row(calibration([list("BPBPB")], 0.5, 0.25), "chop", "P")["expected_rate"] == pytest.approx(1 / 3)
    coups = pl.DataFrame(
        {"table_id": ["a"] * 3 + ["b"] * 3, "shoe_id": "s", "round_no": [3, 1, 2] * 2, "outcome": list("PBBPBB"),
         "game": ["punto_banco"] * 3 + ["chemin_de_fer"] * 3, "decks": [8] * 3 + [6] * 3}
    )  # fmt: skip
    # follow-winner backs Banker once in each shoe (the coups are put in order: B B P, then B B P)
    rates = [exact_odds(Composition.full(d), g) for g, d in ((Game.PUNTO_BANCO, 8), (Game.CHEMIN_DE_FER, 6))]
    mixed = sum(o.p_banker / (o.p_banker + o.p_player) for o in rates) / 2
    found = row(calibration(coups), "follow-winner", "B")
    assert (found["calls"], found["wins"]) == (4, 2) and found["expected_rate"] == pytest.approx(mixed)
    # the same shoes as lists of outcomes, one row a shoe (as the warehouse's shoes are read), give the same rows
    shoes = pl.DataFrame({"outcomes": [list("BBP")] * 2, "game": ["punto_banco", "chemin_de_fer"], "decks": [8, 6]})
    assert calibration(shoes).equals(calibration(coups))


def test_on_simulated_shoes_no_pattern_beats_chance():
    sim = Simulation(shoes=240, tables=3, seed=2, bets=False)
    frame = calibration(pl.concat([chunk.rounds for chunk in simulate(sim)]))
    assert frame.height == 2 * len(PATTERNS) and frame["calls"].min() > 7_000
    assert frame["p_value"].min() > 0.05 and frame["q_value"].min() > 0.5
    assert (frame["ci_low"] <= frame["expected_rate"]).all() and (frame["expected_rate"] <= frame["ci_high"]).all()
    for each in pooled(frame).iter_rows(named=True):
        assert each["win_rate"] == pytest.approx(each["expected_rate"], abs=0.015)
    assert chart(frame).to_dict()["layer"]


def test_a_streaky_sequence_is_caught():
    # each decision repeats the one before two times in three: following the winner wins, the chop loses
    rng, shoes = random.Random(5), []
    for _ in range(60):
        shoe = [rng.choice("BP")]
        for _ in range(70):
            shoe.append(shoe[-1] if rng.random() < 2 / 3 else {"B": "P", "P": "B"}[shoe[-1]])
        shoes.append(shoe)
    frame = calibration(shoes)
    for side in "BP":
        assert (
            row(frame, "follow-winner", side)["win_rate"] > 0.6 and row(frame, "follow-winner", side)["q_value"] < 1e-6
        )
        assert row(frame, "chop", side)["win_rate"] < 0.4 and row(frame, "chop", side)["q_value"] < 1e-6


def test_no_call_at_all():
    assert calibration([]).is_empty() and calibration([list("TTB")]).is_empty()
