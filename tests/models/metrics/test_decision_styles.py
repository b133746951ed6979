"""Each player's style on the free decisions: hand-made players of each style are found, a slip is
forgiven, too few decisions name none, and styles the choices cannot tell apart are named together."""

import math
from decimal import Decimal

import polars as pl
import pytest

from models.metrics.decision_styles import COLUMNS, MARGIN, MIN_DECISIONS, TREMBLE, decision_styles

#: The information sets a player meets in turn: the equilibrium's draw there and the house's.
CELLS = [(1.0, 1.0), (0.0, 1.0), (0.63, 1.0), (1.0, 0.0), (0.0, 0.0)]


def _decisions(player: str, choices: list[str], cells: list[tuple[float, float]], decider: str = "punter"):
    return pl.DataFrame(
        {
            "game": "chemin_de_fer",
            "decider": decider,
            "player_id": player,
            "choice": choices,
            "cost": [0.0] * len(choices),
            "cost_money": pl.Series([Decimal(0)] * len(choices), dtype=pl.Decimal(18, 4)),
            "equilibrium_draw": [cell[0] for cell in cells],
            "house_draw": [cell[1] for cell in cells],
        }
    )


def _faced(n: int) -> list[tuple[float, float]]:
    return [CELLS[i % len(CELLS)] for i in range(n)]


def _equilibrium_player(n: int) -> list[str]:
    """Draws where the equilibrium draws, stands where it stands, and on the mixed cell draws 63 times in 100."""
    mixed = iter(["draw"] * 63 + ["stand"] * 37)
    return ["draw" if p == 1.0 else "stand" if p == 0.0 else next(mixed) for p, _ in _faced(n)]


def _styles(*frames: pl.DataFrame, **kwargs) -> dict[str, dict]:
    got = decision_styles(pl.concat(frames).lazy(), **kwargs)
    assert got.columns == list(COLUMNS)
    return {row["player_id"]: row for row in got.iter_rows(named=True)}


def test_each_style_is_found():
    n = 500  # the mixed cell 100 times
    got = _styles(
        _decisions("STANDS", ["stand"] * n, _faced(n)),
        _decisions("DRAWS", ["draw"] * n, _faced(n)),
        _decisions("EQUILIBRIUM", _equilibrium_player(n), _faced(n)),
        _decisions("HOUSE", ["draw" if house else "stand" for _, house in _faced(n)], _faced(n)),
    )
    assert {player: row["style"] for player, row in got.items()} == {
        "STANDS": "always_stand", "DRAWS": "always_draw", "EQUILIBRIUM": "equilibrium", "HOUSE": "house",
    }  # fmt: skip
    assert all(row["evidence"] > 10 for row in got.values())
    assert got["DRAWS"]["drew"] == n and got["STANDS"]["drew"] == 0 and got["DRAWS"]["decisions"] == n
    # the equilibrium player's log-likelihood under it: each choice's probability, the pure cells' 1
    mixed = 63 * math.log(0.63) + 37 * math.log(0.37)
    assert got["EQUILIBRIUM"]["loglik_equilibrium"] == pytest.approx(mixed)


def test_a_slip_is_forgiven_at_the_tremble():
    choices = ["stand"] * 29 + ["draw"]
    got = _styles(_decisions("P", choices, [(0.63, 1.0)] * 30))["P"]
    assert got["loglik_always_stand"] == pytest.approx(math.log(TREMBLE))  # not minus infinity
    assert got["style"] == "always_stand"
    assert got["evidence"] == pytest.approx(got["loglik_always_stand"] - got["loglik_equilibrium"])


def test_too_few_decisions_name_no_style():
    short = _styles(_decisions("P", ["stand"] * (MIN_DECISIONS - 1), _faced(MIN_DECISIONS - 1)))["P"]
    assert short["style"] is None and short["evidence"] is None and short["loglik_always_stand"] == 0.0
    enough = _styles(_decisions("P", ["stand"] * MIN_DECISIONS, _faced(MIN_DECISIONS)))["P"]
    assert enough["style"] == "always_stand"


def test_styles_that_predict_the_same_are_named_together():
    # a punter who always draws, where the house always draws too: nothing tells the two apart
    got = _styles(_decisions("P", ["draw"] * 30, [(0.63, 1.0)] * 30))["P"]
    assert got["style"] == "always_draw or house"
    assert got["loglik_always_draw"] == got["loglik_house"] == 0.0
    assert got["evidence"] == pytest.approx(-30 * math.log(0.63))  # over the equilibrium, the runner-up


def test_styles_within_the_margin_are_not_told_apart():
    # eleven draws where every style but standing draws, and one draw where the equilibrium mixes
    got = _styles(_decisions("P", ["draw"] * 12, [(1.0, 1.0)] * 11 + [(0.63, 1.0)]))["P"]
    assert got["loglik_equilibrium"] == pytest.approx(math.log(0.63)) and math.log(0.63) > -MARGIN
    assert got["style"] == "always_draw or equilibrium or house"
    assert got["evidence"] == pytest.approx(-12 * math.log(TREMBLE))  # over always standing, told apart
    # the same player meeting the mixed cell nine times more: the equilibrium is now told apart
    more = _styles(_decisions("P", ["draw"] * 21, [(1.0, 1.0)] * 11 + [(0.63, 1.0)] * 10))["P"]
    assert more["style"] == "always_draw or house"
    assert more["evidence"] == pytest.approx(-10 * math.log(0.63))


def test_a_decision_without_a_player_is_left_out():
    anonymous = _decisions("P", ["draw"] * 3, _faced(3)).with_columns(player_id=pl.lit(None, pl.String))
    got = decision_styles(pl.concat([anonymous, _decisions("Q", ["draw"], _faced(1))]).lazy())
    assert got.select("player_id", "decisions").rows() == [("Q", 1)]
