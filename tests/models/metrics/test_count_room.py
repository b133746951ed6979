"""The count room's shifts and days, computed by hand (docs/metrics.md, Count room)."""

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.contract import EVENT_SCHEMA
from models.game.paytable import DEFAULT_PAYTABLE
from models.gaming_day import GamingDay, gaming_day
from models.metrics.build import MartConfig, build
from models.metrics.count_room import count_room, shift_wagers, table_shifts
from models.settings import Settings
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.settlement import house_expectation
from models.warehouse.store import read, write
from pipelines.defs.resources import Warehouse

DAY = GamingDay("UTC", 6)
D = Decimal


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=dt.UTC)


def events(*rows: tuple) -> pl.DataFrame:
    """(table_id, shift_id, event, recorded_at, amount[, denominations]) rows as core.table_events."""
    full = [
        {
            "table_id": row[0], "shift_id": row[1], "event_id": f"{row[1]}-{n}", "event": row[2],
            "recorded_at": row[3], "amount": D(row[4]), "denominations": row[5] if len(row) > 5 else None,
            "player_id": None, "employee_id": None,
        }
        for n, row in enumerate(rows)
    ]  # fmt: skip
    return pl.DataFrame(full, schema=EVENT_SCHEMA)


#: Coups (table, shoe, round, started_at) and one wager on each (bet, amount, house_net).
PLAY = [
    ("T1", "S1", 1, at(2, 8, 10), "banker", "100", "-95"),
    ("T1", "S1", 2, at(2, 8, 20), "player", "200", "200"),
    ("T1", "S1", 3, at(2, 8, 30), "tie", "50", "-400"),
    ("T1", "S1", 4, at(2, 13), "banker", "1000", "1000"),
    ("T2", "S2", 1, at(2, 23), "banker", "300", "300"),
    ("T2", "S2", 2, at(3, 6, 30), "player", "100", "-100"),  # the next gaming day, the same shift
    ("T2", "S3", 1, at(3, 10), "banker", "40", "40"),
    ("T2", "S3", 2, at(3, 7, 30), "banker", "10", "10"),  # between T2's shifts: in none
]


def variance() -> pl.DataFrame:
    """Each bet's exact variance per unit (cached by settlement; computed when a test first asks)."""
    return house_expectation(DEFAULT_PAYTABLE).select("game", "decks", "bet", "house_variance")


def unit(bet: str) -> float:
    """The variance per unit of `bet` at eight-deck Punto Banco."""
    return variance().filter(game="punto_banco", decks=8, bet=bet)["house_variance"].item()


def coups() -> pl.DataFrame:
    return pl.DataFrame(
        [(t, s, r, when, "punto_banco", 8) for t, s, r, when, *_ in PLAY],
        schema={"table_id": pl.String, "shoe_id": pl.String, "round_no": pl.Int32,
                "started_at": pl.Datetime("us", "UTC"), "game": pl.String, "decks": pl.Int8},
        orient="row",
    )  # fmt: skip


def wagers() -> pl.DataFrame:
    bets = pl.DataFrame(
        [(t, s, r, "punto_banco", bet, D(a), D(net), D(a) * D("0.01")) for t, s, r, _, bet, a, net in PLAY],
        schema={"table_id": pl.String, "shoe_id": pl.String, "round_no": pl.Int32, "game": pl.String, "bet": pl.String,
                "amount": pl.Decimal(18, 2), "house_net": pl.Decimal(18, 4), "theo": pl.Decimal(18, 6)},
        orient="row",
    )  # fmt: skip
    return shift_wagers(bets, coups(), variance())


#: T1's day shift: a fill and a credit; its swing shift: a marker and a marker payment. T2's night shift
#: crosses the gaming day's start (06:00); its next shift has no closer; T3's has no opener.
EVENTS = events(
    ("T1", "A", "opener", at(2, 8), "10000", "1000x5 100x40 25x40"),
    ("T1", "A", "fill", at(2, 9), "2000"),
    ("T1", "A", "credit", at(2, 10), "500"),
    ("T1", "A", "drop", at(2, 11, 59), "3000"),
    ("T1", "A", "closer", at(2, 12), "8205", "1000x8 100x2 5x1"),
    ("T1", "B", "opener", at(2, 12), "8205"),
    ("T1", "B", "marker", at(2, 12, 30), "1000"),
    ("T1", "B", "marker_payment", at(2, 14), "400"),
    ("T1", "B", "drop", at(2, 17, 59), "2500"),
    ("T1", "B", "closer", at(2, 18), "6080", "1000x6 25x3 5x1"),
    ("T2", "N", "opener", at(2, 22), "5000"),
    ("T2", "N", "drop", at(3, 6, 55), "700"),
    ("T2", "N", "closer", at(3, 7), "4500"),
    ("T2", "M", "opener", at(3, 8), "4500"),
    ("T2", "M", "fill", at(3, 9), "1000"),
    ("T3", "X", "drop", at(3, 9), "100"),
    ("T3", "X", "closer", at(3, 12), "900"),
)


@pytest.fixture(scope="module")
def shifts() -> dict[tuple[str, str], dict]:
    frame = table_shifts(EVENTS, coups(), wagers(), DAY)
    return {(row["table_id"], row["shift_id"]): row for row in frame.iter_rows(named=True)}


def test_a_fill_and_a_credit_in_one_shift(shifts):
    a = shifts["T1", "A"]
    assert (a["opener"], a["closer"], a["fills"], a["credits"], a["drop_box"]) == (
        D(10000),
        D(8205),
        D(2000),
        D(500),
        D(3000),
    )
    # win = drop + credits - fills + (closer - opener) = 3000 + 500 - 2000 + (8205 - 10000)
    assert a["drop"] == D(3000) and a["win"] == D(-295)
    assert a["hold_pct"] == pytest.approx(-295 / 3000 * 100)
    # the coups from its opener (08:00) to before its closer (12:00): -95 + 200 - 400
    assert (a["coups"], a["handle"], a["wagers_win"], a["theo"]) == (3, D(350), D(-295), D("3.5"))
    assert a["theo_hold_pct"] == pytest.approx(3.5 / 3000 * 100)
    assert a["win_variance"] == pytest.approx(100**2 * unit("banker") + 200**2 * unit("player") + 50**2 * unit("tie"))
    assert (a["difference"], a["tolerance"], a["reconciled"], a["status"]) == (0, D(5), True, "reconciled")
    assert (a["gaming_day"], a["game"], a["opened_at"], a["closed_at"]) == (
        dt.date(2026, 11, 2),
        "punto_banco",
        at(2, 8),
        at(2, 12),
    )


def test_a_marker_counts_as_drop_and_its_payment_comes_off(shifts):
    b = shifts["T1", "B"]
    # drop = 2500 in the box + 1000 of marker - 400 repaid; win = 3100 + 0 - 0 + (6080 - 8205) = 975
    assert (b["markers"], b["marker_payments"], b["drop"], b["win"]) == (D(1000), D(400), D(3100), D(975))
    assert (b["coups"], b["wagers_win"], b["difference"]) == (1, D(1000), D(-25))
    # the smallest chip in its trays (the closer's 5) is the tolerance: 25 short is unreconciled
    assert (b["tolerance"], b["reconciled"], b["status"]) == (D(5), False, "unreconciled")


def test_a_shift_crossing_the_gaming_days_start_is_the_day_it_opened(shifts):
    n = shifts["T2", "N"]
    assert n["gaming_day"] == dt.date(2026, 11, 2) and n["coups"] == 2  # 23:00 and 06:30 the next morning
    assert (n["wagers_win"], n["win"], n["difference"], n["reconciled"]) == (D(200), D(200), 0, True)
    # no denominations anywhere: one unit
    assert n["tolerance"] == D(1)


def test_a_shift_without_a_closer_or_an_opener_has_no_win(shifts):
    m = shifts["T2", "M"]
    assert (m["status"], m["win"], m["hold_pct"], m["difference"], m["reconciled"]) == (
        "no_closer",
        None,
        None,
        None,
        False,
    )
    # its coups run on while it is the table's last shift: 10:00, not 07:30 before it opened
    assert (m["gaming_day"], m["coups"], m["wagers_win"], m["fills"]) == (dt.date(2026, 11, 3), 1, D(40), D(1000))
    x = shifts["T3", "X"]
    assert (x["status"], x["opened_at"], x["win"], x["reconciled"], x["coups"]) == ("no_opener", None, None, False, 0)
    assert x["gaming_day"] == dt.date(2026, 11, 3) and x["game"] is None and x["drop"] == D(100)


@pytest.mark.parametrize(
    "closer, setting, tolerance, reconciled",
    [
        ("8180", None, "25", True),  # 25 short, the smallest chip 25: within
        ("8179", None, "25", False),  # 26 short
        ("8230", None, "25", True),  # 25 over
        ("8180", "0.01", "0.01", False),  # a setting overrides the chips
        ("8205.01", "0.01", "0.01", True),
    ],
)
def test_the_tolerance_is_one_chip_of_the_smallest_denomination(closer, setting, tolerance, reconciled):
    slips = EVENTS.filter(pl.col("shift_id") == "A").with_columns(
        amount=pl.when(pl.col("event") == "closer").then(pl.lit(D(closer))).otherwise("amount").cast(pl.Decimal(18, 2)),
        denominations=pl.when(pl.col("event") == "closer").then(None).otherwise("denominations"),
    )
    row = table_shifts(slips, coups(), wagers(), DAY, None if setting is None else D(setting)).row(0, named=True)
    assert (row["tolerance"], row["reconciled"]) == (D(tolerance), reconciled)
    assert row["difference"] == D(closer) - D(8205)


def test_a_table_day_adds_up_its_shifts():
    days = count_room(table_shifts(EVENTS, coups(), wagers(), DAY))
    t1 = days.filter(table_id="T1").row(0, named=True)
    assert (t1["gaming_day"], t1["game"], t1["shifts"], t1["coups"]) == (dt.date(2026, 11, 2), "punto_banco", 2, 4)
    assert (t1["opener"], t1["closer"], t1["fills"], t1["credits"]) == (D(10000), D(6080), D(2000), D(500))
    assert (t1["drop_box"], t1["markers"], t1["marker_payments"], t1["drop"]) == (D(5500), D(1000), D(400), D(6100))
    assert (t1["win"], t1["wagers_win"], t1["difference"]) == (D(680), D(705), D(-25))
    assert t1["hold_pct"] == pytest.approx(680 / 6100 * 100)
    assert (t1["unreconciled_shifts"], t1["reconciled"]) == (1, False)
    # T2 on the 3rd: a shift with no closer leaves the day's win unknown; T3's shift without coups takes no game
    t2 = days.filter(table_id="T2", gaming_day=dt.date(2026, 11, 3)).row(0, named=True)
    assert (t2["win"], t2["difference"], t2["drop"], t2["hold_pct"]) == (None, None, D(0), None)
    assert days.filter(table_id="T3")["game"].to_list() == [None]


def test_a_shift_without_coups_takes_its_tables_game_for_the_day():
    quiet = events(
        ("T1", "A", "opener", at(2, 8), "100"), ("T1", "A", "closer", at(2, 9), "100"),
        ("T1", "C", "opener", at(2, 20), "100"), ("T1", "C", "drop", at(2, 21), "50"),
        ("T1", "C", "closer", at(2, 22), "150"),
    )  # fmt: skip
    shifts = table_shifts(quiet, coups(), wagers(), DAY)
    assert shifts["game"].to_list() == ["punto_banco", None]
    c = shifts.filter(shift_id="C").row(0, named=True)
    assert (c["coups"], c["handle"], c["wagers_win"], c["win_variance"], c["win"], c["status"]) == (
        0,
        0,
        0,
        0.0,
        D(100),
        "unreconciled",
    )
    days = count_room(shifts)
    assert days.select("game", "shifts").rows() == [("punto_banco", 2)]


def test_no_events_give_empty_marts_with_their_columns():
    shifts = table_shifts(pl.DataFrame(schema=EVENT_SCHEMA), coups(), wagers(), DAY)
    assert shifts.height == 0 and shifts.columns[:4] == ["table_id", "shift_id", "gaming_day", "game"]
    days = count_room(shifts)
    assert days.height == 0 and "unreconciled_shifts" in days.columns


# ---- through `build()` on a warehouse of simulated rounds and bets, with a day's table events beside them

START = dt.date(2026, 11, 1)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("count_room")
    write_simulation(Simulation(shoes=8, tables=2, shoes_per_day=2, start=START, seed=4), root / "landing")
    db = root / "banco.duckdb"
    # the rounds and bets alone: the count's slips are written below, to agree with them
    ingest(db, sorted(root.glob("landing/rounds*")) + sorted(root.glob("landing/bets*")))
    return db


def slips(db: Path) -> list[dict]:
    """A shift per table and gaming day of its coups, from a minute before the first to a minute
    after the last, whose count agrees with the wagers to the cent; T02's last shift 100 short."""
    con = read(db)
    try:
        played = con.sql(
            "SELECT r.table_id, r.started_at, coalesce(sum(b.house_net), 0) AS won FROM core.rounds r "
            "LEFT JOIN core.bets b USING (table_id, shoe_id, round_no) GROUP BY ALL"
        ).pl()
    finally:
        con.close()
    shifts = (
        played.with_columns(pl.col("started_at").dt.convert_time_zone("UTC"))
        .with_columns(gaming_day(pl.col("started_at"), DAY))
        .group_by("table_id", "gaming_day")
        .agg(first=pl.col("started_at").min(), last=pl.col("started_at").max(), won=pl.col("won").sum())
        .sort("table_id", "gaming_day")
    )
    rows, minute = [], dt.timedelta(minutes=1)
    for n, shift in enumerate(shifts.iter_rows(named=True)):
        table, shift_id, won = shift["table_id"], f"{shift['table_id']}-{shift['gaming_day']}", shift["won"]
        # drop 3,000 in the box + a 1,000 marker - 400 repaid; a fill of 2,000 and a credit of 500
        closer = D(50000) + won - D(3600) - D(500) + D(2000)
        short = D(100) if (table, shift["gaming_day"]) == (shifts["table_id"][-1], shifts["gaming_day"][-1]) else 0
        for kind, when, amount, chips in (
            ("opener", shift["first"] - minute, D(50000), "1000x40 100x90 25x40"),
            ("fill", shift["first"], D(2000), ""),
            ("marker", shift["first"], D(1000), ""),
            ("credit", shift["last"], D(500), ""),
            ("marker_payment", shift["last"], D(400), ""),
            ("drop", shift["last"] + minute, D(3000), ""),
            ("closer", shift["last"] + minute, closer - short, ""),
        ):
            rows.append(
                {"table_id": table, "shift_id": shift_id, "event_id": f"{kind}-{n}", "event": kind,
                 "recorded_at": when.isoformat(), "amount": str(amount), "denominations": chips,
                 "player_id": "P1" if kind.startswith("marker") else "", "employee_id": "E1"}
            )  # fmt: skip
    return rows


def marts(db: Path) -> dict[str, pl.DataFrame]:
    con = read(db)
    try:
        names = ("table_shift", "count_room", "statistical_report")
        return {name: con.sql(f"SELECT * FROM marts.{name}").pl() for name in names}
    finally:
        con.close()


@pytest.mark.slow
def test_the_count_room_through_build(warehouse, tmp_path):
    build(warehouse)  # no table events yet: the count room's marts are there, empty
    assert {name: frame.height for name, frame in marts(warehouse).items()} == dict.fromkeys(
        ("table_shift", "count_room", "statistical_report"), 0
    )
    events = tmp_path / "events.csv"
    written = slips(warehouse)
    pl.DataFrame(written).write_csv(events)
    ingest(warehouse, [events])
    built = build(warehouse)
    got = marts(warehouse)
    shifts, days, report = got["table_shift"], got["count_room"], got["statistical_report"]
    assert built["marts.table_shift"] == shifts.height == len(written) // 7 >= 4
    assert built["marts.statistical_report"] == report.height == days.height == shifts.height
    # every shift's count agrees with its wagers to the cent, but the one 100 short
    off = shifts.filter(~pl.col("reconciled"))
    assert off.select("table_id", "status", "difference").rows() == [("T02", "unreconciled", D(-100))]
    assert (shifts["tolerance"] == D(25)).all() and (shifts["drop"] == D(3600)).all()
    con = read(warehouse)
    try:
        wagered = con.sql("SELECT sum(house_net), sum(amount), sum(theo) FROM core.bets").fetchall()[0]
        coups = con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0]
    finally:
        con.close()
    assert (shifts["wagers_win"].sum(), shifts["handle"].sum(), shifts["theo"].sum()) == wagered
    assert shifts["coups"].sum() == coups and shifts["win"].sum() == wagered[0] - 100
    assert days["win"].sum() == shifts["win"].sum() and (days["game"] == "punto_banco").all()
    # the month to date of each table's last day is its days added up
    last = report.sort("gaming_day").group_by("table_id").last().sort("table_id")
    by_table = days.group_by("table_id").agg(pl.col("drop", "win").sum()).sort("table_id")
    assert last["mtd_drop"].to_list() == by_table["drop"].to_list()
    assert last["mtd_win"].to_list() == by_table["win"].to_list()
    assert report["md_base_hold_pct"].drop_nulls().len() == 0  # no prior month, no prior year

    # a day rebuilt alone stores what the full rebuild did
    day = shifts["gaming_day"].max()
    build(warehouse, days=[day])
    again = marts(warehouse)
    for name, frame in got.items():
        # the variances are float sums, in another order
        left, right = again[name].sort(frame.columns[:3]), frame.sort(frame.columns[:3])
        assert_frame_equal(left, right, check_exact=False, rel_tol=1e-12, abs_tol=0)

    # a warehouse built by a release before the count room rebuilds every day on a day's build
    with write(warehouse) as con:
        con.execute("DROP TABLE marts.table_shift")
        con.execute("DROP TABLE marts.count_room")
    build(warehouse, days=[day])
    assert marts(warehouse)["table_shift"].height == shifts.height


def test_the_count_rooms_settings_reach_the_marts_config():
    settings = Settings.from_env({"BANCO_COUNT_TOLERANCE": "0.50", "BANCO_REPORT_RULES": "ohio, Kansas"})
    config = Warehouse.from_settings(settings).mart_config
    assert (config.count_tolerance, config.report_rules) == (D("0.50"), ("kansas", "ohio"))
    assert (MartConfig().count_tolerance, MartConfig().report_rules) == (None, ("maryland",))
    assert Warehouse.from_settings(Settings.from_env({})).mart_config == MartConfig()


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("BANCO_COUNT_TOLERANCE", "-1", "BANCO_COUNT_TOLERANCE is an amount of 0 or more (0.25: a quarter), got '-1'"),
        ("BANCO_COUNT_TOLERANCE", "a chip", "BANCO_COUNT_TOLERANCE is an amount of 0 or more"),
        ("BANCO_REPORT_RULES", "nevada", "BANCO_REPORT_RULES is a comma list of maryland, kansas, ohio"),
    ],
)
def test_a_bad_count_room_setting_is_named_in_one_line(name, value, message):
    with pytest.raises(ValueError, match="^" + re.escape(f"bad BANCO_* setting in the environment: {message}")):
        Settings.from_env({name: value})
    with pytest.raises(ValueError, match=r"^the count tolerance is an amount of 0 or more, got -1$"):
        MartConfig(count_tolerance=D(-1))


def test_coups_in_spans_equal_the_range_join_they_stand_in_for():
    """The build's in-memory pick of a shift's coups against DuckDB's join of every span: spans that
    overlap, an open-ended one under a closed one, a table without spans, coups on the bounds."""
    import duckdb

    from models.metrics.count_room import coups_in_spans

    at = dt.datetime(2026, 11, 1, 6, tzinfo=dt.UTC)
    minutes = [0, 5, 10, 30, 59, 60, 61, 90, 120, 200, 400]
    rounds = pl.DataFrame(
        {
            "table_id": [table for table in ("T1", "T2", "T3") for _ in minutes],
            "shoe_id": "S",
            "round_no": list(range(len(minutes) * 3)),
            "started_at": [at + dt.timedelta(minutes=m) for _ in range(3) for m in minutes],
        }
    )
    spans = pl.DataFrame(
        {
            "table_id": ["T1", "T1", "T2", "T2", "T2"],
            "since": [at, at + dt.timedelta(minutes=60), at + dt.timedelta(minutes=5), at + dt.timedelta(minutes=30),
                      at + dt.timedelta(minutes=100)],
            "until": [at + dt.timedelta(minutes=60), at + dt.timedelta(minutes=90), None,
                      at + dt.timedelta(minutes=61), at + dt.timedelta(minutes=150)],
        }
    )  # fmt: skip
    joined = duckdb.sql(
        "SELECT DISTINCT r.* FROM rounds r JOIN spans s ON r.table_id = s.table_id AND r.started_at >= s.since "
        "AND (s.until IS NULL OR r.started_at < s.until)"
    ).pl()
    picked = coups_in_spans(rounds, spans)
    assert picked.height == 17  # T1: minutes 0 to 61 (7 coups), not 90; T2: 5 onwards (10); T3: none
    assert_frame_equal(
        picked.sort("round_no"), joined.sort("round_no").with_columns(pl.col("started_at").dt.convert_time_zone("UTC"))
    )
