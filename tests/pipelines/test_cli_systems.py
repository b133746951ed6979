"""`banco systems` as a user runs it: the installed console script, its figures equal to the models' own."""

import json
from decimal import Decimal
from pathlib import Path

import pytest

from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.systems.exact import session_distribution
from models.systems.rules import SYSTEMS, Limits
from pipelines.commands.systems import warehouse_shoes
from tests.pipelines.test_cli_ingest import banco


def systems(*args):
    return banco("systems", *args)


def as_json(*args) -> dict:
    result = systems(*args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_the_whole_question_with_every_default():
    result = systems("--system", "1-3-2-6", "--bet", "player", "--exact")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for label in ("expected result", "expected bets", "expected amount wagered", "house edge x action",
                  "P(goal)", "risk of ruin", "down", "even", "up"):  # fmt: skip
        assert label in out, label
    assert "lost the bankroll" not in out and "reached the goal" not in out  # unlimited bankroll, no goal
    assert systems("--system", "1-3-2-6", "--bet", "player").stdout == out  # --exact is the default mode


@pytest.mark.slow
def test_the_figures_are_the_models_own():
    shown = as_json("--system", "martingale", "--bet", "banker", "--unit", "25", "--bankroll", "2000",
                    "--goal", "500", "--max-bet", "5000", "--coups", "30")  # fmt: skip
    limits = Limits(unit=Decimal(25), bankroll=Decimal(2000), goal=Decimal(500), max_bet=Decimal(5000), coups=30)
    odds = exact_odds(Composition.full(8), Game.PUNTO_BANCO)
    exact = session_distribution(SYSTEMS["martingale"](), "banker", limits)
    figures = shown["exact"]
    assert figures["expected_result"] == pytest.approx(float(exact.expected_result), rel=1e-12)
    assert figures["expected_bets"] == pytest.approx(float(exact.expected_bets), rel=1e-12)
    assert figures["expected_wagered"] == pytest.approx(float(exact.expected_wagered), rel=1e-12)
    assert figures["p_goal"] == pytest.approx(float(exact.p_goal), rel=1e-12)
    assert figures["risk_of_ruin"] == pytest.approx(float(exact.risk_of_ruin), rel=1e-12)
    bands = figures["bands"]
    assert list(bands) == ["lost the bankroll", "down", "even", "up", "reached the goal"]
    assert sum(bands.values()) == pytest.approx(1.0, abs=1e-12)
    assert bands["reached the goal"] == pytest.approx(figures["p_goal"], abs=1e-12)
    # the identity: expected loss = the Banker bet's edge x the expected amount wagered
    assert figures["house_edge"] == pytest.approx(odds.bets(DEFAULT_PAYTABLE)["banker"].edge, rel=1e-9)
    assert figures["expected_loss"] == pytest.approx(figures["house_edge"] * figures["expected_wagered"], rel=1e-9)
    assert shown["limits"]["bankroll"] == "2000" and shown["limits"]["stop_loss"] is None


@pytest.mark.slow
def test_simulated_shoes_back_test_beside_the_exact():
    args = ("--system", "paroli", "--bet", "banker", "--shoes", "40", "--seed", "3")
    shown = as_json(*args)
    tested = shown["backtest"]
    assert tested["sessions"] == 40 and "seed 3" in tested["source"]
    assert [row["band"] for row in tested["bands"]] == list(shown["exact"]["bands"])
    assert sum(row["share"] for row in tested["bands"]) == pytest.approx(1.0)
    assert as_json(*args) == shown  # seeded: the same shoes again
    table = systems(*args)
    assert table.returncode == 0 and "back-test" in table.stdout


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    work = tmp_path_factory.mktemp("systems")
    dealt = banco("simulate", "--shoes", "12", "--tables", "2", "--seed", "5", "--no-bets", "--no-table-events",
                  "--out", str(work / "landing"))  # fmt: skip
    assert dealt.returncode == 0, dealt.stderr
    path = str(work / "banco.duckdb")
    loaded = banco("ingest", "--db", path, str(work / "landing"))
    assert loaded.returncode == 0, loaded.stderr
    return path


@pytest.mark.slow
def test_the_warehouse_shoes_and_a_pattern_followers_calibration(db):
    shown = as_json("--system", "follow-winner", "--bet", "banker", "--warehouse", "--db", db)
    assert shown["backtest"]["sessions"] == 12
    assert shown["calibration"]
    flat = as_json("--system", "flat", "--bet", "player", "--warehouse", "--db", db)
    assert flat["backtest"]["sessions"] == 12 and "calibration" not in flat


@pytest.mark.slow
def test_past_the_ceiling_the_warehouse_gives_a_fixed_sample_of_its_shoes(db):
    """Past lab.MAX_SHOES shoes (here 5 of 12) the back-test takes a fixed sample, in table and shoe order."""
    every, held = warehouse_shoes(Path(db), Game.PUNTO_BANCO, 8)
    assert held == len(every) == 12
    sample, held = warehouse_shoes(Path(db), Game.PUNTO_BANCO, 8, most=5)
    assert held == 12 and len(sample) == 5
    assert [every.index(shoe) for shoe in sample] == sorted(every.index(shoe) for shoe in sample)
    assert warehouse_shoes(Path(db), Game.PUNTO_BANCO, 8, most=5) == (sample, 12)


@pytest.mark.slow
def test_the_warehouse_mode_without_a_warehouse(tmp_path):
    result = systems("--system", "flat", "--bet", "banker", "--warehouse", "--db", str(tmp_path / "none.duckdb"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("suffix", [".html", ".json"])
@pytest.mark.slow
def test_plot_writes_the_chart(tmp_path, suffix):
    path = tmp_path / f"chart{suffix}"
    result = systems("--system", "dalembert", "--bet", "banker", "--coups", "20", "--shoes", "10", "--plot", str(path))
    assert result.returncode == 0, result.stderr
    assert path.stat().st_size > 0
    if suffix == ".json":
        assert "vega-lite" in json.loads(path.read_text())["$schema"]
    else:  # Vega's scripts inside the page, none fetched: it opens on a closed network
        assert "<script src=" not in path.read_text() and "vegaEmbed" in path.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--system", "lucky", "--bet", "banker"], "unknown system 'lucky': choose one of flat, martingale"),
        (["--system", "flat", "--bet", "dragon"], "invalid choice: 'dragon'"),
        (["--system", "flat", "--bet", "banker", "--unit", "-5"], "an amount is above 0"),
        (["--system", "flat", "--bet", "banker", "--bankroll", "lots"], "not an amount"),
        (["--system", "chop", "--bet", "tie"], "a tie bet makes no sense"),
        (["--system", "flat", "--bet", "banker", "--exact", "--shoes", "5"], "not allowed with argument"),
        (["--system", "flat", "--bet", "banker", "--coups", "0"], "a whole number from 1"),
        (["--system", "flat", "--bet", "banker", "--plot", "chart.pdf"], "written as .html"),
        (["--bet", "banker"], "the following arguments are required: --system"),
    ],
)
@pytest.mark.slow
def test_bad_arguments_give_one_line_and_non_zero_exit(args, message):
    result = systems(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


TOO_LARGE = ("--system", "labouchere", "--bet", "banker", "--max-states", "1000")


@pytest.mark.slow
def test_an_exact_chain_too_large_says_so_and_suggests_shoes():
    result = systems(*TOO_LARGE, "--exact")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "the exact distribution is too large for these settings" in result.stderr and "--shoes N" in result.stderr


@pytest.mark.slow
def test_too_large_a_chain_shows_the_back_test_alone(db):
    shown = as_json(*TOO_LARGE, "--shoes", "15")
    assert shown["exact"] is None and "the exact column is omitted" in shown["exact_omitted"]
    tested = shown["backtest"]
    assert tested["sessions"] == 15 and all(row["exact"] is None and row["z"] is None for row in tested["bands"])
    assert sum(row["share"] for row in tested["bands"]) == pytest.approx(1.0)
    table = systems(*TOO_LARGE, "--shoes", "15")
    assert table.returncode == 0, table.stderr
    assert "back-test" in table.stdout and "the exact column is omitted" in table.stdout
    assert "expected result" not in table.stdout
    warehouse = as_json(*TOO_LARGE, "--warehouse", "--db", db)
    assert warehouse["exact"] is None and warehouse["backtest"]["sessions"] == 12


@pytest.mark.slow
def test_the_warehouse_calls_are_rated_at_the_chosen_games_exact_odds(db):
    """The warehouse's shoes here are 8-deck punto_banco: the calibration's expected rate is that game's
    P(side) / (P(B) + P(P)), the same odds the summary states."""
    shown = as_json("--system", "chop", "--bet", "banker", "--warehouse", "--db", db, "--coups", "10")
    p = shown["p"]
    rates = {"B": p["banker"] / (p["banker"] + p["player"]), "P": p["player"] / (p["banker"] + p["player"])}
    assert shown["calibration"]
    for row in shown["calibration"]:
        assert row["expected_rate"] == pytest.approx(rates[row["side"]], rel=1e-12)
