"""marts.dealer_pace: hand-computed gaps, breaks, shuffles and medians; shards combined; one day alone."""

import datetime as dt
import random

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.gaming_day import GamingDay, gaming_day
from models.metrics.pace import COLUMNS, ERROR_COUNTS, ORDER, dealer_pace, dealer_pace_combined

DAY = dt.date(2026, 11, 1)
COUP_SCHEMA = {
    "table_id": pl.String, "shoe_id": pl.String, "round_no": pl.Int32, "started_at": pl.Datetime("us", "UTC"),
    "game": pl.String, "dealer_id": pl.String,
}  # fmt: skip
ERROR_SCHEMA = {"dealer_id": pl.String, "table_id": pl.String, "gaming_day": pl.Date} | dict.fromkeys(
    ERROR_COUNTS, pl.Int64
)
NO_ERRORS = pl.DataFrame(schema=ERROR_SCHEMA)
MART_SCHEMA = {
    "dealer_id": pl.String, "table_id": pl.String, "gaming_day": pl.Date, "game": pl.String,
    "coups": pl.Int64, "minutes": pl.Float64, "coups_per_hour": pl.Float64, "house_median": pl.Float64,
    "pace_vs_median": pl.Float64, **dict.fromkeys(ERROR_COUNTS, pl.Int64),
}  # fmt: skip


def at(hour: int, minute: int, second: int = 0, day: dt.date = DAY) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=dt.UTC)


UTC_6AM = GamingDay()


def coups(rows: list[tuple], day: GamingDay = UTC_6AM) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=COUP_SCHEMA, orient="row").with_columns(gaming_day(pl.col("started_at"), day))


def errors(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=ERROR_SCHEMA, orient="row")


#: T1: D1 deals rounds 1-4 of shoe S1 (gaps 1 and 1.5 min, then a 12-minute break), D2 takes over
#: at round 5 (that gap is nobody's) and deals on after the shuffle into S2. T2, same game: D3 deals
#: three coups 45 s apart, and D4 one coup of the next shoe. T3, super6: D1 again, one gap of 2 min.
#: The two coups at T3 with no dealer named are nobody's: no row, and no gap for D1 either.
HAND = [
    ("T1", "S1", 1, at(10, 0), "punto_banco", "D1"),
    ("T1", "S1", 2, at(10, 1), "punto_banco", "D1"),
    ("T1", "S1", 3, at(10, 2, 30), "punto_banco", "D1"),
    ("T1", "S1", 4, at(10, 14, 30), "punto_banco", "D1"),
    ("T1", "S1", 5, at(10, 15, 30), "punto_banco", "D2"),
    ("T1", "S1", 6, at(10, 17), "punto_banco", "D2"),
    ("T1", "S2", 1, at(10, 25), "punto_banco", "D2"),
    ("T1", "S2", 2, at(10, 26), "punto_banco", "D2"),
    ("T1", "S2", 3, at(10, 27), "punto_banco", "D2"),
    ("T2", "S1", 1, at(11, 0), "punto_banco", "D3"),
    ("T2", "S1", 2, at(11, 0, 45), "punto_banco", "D3"),
    ("T2", "S1", 3, at(11, 1, 30), "punto_banco", "D3"),
    ("T2", "S2", 1, at(11, 20), "punto_banco", "D4"),
    ("T3", "S1", 1, at(12, 0), "super6", "D1"),
    ("T3", "S1", 2, at(12, 2), "super6", "D1"),
    ("T3", "S1", 3, at(12, 3), "super6", None),
    ("T3", "S1", 4, at(12, 4), "super6", None),
]


def test_hand_computed_pace_breaks_shuffles_dealer_changes_and_the_median():
    errs = errors([("D1", "T1", DAY, 3, 1, 1, 1), ("D9", "T1", DAY, 1, 1, 0, 0)])  # D9 dealt nothing
    got = dealer_pace(coups(HAND).lazy(), errs)
    # D1 at T1: gaps 1 + 1.5 = 2.5 min, the 12-minute one a break: 2 gaps / (2.5 / 60) = 48 an hour
    # D2 at T1: 10:15:30-10:17 (1.5) and, after the shuffle (left out), 1 + 1: 3 gaps in 3.5 min
    # D3 at T2: 2 gaps in 1.5 min = 80; D4 one coup: no pace. Median of punto_banco: 48, 51.43, 80
    median = 3 / (3.5 / 60)
    expected = pl.DataFrame(
        [
            ("D1", "T1", DAY, "punto_banco", 4, 2.5, 48.0, median, 48.0 / median, 3, 1, 1, 1),
            ("D1", "T3", DAY, "super6", 2, 2.0, 30.0, 30.0, 1.0, 0, 0, 0, 0),
            ("D2", "T1", DAY, "punto_banco", 5, 3.5, median, median, 1.0, 0, 0, 0, 0),
            ("D3", "T2", DAY, "punto_banco", 3, 1.5, 80.0, median, 80.0 / median, 0, 0, 0, 0),
            ("D4", "T2", DAY, "punto_banco", 1, 0.0, None, median, None, 0, 0, 0, 0),
        ],
        schema=MART_SCHEMA,
        orient="row",
    )
    assert got.schema == MART_SCHEMA and got.columns == list(COLUMNS)
    assert_frame_equal(got.sort(ORDER), expected.select(COLUMNS), check_exact=False, rel_tol=1e-12)


def test_the_break_is_configurable_and_a_gap_of_exactly_the_break_counts():
    got = dealer_pace(coups(HAND).lazy(), NO_ERRORS, break_minutes=12.0)
    d1 = got.filter(dealer_id="D1", table_id="T1").row(0, named=True)
    assert (d1["minutes"], d1["coups_per_hour"]) == (14.5, 3 / (14.5 / 60))
    tight = dealer_pace(coups(HAND).lazy(), NO_ERRORS, break_minutes=1.0).filter(dealer_id="D3")
    assert tight["minutes"].to_list() == [1.5]  # 45 s gaps are within a 1-minute break
    with pytest.raises(ValueError, match="minutes >= 0"):
        dealer_pace(coups(HAND).lazy(), NO_ERRORS, break_minutes=-1)


def test_rows_in_any_order_and_categorical_keys_give_the_same_text_keyed_rows():
    ordered = dealer_pace(coups(HAND).lazy(), NO_ERRORS, in_order=True)
    shuffled = coups(HAND).sample(fraction=1.0, shuffle=True, seed=3)
    categorical = shuffled.with_columns(pl.col("table_id", "dealer_id", "game").cast(pl.Categorical))
    got = dealer_pace(categorical.lazy(), NO_ERRORS)
    assert got.schema == ordered.schema
    assert_frame_equal(got.sort(ORDER), ordered.sort(ORDER))


def test_a_dealer_on_two_games_at_one_table_has_the_days_errors_once():
    rows = [
        ("T1", "S1", 1, at(10, 0), "punto_banco", "D1"),
        ("T1", "S1", 2, at(10, 1), "punto_banco", "D1"),
        ("T1", "S2", 1, at(14, 0), "super6", "D1"),
        ("T1", "S2", 2, at(14, 1), "super6", "D1"),
        ("T1", "S2", 3, at(14, 2), "super6", "D1"),
    ]
    got = dealer_pace(coups(rows).lazy(), errors([("D1", "T1", DAY, 2, 1, 0, 1)])).sort("game")
    assert got.select("game", *ERROR_COUNTS).rows() == [("punto_banco", 0, 0, 0, 0), ("super6", 2, 1, 0, 1)]


def test_a_gap_across_the_change_of_gaming_day_belongs_to_the_later_coup():
    rows = [
        ("T1", "S1", 1, at(5, 58), "punto_banco", "D1"),
        ("T1", "S1", 2, at(5, 59), "punto_banco", "D1"),
        ("T1", "S1", 3, at(6, 1), "punto_banco", "D1"),
    ]
    got = dealer_pace(coups(rows).lazy(), NO_ERRORS)
    assert got.select("gaming_day", "coups", "minutes").rows() == [(DAY - dt.timedelta(days=1), 2, 1.0), (DAY, 1, 2.0)]


def simulated(tables: int = 6, days: int = 3, seed: int = 7) -> pl.DataFrame:
    """Coups of several tables and two games over `days`, shoes running past the 06:00 change of
    day, dealers moving between tables every few dozen coups, a break now and then."""
    rng = random.Random(seed)
    rows = []
    for table in range(tables):
        clock = dt.datetime(2026, 11, 1, 2, 0, tzinfo=dt.UTC) + dt.timedelta(minutes=7 * table)
        for shoe in range(days * 3):
            for round_no in range(1, 61):
                clock += dt.timedelta(seconds=rng.uniform(30, 90) + (900 if rng.random() < 0.03 else 0))
                dealer = f"D{(clock.hour // 2 + table) % 9}"
                game = "super6" if table % 3 == 2 else "punto_banco"
                rows.append((f"T{table}", f"S{shoe}", round_no, clock, game, dealer))
            clock += dt.timedelta(hours=rng.uniform(2, 6))  # a shuffle and the table closed a while
    return coups(rows, GamingDay(start_hour=6))


def test_the_shards_combined_are_the_pace_of_all_tables():
    frame = simulated()
    errs = errors(
        [(f"D{d}", f"T{t}", DAY + dt.timedelta(days=day), d + t, t % 2, 0, 1) for d in range(9) for t in range(6)
         for day in range(3)]
    )  # fmt: skip
    whole = dealer_pace(frame.lazy(), errs, in_order=True)
    shards = [["T0", "T3"], ["T1", "T4", "T5"], ["T2"]]
    parts = [
        dealer_pace(
            frame.filter(pl.col("table_id").is_in(tables)).lazy(), errs.filter(pl.col("table_id").is_in(tables))
        )
        for tables in shards
    ]
    combined = dealer_pace_combined(parts)
    assert combined.height == whole.height > 50
    assert_frame_equal(combined, whole.sort(ORDER))
    # each shard's own median differs from the house's: the combine took it again
    assert not parts[2]["house_median"].equals(combined.filter(table_id="T2")["house_median"])


def test_one_gaming_day_built_alone_equals_the_full_build():
    frame = simulated()
    whole = dealer_pace(frame.lazy(), NO_ERRORS)
    for day in frame["gaming_day"].unique().sort():
        # as `build._load` reads a day: every coup of each shoe with a coup that day
        shoes = frame.filter(gaming_day=day).select("table_id", "shoe_id").unique()
        alone = dealer_pace(frame.join(shoes, on=["table_id", "shoe_id"], how="semi").lazy(), NO_ERRORS)
        assert_frame_equal(alone.filter(gaming_day=day).sort(ORDER), whole.filter(gaming_day=day).sort(ORDER))


def test_no_coups_give_no_rows():
    got = dealer_pace(coups([]).lazy(), NO_ERRORS)
    assert got.height == 0 and got.columns == list(COLUMNS)
