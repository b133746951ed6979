"""What each pattern backs, on short histories worked by hand."""

import random

import pytest

from models.systems.patterns import PATTERNS, calls, predict


@pytest.mark.parametrize(
    ("pattern", "shoe", "backs"),
    [
        ("follow-winner", "", None),
        ("follow-winner", "TT", None),
        ("follow-winner", "PB", "B"),
        ("follow-winner", "BPT", "P"),  # a tie is passed over
        ("chop", "", None),
        ("chop", "BPT", "B"),
        ("chop", "PPB", "P"),
        ("follow-column", "BBB", None),  # one column: nothing to copy yet
        ("follow-column", "BBBP", "P"),  # the Player column is shorter than the Banker's: it goes on
        ("follow-column", "BBBPP", "P"),
        ("follow-column", "BBBPPP", "B"),  # as long: a new column
        ("follow-column", "BBBPPPP", "B"),  # longer still: the new column is overdue
        ("follow-column", "BPT", "B"),
        ("follow-column", "BBPT", "P"),
        ("ask-big-eye-boy", "B", None),  # the big eye boy starts with the second column
        ("ask-big-eye-boy", "BP", "B"),  # Banker would add red (two columns alike), Player blue
        ("ask-big-eye-boy", "BBP", "P"),  # Player would add red, Banker blue
        ("ask-big-eye-boy", "BPTT", "B"),
        ("ask-small-road", "BP", None),
        ("ask-small-road", "BPB", "P"),
        ("ask-small-road", "PBPBB", "B"),
        ("ask-cockroach-pig", "BPB", None),
        ("ask-cockroach-pig", "BBPPBP", "P"),
    ],
)
def test_each_pattern_by_hand(pattern, shoe, backs):
    assert predict(pattern, shoe) == backs


def test_follow_column_and_the_big_eye_boy_differ_only_past_the_column_before():
    # the big eye boy's red ask cell backs a column that has outrun the one before it; follow-column ends it
    assert predict("ask-big-eye-boy", "BBBPPPP") == "P" and predict("follow-column", "BBBPPPP") == "B"
    assert predict("ask-big-eye-boy", "BBBPP") == predict("follow-column", "BBBPP") == "P"


def test_calls_through_a_shoe_are_predict_before_every_coup():
    rng = random.Random(7)
    for _ in range(60):
        shoe = rng.choices("BPT", weights=(46, 45, 9), k=rng.randrange(0, 90))
        for pattern in PATTERNS:
            assert calls(pattern, shoe) == [predict(pattern, shoe[:i]) for i in range(len(shoe))], (pattern, shoe)


def test_an_unknown_pattern_is_refused_in_one_line():
    with pytest.raises(ValueError, match="unknown pattern 'martingale'"):
        predict("martingale", "BP")
