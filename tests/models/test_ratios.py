"""The ratios each defined once (models/ratios.py), and the marts that carry them, on hand-made rows."""

import datetime as dt
from decimal import Decimal

import polars as pl
import pytest
from scipy import stats

from models.game.shoe import Composition
from models.metrics.expectation import outcome_shares
from models.metrics.money import table_day
from models.metrics.side_bets import side_bets
from models.odds.exact import exact_odds
from models.ratios import binomial_z, on_handle, ratio

D = Decimal
DAY = dt.date(2026, 11, 2)
MONEY = pl.Decimal(18, 4)


def test_a_ratio_is_null_where_nothing_was_wagered():
    frame = pl.DataFrame(
        {"part": [D(5), D(3), None], "whole": [D(20), D(0), D(4)]}, schema={"part": MONEY, "whole": MONEY}
    )
    assert frame.select(ratio("part", "whole"))["part"].to_list() == [0.25, None, None]


def test_the_holds_and_z_on_handle_come_from_the_sums():
    sums = pl.DataFrame(
        {"handle": [D(200), D(0)], "house_win": [D(-30), D(0)], "theo": [D("2.5"), D(0)], "win_variance": [400.0, 0.0]},
        schema={"handle": MONEY, "house_win": MONEY, "theo": pl.Decimal(18, 6), "win_variance": pl.Float64},
    )
    got = on_handle(sums).select("win_over_handle", "theo_over_handle", "win_vs_theo_z").rows()
    assert got[0] == (pytest.approx(-0.15), pytest.approx(0.0125), pytest.approx((-30 - 2.5) / 20))
    assert got[1] == (None, None, None)  # nothing wagered: no hold, and nothing could vary


def test_pooled_holds_are_ratios_of_sums_not_means_of_ratios():
    days = pl.DataFrame({"handle": [100, 900], "house_win": [50, 9], "theo": [1, 9], "win_variance": [1.0, 1.0]})
    pooled = on_handle(days.select(pl.all().sum())).row(0, named=True)
    assert pooled["win_over_handle"] == pytest.approx(59 / 1000)  # the mean of 0.5 and 0.01 would be 0.255


def test_a_counts_z_against_its_exact_rate():
    counts = pl.DataFrame({"ties": [12, 40], "coups": [100, 50], "rate": [0.1, 0.5]})
    z = counts.select(binomial_z("ties", "coups", "rate"))["ties"].to_list()
    assert z == [pytest.approx((12 - 10) / 3), pytest.approx((40 - 25) / 12.5**0.5)]  # sqrt(100 x 0.1 x 0.9) = 3


def test_outcome_shares_are_each_outcomes_share_and_its_z_against_the_exact_odds():
    odds = exact_odds(Composition.full(8))
    volume = pl.DataFrame(
        {"game": ["punto_banco"], "decks": [8], "coups": [1_000], "banker": [470], "player": [430], "ties": [100]}
    )
    got = {row["outcome"]: row for row in outcome_shares(volume).iter_rows(named=True)}
    assert got.keys() == {"B", "P", "T"} and got["T"]["coups"] == 100 and got["T"]["share"] == 0.1
    p = odds.p_tie
    assert got["T"]["expected"] == pytest.approx(p, rel=1e-12)
    assert got["T"]["z"] == pytest.approx((100 - 1_000 * p) / (1_000 * p * (1 - p)) ** 0.5, rel=1e-9)


def test_outcome_shares_give_each_shares_deviation_from_the_odds_and_its_exact_interval():
    p = exact_odds(Composition.full(8)).p_tie
    volume = pl.DataFrame(
        {"game": ["punto_banco"], "decks": [8], "coups": [1_000], "banker": [1_000], "player": [0], "ties": [0]}
    )
    got = {
        row["outcome"]: row
        for row in outcome_shares(volume.with_columns(banker=470, player=430, ties=100)).iter_rows(named=True)
    }
    exact = stats.binomtest(100, 1_000).proportion_ci(0.95, method="exact")
    assert got["T"]["deviation"] == pytest.approx(0.1 - p, rel=1e-12)
    assert (got["T"]["low"], got["T"]["high"]) == (pytest.approx(exact.low - p), pytest.approx(exact.high - p))
    assert got["T"]["low"] < got["T"]["deviation"] < got["T"]["high"]
    edges = {row["outcome"]: row for row in outcome_shares(volume).iter_rows(named=True)}  # all Banker
    assert edges["B"]["high"] == pytest.approx(1 - edges["B"]["expected"]) and edges["P"]["low"] == pytest.approx(
        -edges["P"]["expected"]
    )


def test_table_day_carries_win_and_theo_over_handle_beside_hold_pct():
    placed = pl.DataFrame(
        {
            "table_id": ["T1", "T1", "T2"],
            "gaming_day": [DAY] * 3,
            "game": ["punto_banco"] * 3,
            "decks": pl.Series([8] * 3, dtype=pl.Int8),
            "bet": ["banker", "tie", "player"],
            "amount": pl.Series([D(100), D(20), D(50)], dtype=MONEY),
            "house_net": pl.Series([D(-95), D(20), D(50)], dtype=MONEY),
            "theo": pl.Series([D("1.057906"), D("2.871926"), D("0.617541")], dtype=pl.Decimal(18, 6)),
        }
    )
    variance = pl.DataFrame(
        {"game": "punto_banco", "decks": pl.Series([8] * 3, dtype=pl.Int8), "bet": ["banker", "player", "tie"],
         "house_variance": [0.86, 0.9, 7.0]}
    )  # fmt: skip
    got = {row["table_id"]: row for row in table_day(placed.lazy(), variance).iter_rows(named=True)}
    one = got["T1"]
    assert one["win_over_handle"] == pytest.approx(-75 / 120)
    assert one["theo_over_handle"] == pytest.approx((1.057906 + 2.871926) / 120)
    assert one["hold_pct"] == pytest.approx(one["win_over_handle"] * 100)
    assert got["T2"]["win_over_handle"] == 1.0 and got["T2"]["theo_over_handle"] == pytest.approx(0.617541 / 50)


def test_side_bets_carry_win_and_theo_over_handle():
    cells = pl.DataFrame(
        {
            "gaming_day": [DAY, DAY],
            "table_id": ["T1", "T1"],
            "game": ["punto_banco"] * 2,
            "bet": ["dragon7", "tie"],
            "wagers": [2, 1],
            "handle": [D(40), D(5)],
            "house_win": [D(-575), D(5)],
            "theo": [D("3.0"), D("0.717981")],
            "win_variance": [1000.0, 174.36],
        }
    )
    got = {row["bet"]: row for row in side_bets(cells).iter_rows(named=True)}
    assert got["dragon7"]["win_over_handle"] == pytest.approx(-575 / 40)
    assert got["dragon7"]["theo_over_handle"] == pytest.approx(3 / 40)
    assert got["tie"]["win_over_handle"] == 1.0 and got["tie"]["hold_pct"] == 100.0
