"""models/display.py: how a figure reads, for the dashboard, the reports and the terminal's tables."""

from __future__ import annotations

from decimal import Decimal

import pytest

from models import display
from models.game.games import Game
from models.game.paytable import BETS


def test_money_is_to_the_cent_with_separators_and_a_leading_minus():
    assert display.money(Decimal("1234.5")) == "1,234.50"
    assert display.money(Decimal("-40161.25")) == "-40,161.25"  # never "(40,161.25)"
    assert display.money(-0.004) == "-0.00"
    assert display.money(Decimal("12.5"), "EUR") == "EUR 12.50"
    assert display.money(Decimal("12.5"), signed=True) == "+12.50"
    assert display.money(None) == display.MISSING


@pytest.mark.parametrize(
    ("fraction", "kind", "shown"),
    [
        (0.01802, "hold", "1.80 %"),
        (-0.0146, "edge", "-1.46 %"),
        (0.095155, "rate", "9.52 %"),
        (0.115, "share", "11.5 %"),
        (0, "share", "0.0 %"),
        (Decimal("0.05"), "rate", "5.00 %"),
    ],
)
def test_a_percent_carries_the_decimals_of_its_kind(fraction, kind, shown):
    assert display.percent(fraction, kind) == shown


def test_a_percent_of_an_unknown_kind_is_refused():
    with pytest.raises(KeyError):
        display.percent(0.5, "ratio")


def test_points_are_a_signed_difference_of_fractions():
    assert display.points(-0.00102, "hold") == "-0.10 pts"
    assert display.points(0.0003, "rate") == "+0.03 pts"
    assert display.points(None) == display.MISSING


@pytest.mark.parametrize(
    ("p", "shown"),
    [(0.43, "0.43"), (0.0123, "0.012"), (0.00071, "0.00071"), (0.0001, "0.0001"), (1.0, "1"), (0.05, "0.05")],
)
def test_a_p_value_has_two_significant_digits(p, shown):
    assert display.p_value(p) == shown


@pytest.mark.parametrize("p", [6.9e-9, 0.00001, 0.0])
def test_a_p_value_below_the_smallest_reads_as_below_it(p):
    assert display.p_value(p) == "< 0.0001"


def test_every_game_and_bet_goes_by_a_name_without_underscores():
    for identifier in (*(game.value for game in Game), *BETS):
        name = display.name(identifier)
        assert "_" not in name and name[0].isupper(), identifier
    assert display.name("chemin_de_fer") == "Chemin de Fer"
    assert display.name("egalite_7") == "Égalité 7"
    assert display.name("tableau_violation") == "Tableau violation"
    assert display.name(None) == display.MISSING


@pytest.mark.parametrize(
    ("column", "kind", "header"),
    [
        ("drop", "money", "Drop (EUR)"),  # a decimal column: the type says money
        ("win_over_handle", "text", "Hold (%)"),
        ("tie_rate", "text", "Tie rate (%)"),
        ("hold_pct", "text", "Hold (%)"),
        ("pace_vs_median", "text", "Pace vs median"),
        ("theo_per_hour", "text", "Theo per hour (EUR)"),
        ("p_value", "text", "p-value"),
        ("table_id", "text", "Table"),
        ("coups", "count", "Coups"),
        ("quarantined_coups", "count", "Quarantined coups"),
    ],
)
def test_a_header_is_words_with_its_unit(column, kind, header):
    assert display.header(column, "EUR", display.kind(column, kind)) == header


def test_a_decimal_column_is_money_whatever_its_name_says():
    assert display.header("expected", "EUR") == "Expected (%)"  # the exact share of an outcome
    assert display.header("expected", "EUR", "money") == "Expected (EUR)"  # commission expected


def test_the_currency_is_the_settings():
    assert display.header("drop", "CHF", "money") == "Drop (CHF)"


def test_every_column_has_a_known_kind():
    assert {kind for _, kind in display.COLUMNS.values()} <= set(display.KINDS)
    assert all("_" not in words for words, _ in display.COLUMNS.values())
