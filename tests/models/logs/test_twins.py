"""The vectorised readers agree with the one card parser and the one tableau function everywhere."""

import itertools

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.game.cards import RANKS, SUITS, CardError, parse_card, parse_hand
from models.game.coup import score, tableau_violation
from models.game.games import Game
from models.logs import hands
from models.logs.checks import check_rounds

TOKENS = [r + s for r in [*RANKS, "10"] for s in ["", *SUITS]] + ["0", "1"]
TOKENS += [token.lower() for token in TOKENS]
BAD = ["", "1H", "0S", "XX", "9X", "11", "A1", "TT", "10X", "H9", "-1", "9HH"]


def _decoded(token: str) -> dict:
    frame = pl.DataFrame({"hand": [token]}).with_columns(hands.tokens("hand"))
    frame = frame.with_columns(*hands.card_at(pl.col("hand"), 0, "c"), bad=hands.bad_token(pl.col("hand")))
    return frame.row(0, named=True)


@pytest.mark.parametrize("token", TOKENS)
def test_every_valid_token_decodes_like_parse_card(token):
    card, row = parse_card(token), _decoded(token)
    assert row["bad"] is None
    assert row["c0_value"] == card.value
    assert row["c0_rank"] == (None if card.rank is None else card.rank - 1)
    assert row["c0_suit"] == (None if card.suit is None else SUITS.index(card.suit))


@pytest.mark.parametrize("token", [bad for bad in BAD if bad])
def test_every_bad_token_is_refused_by_both(token):
    with pytest.raises(CardError):
        parse_card(token)
    assert _decoded(token)["bad"] is not None


def _hand(values, third=None):
    cards = [str(v) for v in values] + ([] if third is None else [str(third)])
    return " ".join(cards)


@pytest.mark.parametrize("game", list(Game))
def test_tableau_check_equals_tableau_violation_on_every_case(game):
    rows = []
    for p1, p2, b1, b2 in itertools.product(range(10), repeat=4):
        for p3 in (None, 4, 8):
            for b3 in (None, 0):
                rows.append((_hand([p1, p2], p3), _hand([b1, b2], b3)))
    frame = pl.DataFrame(rows, schema=["player_cards", "banker_cards"], orient="row").with_columns(
        table_id=pl.lit("T"),
        shoe_id=pl.lit("S"),
        round_no=pl.int_range(1, pl.len() + 1).cast(pl.String),
        started_at=pl.lit("2026-11-01T10:00:00Z"),
        game=pl.lit(game.value),
        player2_cards=pl.lit("2 3" if game is Game.BACCARAT_BANQUE else None),
        _line=pl.int_range(1, pl.len() + 1),
    )
    checked = check_rounds(frame)
    for (player, banker), reason, detail in zip(rows, checked["reason"], checked["detail"], strict=True):
        expected = tableau_violation(game, [c.value for c in parse_hand(player)], [c.value for c in parse_hand(banker)])
        assert (reason == "tableau_violation") == (expected is not None), (player, banker, reason, detail)
        if expected:
            assert detail == expected


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([t for t in TOKENS if t]), min_size=2, max_size=3),
    st.lists(st.sampled_from(TOKENS), min_size=2, max_size=3),
)
@pytest.mark.slow
def test_totals_and_outcome_agree_with_score(player, banker):
    frame = pl.DataFrame(
        {"table_id": ["T"], "shoe_id": ["S"], "round_no": ["1"], "started_at": ["2026-11-01T10:00:00"],
         "player_cards": [" ".join(player)], "banker_cards": [" ".join(banker)], "_line": [1]}
    )  # fmt: skip
    row = check_rounds(frame).row(0, named=True)
    coup = score(parse_hand(" ".join(player)), parse_hand(" ".join(banker)))
    assert (row["player_total"], row["banker_total"], row["outcome"]) == (
        coup.player_total,
        coup.banker_total,
        coup.outcome,
    )
    assert row["player_pair"] == coup.player_pair and row["banker_pair"] == coup.banker_pair
