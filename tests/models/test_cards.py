import pytest
from hypothesis import given
from hypothesis import strategies as st

from models.game.cards import (
    RANKS,
    SUITS,
    Card,
    CardError,
    format_card,
    format_hand,
    hand_total,
    is_pair,
    parse_card,
    parse_hand,
)


@pytest.mark.parametrize(
    ("token", "value", "rank", "suit"),
    [
        ("9H", 9, 9, "H"),
        ("td", 0, 10, "D"),
        ("10s", 0, 10, "S"),
        ("Kc", 0, 13, "C"),
        ("AS", 1, 1, "S"),
        ("K", 0, 13, None),
        ("10", 0, 10, None),
        ("a", 1, 1, None),
        ("9", 9, 9, None),
        ("1", 1, 1, None),  # value-only ace
        ("0", 0, None, None),  # value-only ten-value card
    ],
)
def test_parse_card(token, value, rank, suit):
    assert parse_card(token) == Card(value=value, rank=rank, suit=suit)


@pytest.mark.parametrize(
    ("token", "complaint"),
    [("9X", "suit"), ("1H", "rank"), ("XX", "rank"), ("", "empty"), ("11", "rank"), ("0H", "rank")],
)
def test_bad_tokens_are_named(token, complaint):
    with pytest.raises(CardError) as error:
        parse_card(token)
    assert complaint in str(error.value)
    if token:
        assert repr(token) in str(error.value)


cards = st.one_of(
    st.builds(Card.of, st.integers(1, 13), st.sampled_from(SUITS)),
    st.builds(Card.of, st.integers(1, 13)),
    st.just(Card(value=0)),
)


@given(cards)
def test_format_then_parse_is_identity(card):
    assert parse_card(format_card(card)) == card


@given(
    st.sampled_from([*RANKS, "10"]),
    st.sampled_from([*SUITS, ""]),
    st.booleans(),
)
def test_parse_then_format_gives_the_canonical_token(rank, suit, lower):
    token = (rank + suit).lower() if lower else rank + suit
    assert format_card(parse_card(token)) == rank.replace("10", "T") + suit


@given(st.lists(cards, min_size=1, max_size=3))
def test_hand_round_trip(hand):
    assert parse_hand(format_hand(hand)) == tuple(hand)


def test_hand_total_is_modulo_ten():
    assert hand_total(card.value for card in parse_hand("9H 8D 7C")) == 4
    assert hand_total(card.value for card in parse_hand("KH QD")) == 0


def test_pairs_need_ranks():
    assert is_pair(parse_hand("9H 9S")) is True
    assert is_pair(parse_hand("KH QH")) is False
    assert is_pair(parse_hand("K K")) is True
    assert is_pair(parse_hand("0 0")) is None  # value-only tens: could be K and Q
    assert is_pair(parse_hand("0 5")) is False  # different values are never a pair
