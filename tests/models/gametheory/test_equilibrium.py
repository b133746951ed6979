"""The equilibria against the published solutions, a linear programme, and the definition.

Sources: Ethier and Gamez, "A game-theoretic analysis of baccara chemin de fer", Games 4(4) 2013
(arXiv 1305.5468), which restates Kemeny and Snell (1957) for model A1; Ethier and Lee, Games 14(5)
2023 (arXiv 2308.00118) for the commission. Our own exact figures, not published ones, are marked so.
"""

from fractions import Fraction

import pytest

from models.gametheory.equilibrium import solve
from models.gametheory.models import Model
from models.gametheory.payoffs import payoffs
from tests.models.gametheory.naive import every_pure_banker_reply_value, maximin


@pytest.fixture(scope="module")
def a1():
    return solve(payoffs(Model.A1, None))


def test_kemeny_and_snell_model_a1(a1):
    """Kemeny and Snell (1957), as restated by Ethier and Gamez (2013, their model A1): the unique
    solution has Player draw on 5 with probability 9/11 and Banker mix only on 6 when Player stood,
    drawing with probability 859/2288; the value to Player is about -0.0128."""
    assert len(a1) == 1
    (eq,) = a1
    assert eq.player == {"5": Fraction(9, 11)}
    assert eq.mixed_banker == [("6", 10)]
    assert eq.banker["6"][10] == Fraction(859, 2288)
    assert float(eq.player_value) == pytest.approx(-0.0128, abs=5e-5)


def test_a1_banker_plays_the_tableau_elsewhere(a1):
    """Ours: under A1 Banker's optimal play keeps every fixed cell of the house tableau (rules.md)
    except 6 when Player stood, and resolves the optional cells 3 v 9 and 5 v 4 as draws."""
    banker = a1[0].banker
    assert banker["3"][9] == 1 and banker["5"][4] == 1 and banker["3"][8] == 0
    assert banker["6"][6] == banker["6"][7] == 1 and banker["7"] == (0,) * 11


@pytest.mark.parametrize(("model", "decks"), [(Model.A1, None), (Model.B2, 6), (Model.B2, 8), (Model.B3, 6)])
def test_the_value_is_the_linear_programmes_maximin(model, decks):
    """A plain twin: Player's maximin by HiGHS equals the exact value, and Banker's best reply to the
    exact x holds Player to it."""
    p = payoffs(model, decks)
    (eq,) = solve(p)
    player = type(p.win)(c=p.win.c - p.lose.c, a=p.win.a - p.lose.a, b=p.win.b - p.lose.b, g=p.win.g - p.lose.g)
    value, _ = maximin(player, p.denominator)
    assert value == pytest.approx(float(eq.player_value), abs=1e-12)
    x = [float(v) for v in eq.player.values()]
    assert every_pure_banker_reply_value(model, player, p.denominator, x) == pytest.approx(value, abs=1e-12)
    assert eq.banker_value == -eq.player_value  # zero-sum without commission


@pytest.mark.parametrize("decks", [6, 8])
def test_b2_and_b3_mixing_ours(decks):
    """Ours (exact, to guard the code): under B2 and B3 Banker mixes only on 0+6 when Player stood;
    under B3 Player mixes only on 5 made 1+4, stands on 2+3 and draws on 0+5, 6+9, 7+8; seeing his
    own composition is worth something to Player (B3's value above B2's)."""
    b2, b3 = (solve(payoffs(model, decks))[0] for model in (Model.B2, Model.B3))
    assert b2.mixed_banker == b3.mixed_banker == [("0+6", 10)]
    assert b3.mixed_player == ["1+4"]
    assert {k: v for k, v in b3.player.items() if k != "1+4"} == {"0+5": 1, "2+3": 0, "6+9": 1, "7+8": 1}
    assert b3.player_value > b2.player_value


def test_exact_figures_ours():
    """Ours, exact, for 6 decks (the papers' shoe): to compare with Ethier and Gamez's tables."""
    (b2,) = solve(payoffs(Model.B2, 6))
    (b3,) = solve(payoffs(Model.B3, 6))
    assert b2.player["5"] == Fraction(477191, 592524)
    assert b3.player["1+4"] == Fraction(35003, 74880)
    assert float(b2.player_value) == pytest.approx(-0.012936712, abs=1e-9)
    assert float(b3.player_value) == pytest.approx(-0.012841014, abs=1e-9)


@pytest.mark.parametrize(("model", "decks"), [(Model.A1, None), (Model.B2, 6), (Model.B3, 8)])
def test_commission_gives_one_equilibrium(model, decks):
    """Ethier and Lee (2023), abstract: with the commission the game is a bimatrix game whose Nash
    equilibrium is, with rare exceptions, unique. At 5 % Banker's share is below Player's loss by the
    levy, and Player draws on 5 more often than in the parlour game (ours)."""
    parlour = solve(payoffs(model, decks))[0]
    (casino,) = solve(payoffs(model, decks), Fraction(1, 20))
    assert casino.banker_value < -casino.player_value
    chooser = "5" if model is not Model.B3 else "1+4"
    assert casino.player[chooser] > parlour.player[chooser]


def test_a1_commission_keeps_banker_mixing_where_player_is_indifferent():
    """Ours: in A1 Banker's mix still makes Player indifferent, so Player's expectation is the
    parlour game's while his own mix moves to 179/214 at 5 %."""
    (casino,) = solve(payoffs(Model.A1, None), Fraction(1, 20))
    assert casino.player == {"5": Fraction(179, 214)}
    assert casino.player_value == solve(payoffs(Model.A1, None))[0].player_value


def test_commission_out_of_range():
    with pytest.raises(ValueError, match="commission"):
        solve(payoffs(Model.A1, None), Fraction(3, 2))
