"""The exact chain against brute force, simulation, the identity, and published analyses."""

import itertools
from collections import defaultdict
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from models.systems.backtest import against_exact, backtest, session
from models.systems.exact import CoupOdds, TooLarge, session_distribution, session_distributions
from models.systems.patterns import PATTERNS
from models.systems.rules import SYSTEMS, Limits, OneThreeTwoSix, Table, system_of

EIGHT_DECKS = CoupOdds.exact()
P_OUTCOME = {outcome: Fraction(0) for outcome in "BPT"}
for _outcome, _weight, _ in EIGHT_DECKS.events:
    P_OUTCOME[_outcome] += Fraction(_weight, EIGHT_DECKS.total)
NETS = {(side, o): nets["BPT".index(side)] for o, _, nets in EIGHT_DECKS.events for side in "BPT"}


def brute_force(name: str, bet: str, limits: Limits) -> tuple[dict, Fraction, Fraction]:
    """Every outcome sequence of the session's length played coup by coup: the result's
    distribution, the expected bets and the expected amount wagered."""
    distribution, bets, wagered = defaultdict(Fraction), Fraction(0), Fraction(0)
    table = Table.of(limits)
    for outcomes in itertools.product("BPT", repeat=limits.coups):
        p = Fraction(1)
        for outcome in outcomes:
            p *= P_OUTCOME[outcome]
        _, n, staked, result, _ = session(system_of(name), bet[0].upper(), table, outcomes, NETS)
        distribution[result] += p
        bets += p * n
        wagered += p * staked
    return dict(distribution), bets, wagered


CASES = [
    ("flat", "banker", Limits(coups=6)),
    ("martingale", "banker", Limits(coups=7, max_bet=100, bankroll=300, goal=60)),
    ("paroli", "player", Limits(coups=6, stop_loss=75)),
    ("dalembert", "banker", Limits(coups=6, bankroll=150)),
    ("fibonacci", "player", Limits(coups=6, max_bet=75)),
    ("labouchere", "banker", Limits(coups=6, bankroll=250, goal=100)),
    ("1-3-2-6", "player", Limits(coups=7, goal=150, stop_loss=100)),
    ("martingale", "tie", Limits(coups=6, max_bet=100)),
    *((pattern, "banker", Limits(coups=7, bankroll=100)) for pattern in PATTERNS),
]


@pytest.mark.parametrize(("name", "bet", "limits"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_chain_is_brute_force_enumeration_exactly(name, bet, limits):
    exact = session_distribution(name, bet, limits, exact=True)
    distribution, bets, wagered = brute_force(name, bet, limits)
    assert {Fraction(value): p for value, p in exact.distribution.items()} == {
        value: p for value, p in distribution.items() if p
    }
    assert exact.expected_bets == pytest.approx(float(bets), rel=1e-12)
    assert exact.expected_wagered == pytest.approx(float(wagered), rel=1e-12)
    floats = session_distribution(name, bet, limits)
    assert floats.expected_result == pytest.approx(exact.expected_result, rel=1e-9)
    assert sum(exact.ends.values()) == 1


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_expected_loss_is_the_edge_times_the_action(name):
    """The chain asserts the identity itself; here it is checked from outside as well."""
    exact = session_distribution(name, "banker", Limits(coups=20, bankroll=2000, goal=500))
    edges = exact.edges
    assert edges["B"] == pytest.approx(0.010579, abs=5e-7) and edges["P"] == pytest.approx(0.012351, abs=5e-7)
    mean = sum(float(v) * p for v, p in exact.distribution.items())
    assert mean == pytest.approx(exact.expected_result, rel=1e-9)
    if name in PATTERNS:  # both sides backed: the edge lies between theirs
        assert edges["B"] - 1e-12 <= exact.edge <= edges["P"] + 1e-12
    else:
        assert exact.expected_result == pytest.approx(-edges["B"] * exact.expected_wagered, rel=1e-9)


def test_a_pattern_tracks_its_side_because_banker_and_player_pay_differently():
    """With Banker and Player paying alike, any pattern's session is the flat staker's; with the
    real odds and commission the side matters, so the chain keeps the pattern's columns."""
    symmetric = CoupOdds.of((Fraction(45, 100), Fraction(45, 100), Fraction(10, 100)), {"B": 1})
    limits = Limits(coups=12, bankroll=150)
    chop, follow = (
        session_distribution(p, "banker", limits, symmetric).distribution for p in ("chop", "follow-winner")
    )
    assert chop.keys() == follow.keys() and all(chop[k] == pytest.approx(follow[k], abs=1e-15) for k in chop)
    real = [session_distribution(p, "banker", limits) for p in ("chop", "follow-winner")]
    assert real[0].expected_result != pytest.approx(real[1].expected_result, rel=1e-6)


def simulated_shoes(n: int, coups: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    p = [float(P_OUTCOME[o]) for o in "BPT"]
    return ["".join(row) for row in rng.choice(np.array(list("BPT")), p=p, size=(n, coups))]


@pytest.mark.parametrize(
    ("name", "bet", "limits"),
    [
        ("martingale", "banker", Limits(bankroll=2000, goal=500)),
        ("1-3-2-6", "player", Limits(stop_loss=300)),
        ("dalembert", "banker", Limits(bankroll=1000)),
        ("follow-column", "banker", Limits(goal=200, coups=40)),
        pytest.param("ask-big-eye-boy", "banker", Limits(goal=200), marks=pytest.mark.slow),  # about a minute
    ],
)
@pytest.mark.slow
def test_the_exact_distribution_matches_simulated_sessions(name, bet, limits):
    shoes = simulated_shoes(3000, limits.coups, seed=sum(map(ord, name)))
    sessions = backtest(name, bet, limits, shoes)
    agreement = against_exact(name, bet, limits, sessions)
    assert agreement.p_value > 1e-3, agreement.table
    spread = float(np.std([float(r) for r in sessions["result"]])) / np.sqrt(sessions.height)
    assert abs(agreement.sampled_mean - agreement.exact_mean) < 4 * spread


def test_a_chain_too_large_says_so_in_one_line():
    with pytest.raises(ValueError, match="too large for an exact chain"):
        session_distribution("labouchere", "banker", Limits(), max_states=1000)


@pytest.mark.parametrize(
    ("name", "limits", "caps", "reason"),
    [
        # Labouchere meets a new system state almost every pair: its time is in working them out
        ("labouchere", Limits(), {"max_system_states": 500}, "passes 500 system states by coup"),
        # a flat session's pairs stay few, but a long one walks them coup after coup
        ("flat", Limits(coups=5000), {"max_pair_coups": 20_000}, "passes 20,000 states walked"),
    ],
)
def test_the_walks_time_is_capped_as_well_as_its_pairs(name, limits, caps, reason):
    with pytest.raises(TooLarge, match=reason) as raised:
        session_distribution(name, "player", limits, **caps)
    assert "too large for an exact chain" in str(raised.value) and "\n" not in str(raised.value)
    session_distribution(name, "player", replace(limits, coups=3), **caps)  # a short session is within both


def test_amounts_past_whole_int64_ticks_are_too_large_not_wrapped():
    with pytest.raises(TooLarge, match="64-bit whole numbers"):
        session_distribution("martingale", "banker", Limits(bankroll=Decimal("1e30")))
    with pytest.raises(TooLarge, match="ticks of 5E-17"):  # a unit this fine needs too many ticks
        session_distribution("flat", "banker", Limits(unit=Decimal("1e-15"), min_bet=Decimal("1e-15")))
    session_distribution("martingale", "banker", Limits(bankroll=Decimal("1e9"), max_bet=Decimal("1e9"), coups=5))


class OneSequence:
    """The 1-3-2-6 for one sequence (to a loss or the fourth win), then sitting out: one session as
    the Wizard of Odds counts it (a tie repeats the bet)."""

    name = "1-3-2-6 once"

    def __init__(self):
        self.inner = OneThreeTwoSix()

    def start(self):
        return 0, False

    def stake(self, state):
        return 0 if state[1] else self.inner.stake(state[0])

    def side(self, state, bet):
        return None if state[1] else bet

    def after(self, state, outcome, won):
        if state[1] or won is None:
            return state
        step = self.inner.after(state[0], outcome, won)
        return step, step == 0

    def restart(self, state):
        return 0, True


def test_wizard_of_odds_1_3_2_6_on_the_player_bet():
    """https://wizardofodds.com/gambling/1-3-2-6-betting-system/ : the 1-3-2-6 on baccarat's Player
    bet (8 decks), one sequence: net -1, -2, +2, 0, +12 units with probabilities 0.506825, 0.249953,
    0.123271, 0.060794, 0.059157; expected loss 0.050308 units per session, 4.073271 units bet,
    ratio 0.012351."""
    exact = session_distribution(OneSequence(), "player", Limits(unit=1, min_bet=1, coups=60))
    published = {-1: 0.506825, -2: 0.249953, 2: 0.123271, 0: 0.060794, 12: 0.059157}
    for units, p in published.items():
        assert float(exact.distribution[Decimal(units)]) == pytest.approx(p, abs=5e-7)
    assert exact.expected_result == pytest.approx(-0.050308, abs=5e-7)
    assert exact.expected_wagered == pytest.approx(4.073271, abs=5e-7)
    assert exact.edge == pytest.approx(0.012351, abs=5e-7)


#: n, P(the series wins) %, average units bet, expected units per series.
GAMBLECRAFT = [
    (1, 48.648649, 1.000000, -0.027027),
    (2, 73.630387, 2.027027, -0.054785),
    (3, 86.458847, 3.081812, -0.083292),
    (4, 93.046435, 4.165104, -0.112570),
    (5, 96.429250, 5.277674, -0.142640),
    (6, 98.166372, 6.420314, -0.173522),
    (7, 99.058407, 7.593836, -0.205239),
    (8, 99.516479, 8.799075, -0.237813),
    (9, 99.751706, 10.036888, -0.271267),
    (10, 99.872497, 11.308155, -0.305626),
]


@pytest.mark.parametrize(("n", "win", "bet", "ev"), GAMBLECRAFT)
def test_gamblecraft_martingale_n_on_single_zero_roulette(n, win, bet, ev):
    """http://www.gamblecraft.com/review/roulette/martingale.htm : Martingale-n (at most n doublings'
    worth of bets: a series wins 1 unit or loses 2^n - 1) on an even-money bet of single-zero roulette,
    p = 18/37, no pushes. Run on that game's probabilities: goal 1 unit, stop-loss 2^n - 1 units."""
    limits = Limits(unit=1, min_bet=1, max_bet=2**n, goal=1, stop_loss=2**n - 1, coups=n)
    exact = session_distribution("martingale", "B", limits, CoupOdds.even_money(Fraction(18, 37), Fraction(19, 37)))
    assert 100 * float(exact.p_goal) == pytest.approx(win, abs=5e-7)
    assert exact.expected_wagered == pytest.approx(bet, abs=5e-7)
    assert exact.expected_result == pytest.approx(ev, abs=5e-7)
    assert exact.edge == pytest.approx(1 / 37, rel=1e-12)


def test_wikipedia_martingale_on_double_zero_roulette():
    """https://en.wikipedia.org/wiki/Martingale_(betting_system) (as mirrored at
    http://funeral-directors-cobham.co.uk/us-politics/sports-betting-strategies-wiki.html): American
    roulette, p = 18/38, a 63-unit bankroll allows six losses: the round wins with 0.978744, and the
    expected amount lost is 63 x 0.021256 = 1.339118 units."""
    limits = Limits(unit=1, min_bet=1, max_bet=64, bankroll=63, goal=1, coups=6)
    exact = session_distribution("martingale", "B", limits, CoupOdds.even_money(Fraction(18, 38), Fraction(20, 38)))
    assert float(exact.p_goal) == pytest.approx(0.978744, abs=5e-7)
    assert 63 * float(exact.ends["ruin"]) == pytest.approx(1.339118, abs=5e-7)


def test_readybetgo_seven_baccarat_losses_in_a_row_about_one_in_116():
    """https://readybetgo.com/casino-gambling/strategy/strategy-588.html : "the odds for seven
    consecutive ... baccarat losses are about 1 in 116" (the Player bet, ties pushing). A Martingale
    that stops at a 1-unit win or after seven losses (127 units) fails that often on 8 decks."""
    limits = Limits(unit=1, min_bet=1, max_bet=128, goal=1, stop_loss=127, coups=300)
    exact = session_distribution("martingale", "player", limits)
    assert round(1 / float(exact.ends["stop-loss"])) == 116
    assert float(exact.ends["goal"] + exact.ends["stop-loss"]) == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize(
    ("name", "bet", "limits"),
    [
        ("martingale", "banker", Limits(coups=12, bankroll=1000, goal=150, max_bet=400)),
        ("labouchere", "player", Limits(coups=10, stop_loss=300)),
        ("fibonacci", "tie", Limits(coups=9, bankroll=500)),
        ("ask-small-road", "banker", Limits(coups=14, goal=100)),
        ("dalembert", "banker", Limits(coups=11, unit=10, min_bet=5, bankroll=Decimal("87.5"))),
    ],
)
def test_the_fast_walk_equals_its_exact_twin(name, bet, limits):
    """The compiled walk in floats (the default) gives what the Fraction walk gives: the same results,
    each with its probability, the same ends and expectations."""
    fast, exact = (session_distribution(name, bet, limits, exact=e) for e in (False, True))
    assert fast.distribution.keys() == exact.distribution.keys()
    for value, p in exact.distribution.items():
        assert fast.distribution[value] == pytest.approx(float(p), rel=1e-12, abs=1e-300)
    for end, p in exact.ends.items():
        assert fast.ends[end] == pytest.approx(float(p), rel=1e-12, abs=1e-15)
    assert fast.expected_result == pytest.approx(exact.expected_result, rel=1e-12)
    assert fast.expected_bets == pytest.approx(exact.expected_bets, rel=1e-12)
    assert fast.expected_wagered == pytest.approx(exact.expected_wagered, rel=1e-12)


def test_horizons_from_one_fast_walk_equal_separate_walks():
    limits = Limits(coups=15, bankroll=600, goal=200)
    walked = session_distributions("1-3-2-6", "banker", limits, horizons=[5, 15])
    for n in (5, 15):
        alone = session_distribution("1-3-2-6", "banker", replace(limits, coups=n))
        assert walked[n].distribution == alone.distribution and walked[n].ends == alone.ends
