"""Baccara banque's three solutions against the published claims, the definitions and a plain twin.

Source: S. N. Ethier and J. Lee, "On the three-person game baccara banque", Games 6(2) 2015, 57-78
(doi 10.3390/g6020057). Only its abstract and Section 1 (the rules) could be read here, so the
figures of its later sections are not checked; the claims tested are the abstract's. Kemeny and
Snell's (1957) model A1 figures, as restated by Ethier and Gamez (Games 4(4) 2013), are the one-Player
limit. Our own exact figures, not published ones, are marked "ours".
"""

import json
from fractions import Fraction

import pytest

from models.gametheory.banque import parse_theta, render, solve_banque
from models.gametheory.banque_cooperative import correlated, independent, lower_value, upper_value
from models.gametheory.banque_game import banker_value
from models.gametheory.banque_house import house_view, policy_banker, policy_players
from models.gametheory.banque_nash import _is_nash, float_game, nash
from models.gametheory.banque_payoffs import Cell
from tests.models.gametheory import naive_banque

HALF, THREE_FIFTHS, NINE_TENTHS = Fraction(1, 2), Fraction(3, 5), Fraction(9, 10)


@pytest.fixture(scope="module")
def half():
    return solve_banque(HALF)


def test_one_player_limit_is_kemeny_and_snell():
    """Kemeny and Snell (1957), restated by Ethier and Gamez (2013, model A1): Player draws on 5 with
    probability 9/11 and the value to Banker is about 0.0128. With Player 2 staking nothing (theta 1)
    banque is that game: the banker's best reply to 9/11 concedes exactly the Chemin de Fer room's
    A1 value (a second, independent implementation)."""
    from models.gametheory.equilibrium import solve
    from models.gametheory.models import Model
    from models.gametheory.payoffs import payoffs

    law = {(1, 1): Fraction(9, 11), (0, 1): Fraction(2, 11)}
    value = upper_value(Fraction(1), law)
    assert value == -solve(payoffs(Model.A1, None))[0].player_value
    assert float(value) == pytest.approx(0.0128, abs=5e-5)


@pytest.mark.parametrize("theta", [Fraction(1, 10), HALF, Fraction(3, 4), NINE_TENTHS])
def test_the_correlated_equilibrium_always_exists(theta):
    """Abstract: the correlated cooperative equilibrium "always exists". Ours: it is exact, and
    certified so: the banker's strategy guarantees what the team's law concedes, to the last digit."""
    s = correlated(theta)
    assert s.exists and s.exact
    assert lower_value(theta, s.banker) == s.value == upper_value(theta, s.players)
    assert sum(s.players.values()) == 1 and min(s.players.values()) >= 0


def test_the_players_are_interchangeable():
    """Ours: theta and 1 - theta are the same game with the Players' names swapped."""
    a, b = correlated(Fraction(1, 10)), correlated(NINE_TENTHS)
    assert a.value == b.value
    assert a.players[(0, 1)] == b.players[(1, 0)]


@pytest.mark.parametrize(
    ("theta", "exists"), [(HALF, False), (THREE_FIFTHS, True), (Fraction(7, 10), True), (NINE_TENTHS, False)]
)
def test_the_independent_equilibrium_exists_only_for_certain_theta(theta, exists):
    """Abstract: the independent cooperative equilibrium (Downton and Lockwood's preferred solution)
    "exists only for certain theta". Ours: where it exists both Players draw on 5 with probability
    9/11 and the team's law is the product; at 1/2 and 9/10 no independent law reaches the value."""
    joint = correlated(theta)
    s = independent(theta, joint)
    assert s.exists is exists
    if exists:
        assert s.draws_on_5(1) == s.draws_on_5(2) == Fraction(9, 11)
        assert s.value == joint.value


def test_nash_at_even_stakes(half):
    """Ours: at theta 1/2 the Nash equilibrium is exact: both Players draw on 5 with Kemeny and
    Snell's 9/11; the banker mixes only on 6 where a Player stood and the other stood or has a natural
    (his mix there is a family: the one returned draws on 6 against two stands with 2238655/3807232);
    no one gains by deviating."""
    s = half.solutions[0]
    assert s.exact and s.draws_on_5(1) == s.draws_on_5(2) == Fraction(9, 11)
    mixed = {c for c, p in s.banker.items() if 0 < p < 1}
    assert mixed <= {Cell(6, "S", "S"), Cell(6, "S", "N"), Cell(6, "N", "S")}
    assert s.banker[Cell(6, "S", "S")] == Fraction(2238655, 3807232)
    assert _is_nash(HALF, float_game(HALF), Fraction(9, 11), Fraction(9, 11), s.banker)


def test_cooperation_costs_the_banker(half):
    """Ours, by definition: the team's correlated value is the least the banker can be held to, so the
    Nash value is no smaller; at 1/2 the team saves him about 3 parts in a million per unit."""
    nash_, _, joint = half.solutions
    assert joint.value < nash_.value
    assert float(nash_.value - joint.value) == pytest.approx(3.0e-6, abs=2e-7)
    assert float(joint.value) == pytest.approx(0.0086773940, abs=1e-10)


def test_payoffs_match_the_plain_twin(half):
    """The exact payoffs against a game tree walked straight from the rules (floats): the correlated
    solution at 1/2, and the project's default banker at 3/4."""
    joint = half.solutions[2]
    assert naive_banque.banker_value(HALF, joint.players, joint.banker) == pytest.approx(float(joint.value), abs=1e-12)
    theta = Fraction(3, 4)
    players, banker = policy_players(), policy_banker(theta)
    assert naive_banque.banker_value(theta, players, banker) == pytest.approx(
        float(banker_value(theta, players, banker)), abs=1e-12
    )


def test_the_project_banker_at_even_stakes():
    """Ours: drawing as Punto Banco against the larger stake, the banker wins about 1.23% from that
    side (Punto Banco's banker edge, one deck with replacement) and loses about 4.14% to the other,
    so at even stakes he loses about 1.46% of the total; his best reply to the same punters wins."""
    one = house_view(Fraction(1))
    assert float(one["policy"]) == pytest.approx(0.0122814, abs=1e-7)
    even = house_view(HALF)
    assert float(even["policy"]) == pytest.approx(-0.0145724, abs=1e-7)
    assert even["best_reply_to_policy_punters"] > 0


def test_nash_away_from_even_stakes():
    """Ours: at theta 9/10 the Nash equilibrium leaves 9/11: Player 1 draws on 5 about 0.8605 of the
    time, Player 2 about 0.2949, where two of the banker's indifference curves cross: quadratic surds."""
    s = nash(NINE_TENTHS)
    assert s.exists and not s.exact
    assert s.closed_form == ("-67531/33088 + sqrt(9216910201)/33088", "-1296973/485312 + 15*sqrt(9216910201)/485312")
    assert float(s.draws_on_5(1)) == pytest.approx(0.860546, abs=1e-6)
    assert float(s.draws_on_5(2)) == pytest.approx(0.294858, abs=1e-6)
    assert s.value >= correlated(NINE_TENTHS).value


def test_the_cli_shape(half):
    """`solve_banque(theta).to_json()` is plain JSON, and `render` prints the three solutions."""
    summary = json.loads(json.dumps(half.to_json()))
    assert set(summary["solutions"]) == {"nash", "independent", "correlated"}
    assert summary["solutions"]["independent"] == {"exists": False}
    assert len(summary["solutions"]["nash"]["banker_table"]["6"]) == 12
    text = render(summary)
    assert "Correlated cooperative equilibrium" in text and "does not exist" in text


@pytest.mark.parametrize("text", ["0", "1", "1.5", "-1/2"])
def test_theta_outside_zero_one_is_refused(text):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        parse_theta(text)


def test_the_banker_tables_read_as_the_docs_say(half):
    """Ours (docs/gametheory.md): under each solution at 1/2 the banker draws on 0-2 and stands on 7
    everywhere; on 6 he draws only when each Player shows a natural, a stand, a 6 or a 7 and at least
    one shows a 6 or 7, and he mixes only where a Player stood."""
    states = ["N", "S", *map(str, range(10))]
    for s in half.solutions:
        if not s.exists:
            continue
        table = half.to_json()["solutions"][s.kind]["banker_table"]
        assert all(set(row) <= {"D", "-"} for total in "012" for row in table[total])
        assert all(set(row) <= {"S", "-"} for row in table["7"])
        for first, row in zip(states, table["6"], strict=True):
            for second, mark in zip(states, row, strict=True):
                shown = {first, second}
                draws = shown <= {"N", "S", "6", "7"} and shown & {"6", "7"}
                if mark == "D":
                    assert draws
                elif mark == "*":
                    assert "S" in shown
                elif mark == "S":
                    assert not draws or "S" in shown
