"""Surveillance on coups, edges and wagers written by hand: the permutation test against an exact
enumeration, advantage and null players, Zender's pattern, Benjamini-Hochberg and Fisher by hand."""

import datetime as dt
import itertools
import math
from decimal import Decimal

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats

from models.game.paytable import BETS, DEFAULT_PAYTABLE
from models.gaming_day import GamingDay, gaming_day
from models.metrics import surveillance
from models.metrics.permutation import sequential_p_values
from models.metrics.players import player_sessions
from models.metrics.ratings import joined_coup_rows, rate
from models.metrics.surveillance import (
    DAY_COLUMNS,
    FLAG_COLUMNS,
    SESSION_COLUMNS,
    q_values,
    rating_seed,
    surveillance_flags,
    surveillance_player_day,
    surveillance_sessions,
    wager_edges,
    wager_edges_sql,
)
from models.warehouse import settlement

NOON = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)
DAY = dt.date(2026, 11, 2)
VARIANCE = (
    settlement.house_expectation(DEFAULT_PAYTABLE)
    .select("game", "decks", "bet", "house_variance")
    .with_columns(pl.col("decks").cast(pl.Int8))
)
#: House edges of a coup where the test sets no other: the full shoe's, roughly; pairs unknown
#: (cards logged by value only).
HOUSE = {"banker": 0.0106, "player": 0.0124, "tie": 0.1436, "player_pair": None, "banker_pair": None,
         "dragon7": 0.0761, "panda8": 0.1019, **{f"egalite_{total}": 0.2 for total in range(10)}}  # fmt: skip


def session_figures(side_wagers: int) -> list[pl.Expr]:
    """A hand-built session's counts and money beside its p-value (the rest as surveillance_sessions has them)."""
    counts = {"coups_present": 10, "wagers": 10, "side_wagers": side_wagers, "advantage_wagers": 1,
              "permutations": 100, "zender_shoes": 0}  # fmt: skip
    money = ("amount", "edge_won", "expected_edge_won", "house_win", "zender_won", "advantage_won",
             "expected_advantage_won")  # fmt: skip
    return [
        *(pl.lit(v).alias(n) for n, v in counts.items()),
        *(pl.lit(0).cast(pl.Decimal(18, 4)).alias(n) for n in money),
        pl.lit(0.1).alias("advantage_share"),
        pl.lit(0.1).alias("expected_advantage_share"),
    ]


def shoe(table: str, name: str, coups: int, start: float, minutes: float = 1.0) -> pl.DataFrame:
    """A shoe's coups, `minutes` apart from `start` minutes after noon, 8-deck punto banco."""
    times = [NOON + dt.timedelta(minutes=start + k * minutes) for k in range(coups)]
    frame = pl.DataFrame(
        {"table_id": table, "shoe_id": name, "round_no": range(1, coups + 1), "started_at": times},
        schema_overrides={"round_no": pl.Int32, "started_at": pl.Datetime("us", "UTC")},
    )
    return frame.with_columns(game=pl.lit("punto_banco"), decks=pl.lit(8, pl.Int8)).with_columns(
        gaming_day(pl.col("started_at"), GamingDay())
    )


def edges_of(rounds: pl.DataFrame, player_edges: dict[str, list[float]] | None = None) -> pl.DataFrame:
    """marts.coup_edges of the coups (five cards a coup): house edges as HOUSE, but minus
    `player_edges[bet]` coup by coup where given."""
    player_edges = player_edges or {}
    columns = {}
    for bet in BETS:
        values = player_edges.get(bet)
        house = [HOUSE[bet]] * rounds.height if values is None else [None if v is None else -v for v in values]
        columns[f"edge_{bet}"] = pl.Series(house, dtype=pl.Float64)
    seen = (pl.col("round_no") - 1) * 5
    return rounds.select(
        "table_id", "shoe_id", "round_no", "gaming_day", "game", "decks",
        cards_seen=seen.cast(pl.Int16), cards_left=(416 - seen).cast(pl.Int16),
    ).with_columns(**columns, best_bet=pl.lit("banker"), best_edge=pl.lit(-0.0106))  # fmt: skip


def wagers(rows: list[tuple]) -> pl.DataFrame:
    """core.bets rows (table, shoe, round, player, bet, amount, house_net) as the build loads them."""
    frame = pl.DataFrame(
        rows, schema=["table_id", "shoe_id", "round_no", "player_id", "bet", "amount", "house_net"], orient="row"
    )
    return frame.select(
        "table_id",
        "shoe_id",
        pl.col("round_no").cast(pl.Int32),
        game=pl.lit("punto_banco"),
        bet="bet",
        amount=pl.col("amount").cast(pl.String).cast(pl.Decimal(18, 4)),
        house_net=pl.col("house_net").cast(pl.String).cast(pl.Decimal(18, 4)),
        commission=pl.lit(0).cast(pl.Decimal(18, 4)),
        theo=pl.lit(0).cast(pl.Decimal(18, 6)),
        player_id=pl.col("player_id").cast(pl.Categorical),
    )


def ratings(rounds: pl.DataFrame, bets: pl.DataFrame) -> pl.DataFrame:
    """marts.player_sessions of these coups and wagers, as the build rates them."""
    rated = rate(rounds, joined_coup_rows(bets, rounds), bets, VARIANCE, dt.timedelta(minutes=30))
    return player_sessions(rated)


def surveyed(rounds, bets, edges, **options) -> pl.DataFrame:
    return surveillance_sessions(bets, rounds, ratings(rounds, bets), edges, **options)


def exact_p(stakes: list[list[float]], edges: list[list[float]]) -> float:
    """P(permuted sum of stake x edge >= observed), the coups' stakes (every bet type's together)
    moved to the coups of a permutation: enumerated over all of them, each equally likely."""
    n = len(stakes[0])
    sums = [
        sum(s[i] * e[order[i]] for s, e in zip(stakes, edges, strict=True) for i in range(n))
        for order in itertools.permutations(range(n))
    ]
    return sum(value >= sums[0] - 1e-12 for value in sums) / len(sums)  # the first order is the observed


def kernel(stakes: list[list[float]], edges: list[list[float]], seed: int = 7, h: int = 20, most: int = 100_000):
    """`sequential_p_values` of one test: stakes and edges per bet type, coup by coup."""
    width, n = len(stakes), len(stakes[0])
    block = np.array(edges, float).T.ravel()  # row-major: coup by coup, the bet types side by side
    placed = [(i, b, stakes[b][i]) for i in range(n) for b in range(width) if stakes[b][i]]
    rows, columns, values = (np.array(column) for column in zip(*placed, strict=True))
    return sequential_p_values(
        block, np.array([0, n * width]), np.array([width]), values.astype(float), rows, columns,
        np.array([0, len(placed)]), np.array([seed], np.uint64), h, most,
    )  # fmt: skip


def test_the_kernel_reaches_the_enumerated_p_value_within_its_monte_carlo_error():
    stakes = [[0, 10, 0, 5, 0, 0], [25, 25, 50, 25, 0, 10]]
    edges = [[-0.1, 0.2, -0.05, 0.3, -0.2, -0.1], [-0.0106, -0.0098, 0.004, -0.011, -0.0106, -0.02]]
    exact = exact_p(stakes, edges)
    n = 200_000
    got = kernel(stakes, edges, h=10**9, most=n)
    assert got.permutations[0] == n  # never stopped: h is out of reach
    assert got.observed[0] == pytest.approx(5 * 0.3 + 10 * 0.2 + 50 * 0.004 - 25 * (0.0106 + 0.0098 + 0.011) - 0.2)
    estimate = (got.exceedances[0] + 1) / (n + 1)
    assert got.p_value[0] == estimate
    assert abs(estimate - exact) < 4 * math.sqrt(exact * (1 - exact) / n)
    assert 0.01 < exact < 0.2  # a p-value the test can tell from 0 and 1


def test_a_coups_stakes_move_together():
    # Banker at coups 0 and 2, Player at 1 and 3, each where it favoured the player: the statistic
    # is at its most, 4, only when the banker stakes land on coups 0 and 2 (2 ways) and the player
    # stakes on 1 and 3 (2 ways): 4 of the 24 orders of the coups. Shuffled apart, each bet type's
    # pair of stakes would land right 1 time in 6, and both 1 in 36: a p-value six times too small.
    stakes = [[10, 0, 10, 0], [0, 10, 0, 10]]
    edges = [[0.1, -0.1, 0.1, -0.1], [-0.1, 0.1, -0.1, 0.1]]
    assert exact_p(stakes, edges) == pytest.approx(4 / 24)
    got = kernel(stakes, edges, h=10**9, most=100_000)
    assert abs(got.p_value[0] - 4 / 24) < 4 * math.sqrt(4 / 24 * 20 / 24 / 100_000)


def test_ties_with_the_observed_sum_count_as_reaching_it():
    # two equal stakes: every arrangement puts them on two of three coups; edges 0.1, 0.1, 0.1 tie
    got = kernel([[5.0, 5.0, 0.0]], [[0.1, 0.1, 0.1]], seed=1)
    assert (got.exceedances[0], got.permutations[0], got.p_value[0]) == (20, 20, 1.0)


def test_besag_clifford_stops_at_h_exceedances_with_p_h_over_draws():
    # a stake on the worst of 10 coups: almost every permutation reaches it
    edges = [-k / 100 for k in range(1, 11)]
    edges[0] = -0.2
    stakes = [1.0] + [0.0] * 9
    got = kernel([stakes], [edges], seed=3)
    assert got.exceedances[0] == 20 and got.permutations[0] == 20 and got.p_value[0] == 1.0
    # at the best coup: 1 in 10 reach it, so it stops after about 200 draws at 20 / draws
    edges[0] = 0.5
    got = kernel([stakes], [edges], seed=3)
    assert got.exceedances[0] == 20 and got.p_value[0] == 20 / got.permutations[0]
    assert 0.05 < got.p_value[0] < 0.2


def test_a_five_coup_session_against_the_exact_permutation_p_and_its_figures_by_hand():
    rounds = shoe("T1", "S1", 5, 0)
    dragon = [-0.1, 0.2, -0.05, 0.3, -0.2]
    banker = [-0.0106, -0.0098, 0.004, -0.011, -0.0106]
    edges = edges_of(rounds, {"dragon7": dragon, "banker": banker})
    bets = wagers(
        [("T1", "S1", k + 1, "P1", "banker", stake, "-1") for k, stake in enumerate([25, 25, 50, 25, 10])]
        + [("T1", "S1", 2, "P1", "dragon7", 10, "-400"), ("T1", "S1", 4, "P1", "dragon7", 5, "5")]
        + [("T1", "S1", 3, "P1", "player_pair", 5, "5")]  # pairs' edges unknown: not tested, not at an advantage
    )
    got = surveyed(rounds, bets, edges, h=10**9, max_permutations=200_000)
    assert got.columns == list(SESSION_COLUMNS)
    row = got.row(0, named=True)
    assert (row["player_id"], row["table_id"], row["gaming_day"], row["session"]) == ("P1", "T1", DAY, 1)
    assert (row["coups_present"], row["wagers"], row["side_wagers"], row["advantage_wagers"]) == (5, 8, 3, 3)
    assert row["advantage_share"] == pytest.approx(3 / 8)
    # banker favoured the player at 1 of 5 coups, dragon7 at 2 of 5, a pair never (unknown): per wager
    assert row["expected_advantage_share"] == pytest.approx((5 * 1 / 5 + 2 * 2 / 5 + 0) / 8)
    assert row["amount"] == Decimal(135 + 10 + 5 + 5)
    won = sum(s * e for s, e in zip([25, 25, 50, 25, 10], banker, strict=True)) + 10 * 0.2 + 5 * 0.3
    assert row["edge_won"] == Decimal(str(round(won, 4)))
    # at random timing the stakes win each bet type's mean edge (the pair's, unknown, counts for nothing)
    expected = 135 * sum(banker) / 5 + 15 * sum(dragon) / 5
    assert row["expected_edge_won"] == Decimal(str(round(expected, 4)))
    assert row["house_win"] == Decimal(5 * -1 - 400 + 5 + 5)
    stakes = [0, 10, 0, 5, 0, 25, 25, 50, 25, 10]
    assert row["edge_rank_correlation"] == pytest.approx(stats.spearmanr(stakes, dragon + banker).statistic)
    # the test weighs the side bets' advantage alone (a positive edge, else nothing); the banker stakes
    # move with their coups but weigh nothing
    exact = exact_p([[25, 25, 50, 25, 10], [0, 10, 0, 5, 0]], [[0.0] * 5, [max(edge, 0.0) for edge in dragon]])
    n = 200_000
    assert row["permutations"] == n
    assert abs(row["p_value"] - exact) < 4 * math.sqrt(exact * (1 - exact) / n) + 1 / n
    assert (row["zender_shoes"], row["zender_won"]) == (0, Decimal(0))
    # the statistic, what the Dragon 7 stakes took of an advantage, and its mean at random timing
    assert row["advantage_won"] == Decimal("3.5")
    assert row["expected_advantage_won"] == Decimal(str(round(15 * (0.2 + 0.3) / 5, 4)))


def test_wagers_on_coups_without_edges_are_kept_with_nulls_and_a_rating_without_any_is_not_surveyed():
    rounds = pl.concat([shoe("T1", "S1", 3, 0), shoe("T2", "S9", 3, 0)])
    edges = edges_of(rounds.filter(table_id="T1", round_no=1))  # T1's later coups, and T2's, unknown
    bets = wagers(
        [
            ("T1", "S1", 1, "P1", "banker", 10, "-9.5"),
            ("T1", "S1", 2, "P1", "banker", 10, "10"),
            ("T2", "S9", 1, "P2", "tie", 5, "5"),
        ]
    )
    placed = wager_edges(bets, edges)
    assert placed.columns == [*bets.columns, "player_edge", "advantage"]
    assert placed["player_edge"].to_list() == [-0.0106, None, None]
    assert placed["advantage"].to_list() == [False, None, None]
    got = surveyed(rounds, bets, edges)
    assert got.select("player_id", "coups_present", "wagers", "amount").rows() == [("P1", 1, 1, Decimal(10))]
    # Banker alone, which no count beats, is not tested
    assert got["p_value"].to_list() == [None] and got["permutations"].to_list() == [None]
    assert got["edge_rank_correlation"].to_list() == [None]


def test_the_view_and_the_frame_agree_on_a_real_duckdb(tmp_path):
    rounds = shoe("T1", "S1", 4, 0)
    edges = edges_of(rounds.head(3), {"dragon7": [0.1, -0.2, None], "banker": [-0.01, 0.002, -0.01]})
    bets = wagers(
        [
            ("T1", "S1", 1, "P1", "dragon7", 5, "200"),
            ("T1", "S1", 2, "P1", "banker", 20, "19"),
            ("T1", "S1", 3, "P1", "dragon7", 5, "5"),
            ("T1", "S1", 4, None, "player", 10, "-10"),
            ("T1", "S1", 1, None, "player_pair", 5, "5"),
        ]
    ).with_columns(pl.col("player_id").cast(pl.String))
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as con:
        con.execute("CREATE TABLE bets AS SELECT * FROM bets")
        con.execute("CREATE TABLE edges AS SELECT * FROM edges")
        con.execute(f"CREATE VIEW wager_edges AS {wager_edges_sql('bets', 'edges')}")
        stored = con.sql("SELECT * FROM wager_edges ORDER BY round_no, bet").pl()
    frame = wager_edges(bets, edges).sort("round_no", "bet")
    assert stored.columns == frame.columns
    assert stored.rows() == frame.rows()
    # by round and bet: Dragon 7, a pair (unknown), banker, Dragon 7 (unknown), player (no edges row)
    assert frame["player_edge"].to_list() == [0.1, None, 0.002, None, None]
    assert frame["advantage"].to_list() == [True, None, True, None, None]


def advantage_day(seed: int = 20) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """A shoe of 150 coups where Dragon 7 favours the player at about 1 coup in 10; P1 bets it only
    then, P2..P9 at coups drawn at random; everyone bets banker every coup."""
    rng = np.random.default_rng(seed)
    rounds = shoe("T1", "S1", 150, 0)
    dragon = np.where(rng.random(150) < 0.1, rng.uniform(0.01, 0.3, 150), rng.uniform(-0.3, -0.05, 150))
    edges = edges_of(rounds, {"dragon7": dragon.tolist()})
    rows = []
    for player in [f"P{k}" for k in range(1, 10)]:
        for k in range(150):
            rows.append(("T1", "S1", k + 1, player, "banker", 25, "-25"))
            if dragon[k] > 0 if player == "P1" else rng.random() < 0.1:
                rows.append(("T1", "S1", k + 1, player, "dragon7", 25, "-25"))
    return rounds, wagers(rows), edges


def test_a_player_betting_only_at_positive_edges_gets_a_small_p_and_is_flagged_alone():
    rounds, bets, edges = advantage_day()
    sessions = surveyed(rounds, bets, edges)
    first = sessions.filter(player_id="P1").row(0, named=True)
    assert first["advantage_wagers"] == sum(1 for v in edges["edge_dragon7"] if v < 0)
    assert first["p_value"] < 1e-4 and first["permutations"] == 100_000
    assert first["edge_rank_correlation"] > 0.3
    day = surveillance_player_day(sessions)
    assert day.columns == list(DAY_COLUMNS)
    flags = surveillance_flags(sessions, day, fdr=0.05)
    assert flags.columns == list(FLAG_COLUMNS)
    assert flags.select("player_id", "rule", "scope", "table_id", "session").rows() == [
        ("P1", "edge_timing", "player_day", None, None),
        ("P1", "edge_timing", "session", "T1", 1),
    ]
    detail = flags["detail"][1]
    share = first["expected_advantage_share"] * 100
    assert detail.startswith(f"{first['advantage_wagers']} of {first['wagers']} wagers at an advantage ({share:.1f} %")
    assert f"edge won {first['edge_won']:,.2f}" in detail and ("p = " in detail or "p < 0.0001" in detail)


def test_a_player_who_never_bet_at_an_advantage_is_not_flagged_however_well_timed_their_losses():
    # The tie costs 14 % for most of the shoe and half that in its last coups. P0 bets a tie only
    # there: well timed against the tie's own spread (weighed so, p was about 1e-5), yet every wager
    # lost in expectation. P1 bets Dragon 7 only where it favours them, so the day has a discovery.
    rng = np.random.default_rng(4)
    rounds = shoe("T1", "S1", 80, 0)
    tie = [-0.14] * 70 + [-0.07] * 10
    dragon = np.where(rng.random(80) < 0.1, 0.1, -0.1)
    edges = edges_of(rounds, {"tie": tie, "dragon7": dragon.tolist()})
    rows = [("T1", "S1", k, player, "banker", 25, "-25") for k in range(1, 81) for player in ("P0", "P1")]
    rows += [("T1", "S1", k, "P0", "tie", 25, "25") for k in range(71, 81)]
    rows += [("T1", "S1", k + 1, "P1", "dragon7", 25, "-1000") for k in range(80) if dragon[k] > 0]
    sessions = surveyed(rounds, wagers(rows), edges)
    timed = sessions.filter(player_id="P0").row(0, named=True)
    assert timed["advantage_wagers"] == 0 and timed["edge_won"] > timed["expected_edge_won"]
    assert timed["advantage_won"] == 0 and timed["p_value"] == 1.0
    # weighed by the tie's whole edge, the same stakes were as rare as a test can tell
    assert kernel([[0] * 70 + [25] * 10], [tie]).p_value[0] < 1e-4
    flags = surveillance_flags(sessions, surveillance_player_day(sessions), fdr=0.05)
    assert set(flags["player_id"]) == {"P1"}
    detail = flags.filter(scope="player_day")["detail"][0]
    counted = int((dragon > 0).sum())
    worth = 25 * 0.1 * counted
    assert detail.startswith(f"{counted} of {80 + counted} wagers at an advantage")
    assert f"their side bets took an advantage worth {worth:,.2f} where random timing takes" in detail


def test_a_session_is_flagged_only_within_a_flagged_players_day():
    # one family, the day's five players: A's session of p 0.004 beside one of p 0.99 is a day of
    # p 0.026 by Fisher, q 0.065, not flagged (as a family of its own, the six sessions, it had q 0.024);
    # B's one session of p 0.005 is B's day, q 0.025, flagged
    sessions = pl.DataFrame(
        {
            "player_id": ["A", "A", "B"] + [f"N{k}" for k in range(3)],
            "gaming_day": DAY,
            "table_id": ["T1", "T2", "T1", "T1", "T1", "T1"],
            "session": pl.Series([1, 1, 1, 1, 1, 1], dtype=pl.Int32),
            "p_value": [0.004, 0.99, 0.005, 0.8, 0.9, 1.0],
        }
    ).with_columns(session_figures(side_wagers=1))
    day = surveillance_player_day(sessions)
    flags = surveillance_flags(sessions, day, fdr=0.05)
    assert flags.select("player_id", "scope").rows() == [("B", "player_day"), ("B", "session")]
    assert flags["q_value"].to_list() == pytest.approx([0.025, 0.025])  # 0.005 x 5 players tested


def test_ratings_tested_a_slice_at_a_time_are_tested_as_all_at_once(monkeypatch):
    rounds, bets, edges = advantage_day()
    whole = surveyed(rounds, bets, edges)
    assert whole.height == 9
    monkeypatch.setattr(surveillance, "SLICE_RATINGS", 2)  # five slices
    assert surveyed(rounds, bets, edges).equals(whole)


def test_tables_surveyed_a_group_at_a_time_are_surveyed_as_all_at_once(monkeypatch):
    rng = np.random.default_rng(8)
    rounds = pl.concat([shoe(f"T{t}", "S1", 60, 0) for t in range(4)])
    dragon = {"dragon7": rng.uniform(-0.3, 0.2, rounds.height).tolist()}
    edges = edges_of(rounds, dragon)
    rows = [
        (table, "S1", k, f"{table}P{p}", bet, 25, "-25")
        for table in ("T0", "T1", "T2", "T3") for p in range(5) for k in range(1, 61)
        for bet in ("banker", "dragon7") if rng.random() < 0.5
    ]  # fmt: skip
    bets = wagers(rows)
    sessions = ratings(rounds, bets)
    whole = surveillance_sessions(bets, rounds, sessions, edges)
    assert whole["table_id"].n_unique() == 4
    monkeypatch.setattr(surveillance, "COUPS_AT_A_TIME", 100)  # a table or two at a time
    assert surveillance.surveillance_by_tables(bets, rounds, sessions, edges).equals(whole)


def test_players_whose_stakes_ignore_the_edges_are_flagged_at_about_the_nominal_rate():
    # 600 players at 6 tables, each betting one main hand a coup and Dragon 7 now and then, at coups
    # and stakes drawn at random; Banker's and Player's edges move against each other, as a shoe's do
    rng = np.random.default_rng(5)
    rounds, edges, rows = [], [], []
    for t in range(6):
        table = shoe(f"T{t}", "S1", 80, 0)
        dragon = np.where(rng.random(80) < 0.1, rng.uniform(0.01, 0.3, 80), rng.uniform(-0.3, -0.05, 80))
        swing = rng.normal(0, 0.01, 80)
        rounds.append(table)
        moving = {"dragon7": dragon.tolist(), "banker": (swing - 0.0106).tolist(), "player": (-swing - 0.0124).tolist()}
        edges.append(edges_of(table, moving))
        for p in range(100):
            for k in range(80):
                if rng.random() < 0.8:
                    hand = str(rng.choice(["banker", "player", "tie"], p=[0.5, 0.45, 0.05]))
                    rows.append((f"T{t}", "S1", k + 1, f"T{t}P{p}", hand, int(rng.choice([25, 50, 100])), "-25"))
                if rng.random() < 0.15:
                    rows.append((f"T{t}", "S1", k + 1, f"T{t}P{p}", "dragon7", int(rng.choice([5, 10, 25])), "-5"))
    rounds, edges = pl.concat(rounds), pl.concat(edges)
    sessions = surveyed(rounds, wagers(rows), edges)
    p = sessions["p_value"].drop_nulls()
    assert p.len() == 600
    share = (p <= 0.05).mean()
    assert abs(share - 0.05) < 3.5 * math.sqrt(0.05 * 0.95 / 600)
    # valid all along (P(p <= x) at most x) and close to it where the sequential p-values are fine
    for x in (0.01, 0.1, 0.25, 0.5, 0.75, 0.9):
        error = 3.5 * math.sqrt(x * (1 - x) / 600)
        assert (p <= x).mean() < x + error
        assert x > 0.5 or (p <= x).mean() > x - error
    flags = surveillance_flags(sessions, surveillance_player_day(sessions), fdr=0.05)
    assert flags.filter(rule="edge_timing").height <= 2  # under the global null BH flags any at all 5 % of days


def test_zender_pattern_in_hand_built_shoes():
    # two 8-deck shoes of 75 coups, five cards a coup: coup 68 on has at most 20 % of 416 cards left
    rounds = pl.concat([shoe("T1", "S1", 75, 0), shoe("T1", "S2", 75, 80)])
    edges = edges_of(rounds)
    rows = []
    for name in ("S1", "S2"):
        rows += [("T1", name, k, "Z", "banker", 4500, "-4500") for k in (70, 71)]  # sat out, then 90 % of 5000
        rows += [("T1", name, 72, "Z", "dragon7", 450, "-18000")]  # 90 % of the side limit, won 40 to 1
        rows += [("T1", name, k, "E", "banker", 4500, "-4500") for k in (60, 70)]  # came in before the last 20 %
        rows += [("T1", name, k, "S", "banker", 100, "-100") for k in (70, 71)]  # late, but small
    rows += [("T1", "S1", 68, "W", "player", 5000, "5000")]  # once only: one shoe
    sessions = surveyed(rounds, wagers(rows), edges)
    zender = sessions.group_by("player_id").agg(pl.col("zender_shoes", "zender_won").sum()).sort("player_id")
    assert zender.rows() == [
        ("E", 0, Decimal(0)),
        ("S", 0, Decimal(0)),
        ("W", 1, Decimal(-5000)),
        ("Z", 2, Decimal(2 * (2 * 4500 + 18000))),
    ]
    assert sessions.filter(player_id="Z")["session"].to_list() == [1, 2]  # an hour and more between the shoes
    days = surveillance_player_day(sessions)
    flags = surveillance_flags(sessions, days).filter(rule="zender")  # one shoe is enough, by default
    assert flags.select("player_id", "scope", "zender_shoes", "p_value").rows() == [
        ("W", "player_day", 1, None),
        ("Z", "player_day", 2, None),
    ]
    assert flags["detail"].to_list() == [
        "1 shoe sat out, then bet at or near the table maximum in the last cards; the house won 5,000.00 on those "
        "wagers",
        "2 shoes sat out, then bet at or near the table maximum in the last cards; the house lost 54,000.00 on those "
        "wagers",
    ]
    twice = surveillance_flags(sessions, days, zender_shoes=2).filter(rule="zender")
    assert twice["player_id"].to_list() == ["Z"]


def test_benjamini_hochberg_by_hand_and_per_gaming_day():
    # sorted 0.01, 0.03, 0.04, 0.2 of m = 4: p m / rank = 0.04, 0.06, 0.0533, 0.2; then the running
    # minimum from the top: 0.04, 0.0533, 0.0533, 0.2
    got = q_values(pl.Series([0.04, 0.01, None, 0.2, 0.03]))
    assert got.to_list()[2] is None
    assert [got[i] for i in (0, 1, 3, 4)] == pytest.approx([0.16 / 3, 0.04, 0.2, 0.16 / 3])
    sessions = pl.DataFrame(
        {
            "player_id": ["A", "B", "C", "D"],
            "gaming_day": [DAY, DAY, DAY + dt.timedelta(days=1), DAY + dt.timedelta(days=1)],
            "table_id": "T1",
            "session": pl.Series([1, 1, 1, 1], dtype=pl.Int32),
            "p_value": [0.01, 0.04, 0.02, None],
        }
    ).with_columns(session_figures(side_wagers=0))
    day = surveillance_player_day(sessions)
    # day one: 0.01 and 0.04 give 0.02 and 0.04; day two: 0.02 alone, and D untested
    assert day["player_id"].to_list() == ["A", "B", "C", "D"]
    assert day["p_value"].to_list()[:3] == pytest.approx([0.01, 0.04, 0.02])  # Fisher of one p-value is itself
    assert day["q_value"].to_list()[:3] == pytest.approx([0.02, 0.04, 0.02])
    assert day.row(3)[-2:] == (None, None)
    flags = surveillance_flags(sessions, day, fdr=0.03)
    assert flags.select("player_id", "scope").rows() == [
        ("A", "player_day"),
        ("A", "session"),
        ("C", "player_day"),
        ("C", "session"),
    ]
    assert flags["q_value"].to_list() == pytest.approx([0.02] * 4)


def test_a_players_day_combines_its_sessions_by_fisher_and_totals_them():
    rounds = pl.concat([shoe("T1", "S1", 10, 0), shoe("T2", "S5", 10, 0)])
    edges = edges_of(rounds, {"dragon7": [0.1, -0.1, -0.2, -0.3, 0.2, -0.1, -0.1, -0.1, 0.05, -0.2] * 2})
    rows = [(t, s, k, "P1", "banker", 10, "-10") for t, s in (("T1", "S1"), ("T2", "S5")) for k in range(1, 11)]
    rows += [("T1", "S1", 1, "P1", "dragon7", 5, "-5"), ("T2", "S5", 5, "P1", "dragon7", 5, "200")]
    sessions = surveyed(rounds, wagers(rows), edges, h=10**9, max_permutations=20_000)
    assert sessions["table_id"].to_list() == ["T1", "T2"]
    day = surveillance_player_day(sessions).row(0, named=True)
    p1, p2 = sessions["p_value"].to_list()
    product = p1 * p2
    assert day["p_value"] == pytest.approx(product * (1 - math.log(product)))  # chi-squared, 4 degrees of freedom
    assert (day["tables"], day["sessions"], day["tested_sessions"], day["wagers"]) == (2, 2, 2, 22)
    assert day["advantage_wagers"] == 2 and day["advantage_share"] == pytest.approx(2 / 22)
    expected = sum(sessions["expected_advantage_share"] * sessions["wagers"]) / 22
    assert day["expected_advantage_share"] == pytest.approx(expected)
    assert day["edge_won"] == sum(sessions["edge_won"]) and day["house_win"] == Decimal(-200 + 195)
    assert day["q_value"] == day["p_value"]  # the only player of the day


def test_a_rebuild_draws_the_same_permutations():
    rounds, bets, edges = advantage_day(seed=3)
    first = surveyed(rounds, bets, edges)
    again = surveyed(rounds, bets.reverse(), edges)
    assert (
        first.select("player_id", "permutations", "p_value").rows()
        == again.select("player_id", "permutations", "p_value").rows()
    )
    assert rating_seed("P1", "T1", DAY, 1) == rating_seed("P1", "T1", DAY, 1) != rating_seed("P1", "T1", DAY, 2)
