"""The solved game as plain data: what `banco games solve --json` prints."""

import json
from fractions import Fraction

from models.gametheory.models import Model
from models.gametheory.summary import solved


def test_a1_summary_and_the_tableau_cell_it_breaks():
    summary = solved(Model.A1, None)
    json.dumps(summary)  # plain data throughout
    assert summary["decks"] == "inf" and summary["commission"] == "0"
    assert summary["player"][0]["exact"] == "9/11"
    assert [row["hand"] for row in summary["banker"]] == [str(t) for t in range(8)]
    assert summary["differs_from_tableau"] == [
        {"hand": "6", "column": "stood", "equilibrium": 859 / 2288, "tableau": "stand"}
    ]
    assert Fraction(summary["banker_value_exact"]) == -Fraction(summary["player_value_exact"])


def test_b3_rows_are_compositions():
    summary = solved(Model.B3, 2, Fraction(1, 20))
    assert len(summary["banker"]) == 44 and {row["total"] for row in summary["banker"]} == set(range(8))
    assert [hand["hand"] for hand in summary["player"]] == ["0+5", "1+4", "2+3", "6+9", "7+8"]
    assert summary["commission"] == "1/20" and summary["banker_value"] < -summary["player_value"]
