"""Baccarat Banque: a Player hand's natural is settled against the banker's first two cards, by the
compiled sweep and by the full checks alike (Ethier and Lee; docs/rules.md)."""

import polars as pl
import pytest

from models.logs import checks

COUP = {
    "table_id": "T1",
    "shoe_id": "S1",
    "round_no": "1",
    "started_at": "2026-11-01T10:00:00+00:00",
    "game": "baccarat_banque",
    "player_cards": "8H KD",  # hand 1: a natural 8
    "player2_cards": "2H 2C 4D",  # hand 2: 4, drew to 8
    "banker_cards": "2C 3D 4S",  # the banker on 5 drew to 9 against hand 2
}


def _frame(*rows: dict) -> pl.DataFrame:
    frame = pl.DataFrame(list(rows)).with_columns(_line=pl.int_range(2, pl.len() + 2, dtype=pl.Int64))
    return checks._with_all_columns(frame, checks.ROUND_INPUT_COLUMNS)


@pytest.mark.parametrize("path", ["sweep", "full"])
def test_a_natural_wins_though_the_banker_drew_past_it_against_the_other_hand(path):
    frame = _frame(COUP)
    if path == "sweep":
        plain, _ = checks._swept_rounds(frame)
        assert plain.all()
        checked = checks.check_rounds(frame)
    else:
        checked = checks._check_rounds_fully(frame)
    row = checked.row(0, named=True)
    assert row["reason"] is None
    assert (row["outcome"], row["outcome2"]) == ("P", "B")
    assert (row["player_total"], row["banker_total"], row["player2_total"]) == (8, 9, 8)


def test_a_logged_outcome_that_settles_the_natural_against_the_banker_s_last_total_is_flagged():
    frame = _frame(COUP | {"outcome": "B"})
    assert not checks._swept_rounds(frame)[0].any()
    row = checks.check_rounds(frame).row(0, named=True)
    assert row["reason"] == "outcome_mismatch"
    assert row["detail"] == (
        "outcome says B but the cards give P (player 8, banker 9; a natural meets the banker's first two cards, 5)"
    )
    assert checks.check_rounds(_frame(COUP | {"outcome": "P"}))["reason"].to_list() == [None]


def test_both_hands_on_naturals_and_the_one_hand_games_are_unchanged():
    rows = [
        COUP | {"player2_cards": "9C KS", "banker_cards": "2C 3D"},  # both naturals: play ends
        COUP | {"game": "chemin_de_fer", "player2_cards": None, "banker_cards": "2C 3D"},
        COUP | {"game": "punto_banco", "player2_cards": None, "player_cards": "4H 3S", "banker_cards": "2H 3C 3D"},
    ]
    checked = checks.check_rounds(_frame(*rows))
    assert checked["reason"].to_list() == [None] * 3
    assert checked["outcome"].to_list() == ["P", "P", "B"]
    assert checked["outcome2"].to_list() == ["P", None, None]
