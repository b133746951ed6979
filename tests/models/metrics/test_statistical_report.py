"""The statistical report's periods and each regulator's flag, on crafted months just inside and
just outside its threshold (docs/metrics.md, The statistical report)."""

import datetime as dt
import math
from decimal import Decimal

import polars as pl
import pytest

from models.metrics.statistical_report import Z95, statistical_report

D = Decimal
SCHEMA = {
    "table_id": pl.String, "gaming_day": pl.Date, "game": pl.String, "drop": pl.Decimal(18, 2),
    "win": pl.Decimal(18, 2), "win_variance": pl.Float64,
}  # fmt: skip


def days(*rows: tuple) -> pl.DataFrame:
    """(table_id, gaming_day, drop, win[, win_variance[, game]]) as marts.count_room's rows."""
    full = [
        (row[0], row[1], row[5] if len(row) > 5 else "punto_banco", None if row[2] is None else D(row[2]),
         None if row[3] is None else D(row[3]), row[4] if len(row) > 4 else 0.0)
        for row in rows
    ]  # fmt: skip
    return pl.DataFrame(full, schema=SCHEMA, orient="row")


def row(report: pl.DataFrame, table: str, day: dt.date, game: str = "punto_banco") -> dict:
    return report.filter(table_id=table, gaming_day=day, game=game).row(0, named=True)


NOV1, NOV2 = dt.date(2026, 11, 1), dt.date(2026, 11, 2)
#: Its prior year held 12 % of 100,000; the MTD win's standard deviation is 1,000 on a drop of 50,000,
#: so the interval is 12 +- 1.96 x 1000 / 50000 x 100 = 12 +- 3.92 points.
HALF = Z95 * 1000 / 50000 * 100


def maryland(win: str) -> pl.DataFrame:
    return statistical_report(
        days(("T1", dt.date(2025, 6, 1), "100000", "12000", 4e6), ("T1", NOV1, "50000", win, 1e6)),
        ["maryland", "kansas", "ohio"],
    )


@pytest.mark.parametrize("win, flagged", [("7950", False), ("7975", True), ("4050", False), ("4025", True)])
def test_maryland_flags_a_month_outside_the_interval_around_the_prior_year(win, flagged):
    # 15.90 % and 8.10 % are inside 12 +- 3.92; 15.95 % and 8.05 % outside
    got = row(maryland(win), "T1", NOV1)
    assert (got["md_base_hold_pct"], got["md_base_period"]) == (pytest.approx(12.0), "2025")
    assert (got["md_ci_low"], got["md_ci_high"]) == (pytest.approx(12 - HALF), pytest.approx(12 + HALF))
    assert got["mtd_hold_pct"] == pytest.approx(float(win) / 500) and got["md_flag"] is flagged
    assert got["investigate"] is True  # Kansas flags any month over 3 points from 12 %


def test_maryland_in_the_first_year_takes_the_prior_month():
    report = statistical_report(
        days(
            ("T2", dt.date(2026, 10, 5), "6000", "900"),
            ("T2", dt.date(2026, 10, 20), "4000", "600"),  # October: 1,500 of 10,000, 15 %
            ("T2", NOV1, "20000", "3000", 40000.0),  # sd 200 on 20,000: 15 +- 1.96 points
            ("T2", NOV2, "20000", "3800", 50000.0),  # MTD 6,800 of 40,000, sd 300: 17 % against 15 +- 1.47
        )
    )
    october = row(report, "T2", dt.date(2026, 10, 20))
    assert (october["md_base_hold_pct"], october["md_flag"], october["ks_flag"]) == (None, None, None)
    first = row(report, "T2", NOV1)
    assert (first["md_base_hold_pct"], first["md_base_period"]) == (pytest.approx(15.0), "2026-10")
    assert (first["md_ci_low"], first["md_flag"]) == (pytest.approx(15 - Z95 * 200 / 20000 * 100), False)
    second = row(report, "T2", NOV2)
    assert (second["mtd_drop"], second["mtd_win"], second["mtd_win_variance"]) == (D(40000), D(6800), 90000.0)
    assert second["md_ci_high"] == pytest.approx(15 + Z95 * 300 / 40000 * 100)
    assert (second["mtd_hold_pct"], second["md_flag"], second["ks_flag"]) == (pytest.approx(17.0), True, False)
    assert (second["ytd_drop"], second["ytd_win"], second["ytd_hold_pct"]) == (D(50000), D(8300), pytest.approx(16.6))
    assert (second["drop"], second["win"], second["hold_pct"]) == (D(20000), D(3800), pytest.approx(19.0))
    assert second["investigate"] is True and first["investigate"] is False  # the default rules: Maryland's


@pytest.mark.parametrize("win, flagged", [("7495", False), ("7505", True), ("4505", False), ("4495", True)])
def test_kansas_flags_a_month_more_than_three_points_from_its_base(win, flagged):
    # 14.99 % and 9.01 % within 3 points of 12 %; 15.01 % and 8.99 % beyond
    got = row(maryland(win), "T1", NOV1)
    assert (got["ks_base_hold_pct"], got["ks_flag"]) == (pytest.approx(12.0), flagged)
    report = statistical_report(
        days(("T1", dt.date(2025, 6, 1), "100000", "12000"), ("T1", NOV1, "50000", win)), ["kansas"]
    )
    assert row(report, "T1", NOV1)["investigate"] is flagged


@pytest.mark.parametrize("win, flagged", [("140", False), ("141", True)])
def test_ohio_flags_the_rolling_30_days_more_than_four_points_from_the_lifetime(win, flagged):
    start, later = dt.date(2026, 9, 1), dt.date(2026, 10, 11)
    report = statistical_report(days(("T3", start, "100000", "10000"), ("T3", later, "1000", win)), ["ohio"])
    got = row(report, "T3", later)
    # the 30 days to Oct 11 hold only its 1,000; the lifetime 10,000 + win of 101,000
    assert got["oh_rolling_hold_pct"] == pytest.approx(float(win) / 10)
    assert got["oh_lifetime_hold_pct"] == pytest.approx((10000 + float(win)) / 101000 * 100)
    assert math.isclose(abs(got["oh_rolling_hold_pct"] - got["oh_lifetime_hold_pct"]), 4, abs_tol=0.07)
    assert (got["oh_flag"], got["investigate"]) == (flagged, flagged)
    assert row(report, "T3", start)["oh_flag"] is None  # the first 30 days are the whole lifetime


def test_ohios_window_is_the_30_gaming_days_ending_that_day():
    first = dt.date(2026, 9, 1)
    report = statistical_report(
        days(
            ("T3", first, "1000", "100"),
            ("T3", first + dt.timedelta(days=1), "1000", "200"),
            ("T3", first + dt.timedelta(days=30), "1000", "300"),
        )
    )
    day30 = row(report, "T3", first + dt.timedelta(days=30))
    # Sep 2 to Oct 1: the first day is out of the window, the second in
    assert day30["oh_rolling_hold_pct"] == pytest.approx(25.0) and day30["oh_lifetime_hold_pct"] == pytest.approx(20.0)
    assert day30["oh_flag"] is True and row(report, "T3", first + dt.timedelta(days=1))["oh_flag"] is None


def test_a_day_without_drop_has_no_hold_and_a_day_without_a_count_adds_to_no_period():
    report = statistical_report(
        days(
            ("T1", dt.date(2026, 10, 1), "1000", "100"),
            ("T1", NOV1, "0", "0"),
            ("T1", NOV2, "5000", None),  # a shift not closed: the day's win is unknown
        )
    )
    empty = row(report, "T1", NOV1)
    assert (empty["hold_pct"], empty["mtd_hold_pct"], empty["md_flag"], empty["ks_flag"]) == (None, None, None, None)
    assert empty["md_base_hold_pct"] == pytest.approx(10.0)
    unknown = row(report, "T1", NOV2)
    assert (unknown["drop"], unknown["win"], unknown["hold_pct"]) == (D(5000), None, None)
    assert (unknown["mtd_drop"], unknown["mtd_win"], unknown["ytd_drop"]) == (D(0), D(0), D(1000))


def test_a_table_with_two_games_in_a_month_is_two_rows():
    report = statistical_report(
        days(("T4", NOV1, "1000", "100", 0.0, "punto_banco"), ("T4", NOV2, "2000", "100", 0.0, "super6"))
    )
    assert report.select("game", "gaming_day", "mtd_drop").rows() == [
        ("punto_banco", NOV1, D(1000)),
        ("super6", NOV2, D(2000)),
    ]


def test_no_days_give_an_empty_report_and_an_unknown_rule_is_named():
    assert statistical_report(pl.DataFrame(schema=SCHEMA)).height == 0
    with pytest.raises(ValueError, match=r"^the report's rules are maryland, kansas, ohio, got nevada$"):
        statistical_report(pl.DataFrame(schema=SCHEMA), ["nevada"])


def test_maryland_has_no_interval_where_the_house_staked_nothing():
    # a player-banked table: the house's win is no sample of a game's edge, so no interval and no flag
    report = statistical_report(days(("T9", dt.date(2025, 6, 1), "100000", "-500", 0.0), ("T9", NOV1, "50000", "0")))
    got = row(report, "T9", NOV1)
    assert got["md_base_hold_pct"] == pytest.approx(-0.5)
    assert (got["md_ci_low"], got["md_ci_high"], got["md_flag"]) == (None, None, None)
