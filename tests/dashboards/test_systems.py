"""The Systems lab page under AppTest: the exact figures equal the models' own, the back-test runs over the
filtered shoes of the small real warehouse, a pattern follower shows its calibration, and without a
warehouse the exact part still answers."""

from __future__ import annotations

from decimal import Decimal

import pytest

from dashboards import fmt
from models.game.games import Game
from models.settings import Settings
from models.systems import lab
from models.systems.rules import Limits
from tests.dashboards.test_pages import metric, open_app, scalar

PAGE = "systems"


def defaults(system: str = "flat", bet: str = "banker") -> lab.Question:
    return lab.Question(system, bet, Limits(max_bet=Settings.from_env().max_bet), Game.PUNTO_BANCO, 8)


def test_the_exact_figures_and_the_back_test(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, PAGE)
    assert at.title[0].value == "Systems lab"
    exact = lab.exact(defaults())
    assert metric(at, "Expected result") == fmt.money(exact.expected_result)
    assert metric(at, "Risk of ruin") == metric(at, "P(goal)") == fmt.MISSING  # no bankroll, no goal set
    assert "no betting system changes the house edge" in at.caption[0].value.lower()
    shoes = scalar(warehouse, "SELECT count(*) FROM core.shoes WHERE game = 'punto_banco' AND decks = 8")
    bands = at.dataframe[0].value
    assert list(bands.columns) == ["session", "exact", "back_test", "z"]
    assert bands["back_test"].sum() == pytest.approx(100)  # shares, shown in percent
    assert any(f"on {fmt.count(shoes)} Punto Banco shoes" in c.value for c in at.caption)
    assert len(at.get("vega_lite_chart")) == 1


def test_settings_change_the_question(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, PAGE)
    at.selectbox(key="systems_system").set_value("martingale").run()
    at.number_input(key="systems_bankroll").set_value(1000.0).run()
    at.number_input(key="systems_goal").set_value(200.0).run()
    assert not at.exception
    question = lab.with_limits(defaults("martingale"), bankroll=Decimal(1000), goal=Decimal(200))
    exact = lab.exact(question)
    assert metric(at, "P(goal)") == fmt.percent(float(exact.p_goal))
    assert metric(at, "Expected result") == fmt.money(exact.expected_result)
    assert "reached the goal" in at.dataframe[0].value["session"].tolist()


def test_a_pattern_follower_shows_its_calibration(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, PAGE)
    at.selectbox(key="systems_system").set_value("follow-winner").run()
    assert not at.exception
    assert "tie" not in at.selectbox(key="systems_bet").options
    assert "Does the pattern predict?" in [s.value for s in at.subheader]
    assert len(at.dataframe) == 2  # the bands, then the calibration
    assert len(at.get("vega_lite_chart")) == 2  # the session's result, then the calls against chance


def test_without_a_warehouse_the_exact_part_answers(tmp_path, monkeypatch):
    at = open_app(tmp_path / "banco.duckdb", monkeypatch, PAGE)
    assert metric(at, "Expected result") == fmt.money(lab.exact(defaults()).expected_result)
    assert "banco up" in at.info[0].value


def test_too_large_a_chain_shows_the_back_test_with_a_note(warehouse, monkeypatch):
    monkeypatch.setattr(lab, "MAX_STATES", 1000)  # the cap the page asks the chain for; labouchere passes it
    at = open_app(warehouse, monkeypatch, PAGE)
    at.selectbox(key="systems_system").set_value("labouchere").run()
    assert not at.exception and not at.error
    assert "the exact column is omitted" in at.info[0].value
    assert list(at.dataframe[0].value.columns) == ["session", "back_test"]
    assert len(at.get("vega_lite_chart")) == 1
