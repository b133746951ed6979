"""Each metric on small hand-computed cases, and against theory on large simulated ones."""

import datetime as dt
from decimal import Decimal

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import stats

from models.game.shoe import Composition
from models.gaming_day import GamingDay, gaming_day, shoe_day
from models.metrics.money import Rounding, commission, commission_per_unit, wagers
from models.metrics.shoes import shoe_summary
from models.metrics.streaks import bank_tenures, decision_runs, tenure_fit
from models.metrics.ties import ALPHA, tie_frequency
from models.odds.exact import exact_odds

D = Decimal


def rounds(outcomes, game="punto_banco", holders=None, shoe="S1", table="T1", **extra):
    n = len(outcomes)
    frame = pl.DataFrame(
        {
            "table_id": [table] * n,
            "shoe_id": [shoe] * n,
            "round_no": list(range(1, n + 1)),
            "started_at": [dt.datetime(2026, 11, 1, 10, tzinfo=dt.UTC) + dt.timedelta(minutes=i) for i in range(n)],
            "game": [game] * n,
            "decks": pl.Series([8] * n, dtype=pl.Int8),
            "outcome": list(outcomes),
            "bank_holder": pl.Series(holders or [None] * n, dtype=pl.String),
            "dealer_id": ["D1"] * n,
            **extra,
        }
    )
    return frame.with_columns(gaming_day(pl.col("started_at"))).with_columns(shoe_day())


def test_gaming_day_starts_at_the_local_hour():
    times = pl.DataFrame(
        {"t": [dt.datetime(2026, 11, 2, 4, 59, tzinfo=dt.UTC), dt.datetime(2026, 11, 2, 5, 0, tzinfo=dt.UTC)]}
    )
    days = times.select(gaming_day(pl.col("t"), GamingDay("Europe/Paris", 6)))["gaming_day"].to_list()
    assert days == [dt.date(2026, 11, 1), dt.date(2026, 11, 2)]  # 05:59 and 06:00 in Paris
    assert [GamingDay("Europe/Paris", 6).of(t) for t in times["t"]] == days  # one instant, as a column
    with pytest.raises(ValueError, match="time zone"):
        GamingDay("Atlantis/Capital")


def test_punto_banco_tenures_pass_on_player_wins_and_ties_stay():
    tenures = bank_tenures(rounds("BTBPPBTB").lazy()).collect()
    assert tenures.select("first_round", "last_round", "coups", "ties", "decided", "ended_by").rows() == [
        (1, 4, 4, 1, 3, "pass"),
        (5, 5, 1, 0, 1, "pass"),
        (6, 8, 3, 1, 2, "shoe_end"),
    ]


def test_banco_rotates_after_every_decided_coup_and_ties_are_dealt_again():
    tenures = bank_tenures(rounds("BTPB", game="banco").lazy()).collect()
    assert tenures.select("first_round", "last_round", "coups", "ties", "ended_by").rows() == [
        (1, 1, 1, 0, "pass"),
        (2, 3, 2, 1, "pass"),
        (4, 4, 1, 0, "shoe_end"),
    ]


def test_banque_holds_the_bank_for_the_shoe():
    tenures = bank_tenures(rounds("BPPTB", game="baccarat_banque").lazy()).collect()
    assert tenures.select("coups", "ended_by").rows() == [(5, "shoe_end")]


def test_the_fit_leaves_out_the_games_whose_bank_passes_by_rule():
    shoes = [rounds("BBPBPPBBBPTB", shoe="S1"), rounds("BPBPBBP", game="banco", shoe="S2"),
             rounds("BPPTB", game="baccarat_banque", shoe="S3")]  # fmt: skip
    tenures = bank_tenures(pl.concat(shoes).lazy()).collect()
    assert set(tenures["game"]) == {"punto_banco", "banco", "baccarat_banque"}
    by_game = tenure_fit(tenures, by=["game"])
    assert by_game["game"].to_list() == ["punto_banco"]
    pooled = tenure_fit(tenures, by=["table_id"]).drop("table_id")
    alone = tenure_fit(tenures.filter(pl.col("game") == "punto_banco"), by=["table_id"]).drop("table_id")
    assert_frame_equal(pooled, alone)  # the tenures of a table's banco and banque shoes count nowhere


def test_chemin_de_fer_observed_holders_pass_and_withdraw():
    holders = ["3", "3", "3", "5", "5", "6", "6"]
    tenures = bank_tenures(rounds("BTBBPBP", game="chemin_de_fer", holders=holders).lazy()).collect()
    # seat 3 wins, ties, wins, then withdraws (seat 5 takes over after a Banker win);
    # seat 5 wins, loses (P) and passes; seat 6 is still banking when the shoe ends
    assert tenures.select("holder", "coups", "ties", "ended_by").rows() == [
        ("3", 3, 1, "withdraw"),
        ("5", 2, 0, "pass"),
        ("6", 2, 0, "shoe_end"),
    ]


def test_decision_runs_and_shoe_summary():
    frame = rounds("BBTBPPTPPB", natural=[True, False] * 5, player_pair=[False] * 9 + [True], banker_pair=[False] * 10,
                   cards_used=pl.Series([4, 5, 6, 4, 4, 5, 4, 6, 5, 4], dtype=pl.Int8))  # fmt: skip
    runs = decision_runs(frame.lazy()).collect()
    assert runs.select("side", "length").rows() == [("B", 3), ("P", 4), ("B", 1)]
    shoes = pl.DataFrame(
        {"table_id": ["T1"], "shoe_id": ["S1"], "reconciliation": ["reconciled"], "reconciled_by": ["card"]}
    )
    summary = shoe_summary(frame.lazy(), shoes.lazy()).row(0, named=True)
    assert (summary["banker"], summary["player"], summary["ties"]) == (4, 4, 2)
    assert (summary["longest_banker_run"], summary["longest_player_run"]) == (3, 4)
    assert summary["naturals"] == 5 and summary["player_pairs"] == 1 and summary["cards_dealt"] == 47
    assert summary["reconciliation"] == "reconciled"


def test_shoe_walks_on_rows_already_in_order_equal_those_that_sort_first():
    shoes = [
        rounds("BPPTBBPTPB" * 3, table="T2", shoe="S1"),
        rounds("PPBTTBPB" * 2, game="banco", table="T1", shoe="S2"),
        rounds("BBPBTPPB" * 2, game="chemin_de_fer", table="T1", shoe="S1", holders=list("3335556667774441")),
    ]
    shuffled = pl.concat(shoes).sample(fraction=1.0, shuffle=True, seed=4)
    in_order = shuffled.sort("table_id", "shoe_id", "round_no")
    for walk in (bank_tenures, decision_runs):
        expected = walk(shuffled.lazy()).collect()
        assert expected["table_id"].n_unique() == 2 and expected.height > 10
        assert_frame_equal(walk(in_order.lazy(), in_order=True).collect(), expected)
    extra = {"natural": False, "player_pair": False, "banker_pair": False, "cards_used": 4}
    coups = shuffled.with_columns(pl.lit(v).alias(k) for k, v in extra.items())
    status = coups.select("table_id", "shoe_id").unique().with_columns(reconciliation=pl.lit("reconciled"))
    status = status.with_columns(reconciled_by=pl.lit("card"))
    runs = decision_runs(coups.lazy())
    with_runs = shoe_summary(coups.lazy(), status.lazy(), runs)
    assert with_runs.height == 3
    assert_frame_equal(with_runs, shoe_summary(coups.lazy(), status.lazy()))


def test_tie_frequency_against_independent_statistics():
    frame = pl.concat([rounds("T" * 3 + "B" * 17, table="T1"), rounds("T" * 9 + "P" * 11, table="T2")])
    result = tie_frequency(frame.lazy(), ["table_id"])
    p = exact_odds(Composition.full(8)).p_tie
    for row in result.iter_rows(named=True):
        test = stats.binomtest(row["ties"], row["coups"], p)
        low, high = test.proportion_ci(method="wilson")
        assert row["expected_rate"] == pytest.approx(p, abs=1e-12)
        assert row["p_value"] == pytest.approx(test.pvalue, rel=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["z"] == pytest.approx((row["ties"] - 20 * p) / (20 * p * (1 - p)) ** 0.5)
    flagged = dict(result.select("table_id", "flagged").iter_rows())
    assert flagged == {"T1": False, "T2": True}  # 9 ties in 20 coups is far from 9.5%
    # the q-value the mart stores is the one that decides the flag: scipy's BH over the groups, flagged below ALPHA
    assert result["q_value"].to_list() == pytest.approx(list(stats.false_discovery_control(result["p_value"])))
    assert result["flagged"].to_list() == [q < ALPHA for q in result["q_value"]]


def test_a_tie_flag_is_its_q_value_below_alpha_within_each_day():
    days = [
        rounds("T" * (2 + i % 9) + "B" * 18, table=f"T{i}").with_columns(gaming_day=pl.lit(i % 2)) for i in range(12)
    ]
    result = tie_frequency(pl.concat(days).lazy(), ["table_id", "gaming_day"], compared_within=["gaming_day"])
    for day in (0, 1):
        one = result.filter(pl.col("gaming_day") == day)
        assert one["q_value"].to_list() == pytest.approx(list(stats.false_discovery_control(one["p_value"])))
    assert result["flagged"].any() and not result["flagged"].all()
    assert result["flagged"].to_list() == [q < ALPHA for q in result["q_value"]]
    assert tie_frequency(pl.concat(days).lazy().head(0), ["table_id"]).columns[-2:] == ["q_value", "flagged"]


def _bets(rows):
    return pl.DataFrame(
        rows, schema=["table_id", "shoe_id", "round_no", "game", "bet", "amount", "commission"], orient="row"
    ).with_columns(pl.col("amount", "commission").cast(pl.Decimal(18, 4)))


def test_commission_with_rounding_policies_and_reduced_payouts():
    pb = rounds("BBP", banker_total=[7, 6, 2], banker_third=[None, None, None])
    s6 = rounds("B", game="super6", table="T2", banker_total=[6], banker_third=[None])
    ez = rounds("B", game="ez_baccarat", table="T3", banker_total=[7], banker_third=[3])
    cf = rounds("B", game="chemin_de_fer", table="T4", banker_total=[5], banker_third=[None])
    all_rounds = pl.concat([pb, s6, ez, cf], how="diagonal_relaxed").lazy()
    bets = _bets([
        ("T1", "S1", 1, "punto_banco", "banker", D("7"), D("0.35")),
        ("T1", "S1", 2, "punto_banco", "banker", D("10"), D("0.50")),
        ("T1", "S1", 3, "punto_banco", "banker", D("20"), D("0")),
        ("T2", "S1", 1, "super6", "banker", D("10"), D("0")),
        ("T3", "S1", 1, "ez_baccarat", "banker", D("25"), D("0")),
        ("T4", "S1", 1, "chemin_de_fer", "banker", D("100"), D("5")),
    ]).lazy()  # fmt: skip
    exact = commission(wagers(bets, all_rounds), ("table_id",)).to_dicts()
    by_table = {row["table_id"]: row for row in exact}
    assert by_table["T1"]["banker_won"] == 2 and by_table["T1"]["banker_won_amount"] == D("17")
    assert by_table["T1"]["commission"] == D("0.85")
    assert by_table["T2"]["super6_reduction"] == D("5")
    assert by_table["T3"]["ez_reduction"] == D("25")
    assert by_table["T4"]["cagnotte"] == D("5") and by_table["T4"]["commission"] == D("0")
    down = {
        r["table_id"]: r["commission"]
        for r in commission(wagers(bets, all_rounds), ("table_id",), Rounding("down", "0.25")).to_dicts()
    }
    up = {
        r["table_id"]: r["commission"]
        for r in commission(wagers(bets, all_rounds), ("table_id",), Rounding("up", "0.25")).to_dicts()
    }
    assert down["T1"] == D("0.75") and up["T1"] == D("1.00")  # 0.35 -> 0.25 / 0.50; 0.50 stays
    p_banker = exact_odds(Composition.full(8)).p_banker
    assert by_table["T1"]["expected_commission"] == pytest.approx(37 * p_banker * 0.05)
    with pytest.raises(ValueError, match="rounding"):
        Rounding("sideways")


def test_commission_per_unit_without_bets():
    result = commission_per_unit(rounds("BBPT").lazy(), ("table_id",)).row(0, named=True)
    assert result["banker_wins"] == 2 and result["commission_per_unit"] == pytest.approx(0.10)


@pytest.mark.slow
def test_simulated_tenures_fit_the_geometric_law():
    from models.simulate.config import Simulation
    from models.simulate.engine import simulate

    sim = Simulation(shoes=1500, tables=3, seed=21, bets=False)
    frame = pl.concat([chunk.rounds for chunk in simulate(sim)]).with_columns(
        bank_holder=pl.lit(None, pl.String), shoe_day=pl.lit(None, pl.Date)
    )
    tenures = bank_tenures(frame.lazy()).collect()
    fit = tenure_fit(tenures, by=["game"]).row(0, named=True)
    assert fit["tenures"] > 10_000
    assert fit["p_value"] > 1e-3
    assert fit["pass_rate"] == pytest.approx(fit["expected_pass_rate"], rel=0.02)


def test_a_riding_chemin_de_fer_bank_and_its_levy():
    from models.metrics.streaks import chemin_bank

    frame = rounds("BBPB", game="chemin_de_fer", holders=["2", "2", "2", "4"])
    tenures = bank_tenures(frame.lazy())
    bets = _bets([
        ("T1", "S1", 1, "chemin_de_fer", "banker", D("100"), D("5")),
        ("T1", "S1", 2, "chemin_de_fer", "banker", D("195"), D("9.75")),
        ("T1", "S1", 3, "chemin_de_fer", "banker", D("380.25"), D("0")),
        ("T1", "S1", 4, "chemin_de_fer", "banker", D("100"), D("5")),
    ]).lazy()  # fmt: skip
    bank = chemin_bank(tenures, bets).sort("tenure").collect()
    assert bank.select("bank_first", "bank_last", "bank_max", "levy").rows() == [
        (D("100"), D("380.25"), D("380.25"), D("14.75")),
        (D("100"), D("100"), D("100"), D("5")),
    ]


def test_grouped_binomial_p_values_equal_scipys_binomtest():
    import numpy as np

    from models.metrics.ties import binomial_p_values

    rng = np.random.default_rng(1)
    trials = rng.integers(1, 300, 500)
    p = rng.choice([0.0951, 0.0955, 0.3], 500)
    successes = np.array([rng.integers(0, n + 1) for n in trials])
    expected = [stats.binomtest(int(k), int(n), float(q)).pvalue for k, n, q in zip(successes, trials, p, strict=True)]
    assert binomial_p_values(successes, trials, p) == pytest.approx(expected, rel=1e-12, abs=1e-15)
