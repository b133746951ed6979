"""The pooled views' theory: expected shares, funnel limits, tenure hazard, pooled z, commission what-if."""

import datetime as dt
from decimal import Decimal

import numpy as np
import polars as pl
import pytest

from models.game.shoe import Composition
from models.metrics.expectation import (
    expected_shares,
    funnel_limits,
    tenure_hazard,
)
from models.metrics.money import Rounding, table_day, win_vs_theo_z
from models.metrics.streaks import tenure_fit
from models.metrics.what_if import commission_what_if
from models.odds.exact import exact_odds

D = Decimal


def test_expected_shares_weigh_each_shoe_type_by_its_coups():
    eight, six = exact_odds(Composition.full(8)), exact_odds(Composition.full(6))
    coups = pl.DataFrame({"game": ["punto_banco"] * 2, "decks": [8, 6], "coups": [300, 100]})
    shares = expected_shares(coups)
    assert shares["B"] == pytest.approx(0.75 * eight.p_banker + 0.25 * six.p_banker, rel=1e-12)
    assert shares["T"] == pytest.approx(0.75 * eight.p_tie + 0.25 * six.p_tie, rel=1e-12)
    assert sum(shares.values()) == pytest.approx(1.0)


def test_funnel_limits_narrow_with_volume_and_hold_95_percent_of_binomial_rates():
    p = exact_odds(Composition.full(8)).p_tie
    limits = funnel_limits(p, [100, 1_000, 100_000])
    widths = (limits["high"] - limits["low"]).to_list()
    assert widths[0] > widths[1] > widths[2]
    assert limits["high"][2] - p == pytest.approx(1.96 * (p * (1 - p) / 100_000) ** 0.5, rel=0.02)
    rates = np.random.default_rng(1).binomial(1_000, p, 20_000) / 1_000
    inside = ((rates >= limits["low"][1]) & (rates <= limits["high"][1])).mean()
    assert 0.94 <= inside <= 0.99  # discrete limits are conservative


def test_tenure_hazard_gives_tenure_fits_chi_square():
    rng = np.random.default_rng(7)
    decided = rng.geometric(0.5, 3_000).clip(1, 20)
    passed = rng.random(3_000) < 0.8
    tenures = pl.DataFrame(
        {
            "table_id": "T1",
            "game": "punto_banco",
            "decks": pl.Series([8] * 3_000, dtype=pl.Int8),
            "decided": decided,
            "ended_by": np.where(passed, "pass", "shoe_end"),
        }
    )
    fit = tenure_fit(tenures, by=["table_id"]).row(0, named=True)
    counts = (
        tenures.group_by("game", "decks", "decided", passed=pl.col("ended_by") == "pass")
        .agg(tenures=pl.len())
        .with_columns(pl.col("decided").cast(pl.Int64))
    )
    hazard = tenure_hazard(counts)
    q = fit["q"]
    usable = hazard.filter(pl.col("expected_passes") > 5)
    chi2 = ((usable["passes"] - usable["expected_passes"]) ** 2 / (usable["expected_passes"] * q)).sum()
    assert chi2 == pytest.approx(fit["chi2"], rel=1e-9)
    assert hazard["passes"].sum() == fit["completed"]
    assert hazard["expected_pass_rate"].to_list() == pytest.approx([1 - q] * 8)


def test_pooled_z_equals_the_z_of_the_pooled_wagers():
    rng = np.random.default_rng(3)
    n = 400
    placed = pl.DataFrame(
        {
            "table_id": rng.choice(["T1", "T2"], n),
            "gaming_day": [dt.date(2026, 11, 1 + int(d)) for d in rng.integers(0, 3, n)],
            "game": "punto_banco",
            "decks": pl.Series([8] * n, dtype=pl.Int8),
            "bet": rng.choice(["banker", "player", "tie"], n),
            "amount": pl.Series([D(int(a)) for a in rng.integers(10, 500, n)], dtype=pl.Decimal(18, 4)),
            "house_net": pl.Series([D(int(a)) for a in rng.integers(-500, 500, n)], dtype=pl.Decimal(18, 4)),
            "theo": pl.Series([D(int(a)) / 100 for a in rng.integers(0, 500, n)], dtype=pl.Decimal(18, 6)),
        }
    )
    variance = pl.DataFrame(
        {
            "game": "punto_banco",
            "decks": pl.Series([8] * 3, dtype=pl.Int8),
            "bet": ["banker", "player", "tie"],
            "house_variance": [0.9, 0.95, 7.0],
        }
    )
    daily = table_day(placed.lazy(), variance)
    pooled = daily.group_by("table_id").agg(pl.col("house_win", "theo", "win_variance").sum())
    pooled = pooled.with_columns(z=win_vs_theo_z())
    whole = table_day(placed.lazy(), variance, by=("table_id",))
    assert pooled.sort("table_id")["z"].to_list() == pytest.approx(whole.sort("table_id")["win_vs_theo_z"].to_list())


def test_commission_what_if_applies_rate_and_rounding_to_each_wager():
    won = pl.DataFrame({"game": ["punto_banco", "punto_banco"], "amount": [D(100), D(30)], "wagers": [3, 1]})

    def at(rate, policy, unit="1"):
        return commission_what_if(won, D(rate), Rounding(policy, D(unit)))["commission"].item()

    assert at("0.05", "exact") == D("16.5")
    assert at("0.05", "down") == D(16)  # 1.50 rounds down to 1
    assert at("0.05", "up") == D(17)
    assert at("0.05", "up", "0.25") == D("16.5")
    assert at("0.04", "exact") == D("13.2")
    assert commission_what_if(won, D("0.05"), Rounding())["won_amount"].item() == D(330)
