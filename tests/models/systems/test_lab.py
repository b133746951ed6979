"""The lab's glue: calls rated at the chosen game's and deck count's exact odds; a chain too large
answered by the back-test alone."""

from decimal import Decimal

import pytest

from models.game.games import Game
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.systems import lab
from models.systems.rules import Limits

SHOES = [list("BPBBPTPPBPBBBPPTBPBPPBBPTBBPBPPB") * 2, list("PPBPBBTBPBPPPBBPBTPBBPPBPB") * 2]


@pytest.mark.parametrize(("game", "decks"), [(Game.PUNTO_BANCO, 8), (Game.EZ_BACCARAT, 6), (Game.PUNTO_BANCO, 1)])
def test_calls_are_rated_at_the_chosen_games_exact_odds(game, decks):
    odds = exact_odds(Composition.full(decks), game)
    p_b, p_p = odds.p_banker, odds.p_player
    rated = lab.calibrate(SHOES, game, decks)
    assert rated.height
    for row in rated.iter_rows(named=True):
        expected = (p_b if row["side"] == "B" else p_p) / (p_b + p_p)
        assert row["expected_rate"] == pytest.approx(expected, rel=1e-12)


def test_too_large_a_chain_leaves_the_back_test_to_answer():
    question = lab.Question("labouchere", "banker", Limits(coups=30))
    result, note = lab.exact_or_note(question, max_states=1000)
    assert result is None and note.startswith("the exact distribution is too large for these settings")
    tested = lab.run_backtest(question, SHOES)
    summary = lab.summary(question, result, tested, "two shoes", note)
    assert summary["exact"] is None and summary["exact_omitted"] == note
    assert [row["exact"] for row in summary["backtest"]["bands"]] == [None] * 3
    chart = lab.chart({**summary, "backtest_results": tested["result"].to_list()}, "back-test alone")
    assert chart.to_dict()["layer"]
    answered, none = lab.exact_or_note(lab.Question("flat", "banker", Limits(coups=30)))
    assert none is None and answered.expected_bets == 30


def test_shoes_shorter_than_the_session_are_compared_with_the_exact_session_of_their_length():
    question = lab.Question("martingale", "banker", Limits(coups=30, bankroll=Decimal(500)))
    shoes = lab.simulated_shoes(40, seed=3, game=Game.PUNTO_BANCO, decks=8)
    short = [shoe[:12] for shoe in shoes]  # every shoe cut at 12 coups, under the session's 30
    tested = lab.run_backtest(question, short)
    summary = lab.summary(question, lab.exact(question), tested, "cut shoes")
    twelve = lab.exact(lab.with_limits(question, coups=12))
    assert summary["backtest"]["exact_lengths"] == "each shoe's own"
    expected = lab.exact_bands(twelve.distribution, question.limits)
    assert {row["band"]: row["exact"] for row in summary["backtest"]["bands"]} == pytest.approx(expected)
    whole = lab.summary(question, lab.exact(question), lab.run_backtest(question, shoes), "whole shoes")
    assert whole["backtest"]["exact_lengths"] == "the session's"
    # one walk for the session and the shoes' lengths gives the same comparison as a walk of its own
    walks = lab.exact_walks(question, lengths=tested["coups"].to_list())
    assert sorted(walks) == [12, 30] and walks[30].distribution == lab.exact(question).distribution
    assert lab.summary(question, walks[30], tested, "cut shoes", walks=walks) == summary


def test_the_charts_dots_are_the_sessions_share_of_each_bin():
    results = [-10.0, -10.0, -10.0, 0.0, 5.0, 5.0]  # three sessions in one bin, two in another, one alone
    chart = lab.chart({"exact": None, "backtest_results": results}, "shares")
    (points,) = [layer for layer in chart.layer if layer.mark.type == "point"]
    shares = sorted(points.data["probability"].to_list())
    assert shares == pytest.approx([1 / 6, 2 / 6, 3 / 6])
