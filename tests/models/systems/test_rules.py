"""Each system's stakes by hand on short histories, the table's and the bankroll's caps, the patterns' memory."""

from decimal import Decimal

import numpy as np
import pytest

from models.systems.backtest import backtest
from models.systems.patterns import PATTERNS, predict
from models.systems.rules import PATTERN_MEMORY, SYSTEMS, Limits, PatternFollower, Table, last_columns, system_of


def stakes(name: str, results: str) -> list[int]:
    """The stakes a system asks for before each coup, given W(in), L(oss), T(push) in turn."""
    system = system_of(name)
    state, asked = system.start(), []
    for r in results:
        asked.append(system.stake(state))
        state = system.after(state, "B", {"W": True, "L": False, "T": None}[r])
    return [*asked, system.stake(state)]


@pytest.mark.parametrize(
    ("name", "results", "expected"),
    [
        ("flat", "LWT", [1, 1, 1, 1]),
        ("martingale", "LLWLTW", [1, 2, 4, 1, 2, 2, 1]),
        ("paroli", "WWWWL", [1, 2, 4, 1, 2, 1]),
        ("dalembert", "LLWWW", [1, 2, 3, 2, 1, 1]),
        ("fibonacci", "LLLLWW", [1, 1, 2, 3, 5, 2, 1]),
        ("labouchere", "LWWW", [5, 6, 6, 3, 5]),  # 1234 -> 12345 -> 234 -> 3 -> a new line
        ("labouchere", "LLTL", [5, 6, 7, 7, 8]),
        ("1-3-2-6", "WWWW", [1, 3, 2, 6, 1]),
        ("1-3-2-6", "WLWWTL", [1, 3, 1, 3, 2, 2, 1]),
    ],
)
def test_stake_sequences_by_hand(name, results, expected):
    assert stakes(name, results) == expected


def test_the_registry_names_every_system_of_the_issue():
    assert set(SYSTEMS) == {
        "flat",
        "martingale",
        "paroli",
        "dalembert",
        "fibonacci",
        "labouchere",
        "1-3-2-6",
        *PATTERNS,
    }
    with pytest.raises(ValueError, match="unknown system"):
        system_of("kelly")


def test_limits_take_decimals_and_refuse_nonsense():
    assert Limits(unit=25.5).unit == Decimal("25.5")
    with pytest.raises(ValueError, match="min bet <= unit <= max bet"):
        Limits(unit=10)
    with pytest.raises(ValueError, match="bankroll must be positive"):
        Limits(bankroll=0)


def one(system, bet, limits, outcomes):
    return backtest(system, bet, limits, [outcomes]).row(0, named=True)


def test_the_table_maximum_loses_the_progression_and_restarts_it():
    limits = Limits(unit=25, max_bet=100)
    # Martingale on Banker through P P P P then B: 25, 50, 100, 100 (200 capped: restart), then 25 wins
    row = one("martingale", "banker", limits, "PPPPB")
    assert row["wagered"] == Decimal(300) and row["result"] == Decimal("-275") + Decimal("23.75")
    assert Table.of(limits).wager(8, 0) == (100, True) and Table.of(limits).wager(4, 0) == (100, False)


def test_the_bankroll_caps_a_stake_in_whole_minimums_then_ruins():
    # 25 and 50 lost leave 25 of 100: the 100 asked for is capped to 25, lost, and the bankroll is gone
    row = one("martingale", "player", Limits(bankroll=100), "BBBB")
    assert (row["bets"], row["wagered"], row["result"], row["end"]) == (3, Decimal(100), Decimal(-100), "ruin")
    row = one("flat", "player", Limits(bankroll=40), "BP")  # 15 left: below the minimum
    assert (row["played"], row["end"]) == (1, "ruin")


def test_goal_stop_loss_ties_and_the_tie_bet():
    assert one("flat", "player", Limits(goal=50), "PTPB")["end"] == "goal"
    assert one("flat", "player", Limits(stop_loss=50), "BTBP")["played"] == 3
    row = one("flat", "tie", Limits(), "BTP")
    assert row["result"] == Decimal(-25) + 200 - 25
    row = one("flat", "banker", Limits(), "TTB")  # pushes are bets, and wagered
    assert (row["bets"], row["wagered"], row["result"]) == (3, Decimal(75), Decimal("23.75"))


def test_pattern_followers_sit_out_until_the_pattern_says_something():
    row = one("follow-column", "banker", Limits(), "BBPP")  # a second column only before the fourth coup
    assert (row["bets"], row["result"]) == (1, Decimal(25))  # P's column shorter than B's: back P
    assert one("chop", "banker", Limits(), "TBB")["result"] == Decimal(-25)  # backs P after B: loses 25


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_pattern_reads_only_the_last_columns_the_chain_keeps(pattern):
    """The exact chain keeps `PatternFollower.key(state)`: it must say what the whole history says,
    now and after any next coup."""
    rng = np.random.default_rng(22)
    follower = PatternFollower(pattern)
    for _ in range(40):
        shoe = "".join(rng.choice(list("BPT"), p=[0.46, 0.45, 0.09], size=60))
        state = follower.start()
        for outcome in shoe:
            key = follower.key(state)
            assert predict(pattern, list(state)) == predict(pattern, list(key)), (shoe, state)
            assert follower.key(follower.after(key, outcome, None)) == follower.key(
                follower.after(state, outcome, None)
            )
            state = follower.after(state, outcome, None)
    assert last_columns("BBPTPBBB", 2) == tuple("PPBBB") and PATTERN_MEMORY.keys() == set(PATTERNS)
