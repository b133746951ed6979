"""The Count room page under AppTest: a small real warehouse with the crafted count-room marts put in its
snapshot (tests/pipelines/count_room_marts.py), so every figure shown can be checked against them."""

from __future__ import annotations

import datetime as dt
import io
import re
from decimal import Decimal

import duckdb
import pyarrow as pa
import pytest

from dashboards import fmt
from models.game.games import Game
from models.metrics.build import build
from models.reports import monthly
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import serving_path
from tests.dashboards.test_pages import metric, open_app, table_with
from tests.pipelines import count_room_marts

HIGHLIGHT = "#fbe3e0"  # the page's shade of an unreconciled shift

PAGE = "count_room"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Three tables over November's first two gaming days, ingested and built."""
    work = tmp_path_factory.mktemp("count-room")
    sim = Simulation(shoes=6, tables=3, shoes_per_day=1, games=(Game.PUNTO_BANCO, Game.SUPER6),
                     start=dt.date(2026, 11, 1), seed=21)  # fmt: skip
    write_simulation(sim, work / "landing")
    db = work / "banco.duckdb"
    ingest(db, [work / "landing"])
    build(db)
    return db


@pytest.fixture
def db(built):
    return count_room_marts.write(built, into=True)


@pytest.mark.slow
def test_the_count_against_the_wagers_per_table_shift(db, monkeypatch):
    at = open_app(db, monkeypatch, PAGE)
    assert at.title[0].value == "Count room"
    shifts = count_room_marts.SHIFTS  # every day the warehouse holds: October 31's shift too
    assert metric(at, "Table-shifts") == fmt.count(len(shifts))
    assert metric(at, "Unreconciled") == fmt.count(sum(s["status"] != "reconciled" for s in shifts))
    off = [s for s in shifts if s["status"] not in ("reconciled", "explained")]
    unexplained = [s["unexplained"] for s in off if s["unexplained"] is not None]
    assert metric(at, "Unexplained") == fmt.money(sum(unexplained)) == "-55.00"
    assert metric(at, "Explained") == "0"
    assert metric(at, "Drop") == fmt.money(sum(s["drop"] for s in shifts))
    # the shifts to investigate, each with what its logs say beside it
    listed = table_with(at, "table_id", "shift_id", "attribution", "unexplained").set_index("shift_id")
    assert sorted(listed.index) == sorted(s["shift_id"] for s in off)
    assert listed.loc["T02-1101-A", "attribution"] == "the count is 25.00 short of what the logs explain"
    shown = table_with(at, "gaming_day", "shift_id", "coups", "difference").set_index("shift_id")
    assert len(shown) == len(shifts)
    assert float(shown.loc["T02-1101-A", "difference"]) == -25.0 and shown.loc["T02-1101-A", "status"] == "unreconciled"
    styler = next(t for t in at.dataframe if "coups" in t.value.columns).proto.arrow_data.styler
    styles = styler.styles
    shaded = {int(row) for rule in styles.split("}") if HIGHLIGHT in rule for row in re.findall(r"row(\d+)_", rule)}
    assert shaded == {index for index, status in enumerate(shown["status"]) if status != "reconciled"}
    assert len(shaded) == 3
    texts = pa.ipc.open_stream(io.BytesIO(styler.display_values)).read_all().to_pandas().set_index("shift_id")
    assert texts.loc["T01-1101-A", "drop"] == "2,000.00"  # the browser is shown the page's own texts
    assert texts.loc["T03-1102-A", "win"] == fmt.MISSING and texts.loc["T01-1101-A", "hold_pct"] == "15.00"
    assert len(at.get("vega_lite_chart")) == 1  # hold against theoretical hold


def test_each_shift_to_investigate_shows_what_decides_it(db, monkeypatch):
    at = open_app(db, monkeypatch, PAGE)
    listed = table_with(at, "table_id", "shift_id", "unexplained", "tolerance", "quarantined_stake", "mispaid")
    crafted = {s["shift_id"]: s for s in count_room_marts.SHIFTS}
    for row in listed.to_dict("records"):
        assert Decimal(str(row["tolerance"])) == crafted[row["shift_id"]]["tolerance"]
    words = " ".join(c.value for c in at.caption)
    assert "more than its tolerance plus the stake" in words and "BANCO_COUNT_TOLERANCE is not set" in words
    monkeypatch.setenv("BANCO_COUNT_TOLERANCE", "0.5")  # the setting in force, in the words of the page
    at = open_app(db, monkeypatch, PAGE)
    assert "within the tolerance (0.50, BANCO_COUNT_TOLERANCE)" in " ".join(c.value for c in at.caption)


def test_a_table_filter_narrows_the_shifts(db, monkeypatch):
    at = open_app(db, monkeypatch, PAGE)
    at.multiselect(key="tables").set_value(["T02"]).run()
    assert not at.exception
    assert metric(at, "Table-shifts") == "2" and metric(at, "Unexplained") == "-25.00"


def test_the_months_report_its_investigations_and_downloads(db, monkeypatch):
    at = open_app(db, monkeypatch, PAGE)
    month = at.selectbox(key="count_room_month")
    assert month.value == dt.date(2026, 11, 1) and len(month.options) == 2  # the latest month first
    report = table_with(at, "level", "table_id", "drop")
    tables = report[report["level"] == "table"].set_index("table_id")
    last = {row["table_id"]: row for row in count_room_marts.STATISTICAL if row["gaming_day"].month == 11}
    for table, row in last.items():
        assert Decimal(str(tables.loc[table, "drop"])) == row["mtd_drop"]
        assert Decimal(str(tables.loc[table, "ytd_win"])) == row["ytd_win"]
        assert tables.loc[table, "hold_pct"] == pytest.approx(row["mtd_hold_pct"])
    assert not [name for name in report.columns if name.startswith(("ks_", "oh_"))]  # maryland alone by default
    due = table_with(at, "table_id", "rule", "explain")
    assert list(zip(due["table_id"], due["rule"], strict=True)) == [("T01", "Maryland"), ("T03", "Maryland")]
    assert "2 not, unexplained -25.00" in " ".join(m.value for m in at.markdown)
    labels = [button.proto.label for button in at.get("download_button")]
    assert labels == ["Download CSV", "Download XLSX", "Download PDF"]
    month.set_value(dt.date(2026, 10, 1)).run()  # October: one day of T01, nothing to investigate
    assert not at.exception and at.success and "No investigation is due" in at.success[0].value


def test_the_rules_setting_reaches_the_page(db, monkeypatch):
    monkeypatch.setenv("BANCO_REPORT_RULES", "kansas,ohio")
    at = open_app(db, monkeypatch, PAGE)
    due = table_with(at, "table_id", "rule", "explain")
    assert list(zip(due["table_id"], due["rule"], strict=True)) == [("T02", "Ohio"), ("T03", "Kansas")]


def test_no_table_events_says_so(built, monkeypatch):
    count_room_marts.write(built, into=True, empty=True)
    try:
        at = open_app(built, monkeypatch, PAGE)
        assert "No table events" in at.info[0].value and not at.dataframe
    finally:
        count_room_marts.write(built, into=True)


def test_a_warehouse_built_before_the_count_room_asks_for_a_build(built, monkeypatch):
    con = duckdb.connect(str(serving_path(built)))
    for name in monthly.MARTS:
        con.execute(f"DROP TABLE IF EXISTS {name}")
    con.close()
    try:
        at = open_app(built, monkeypatch, PAGE)
        assert "built before marts.statistical_report" in at.warning[0].value and at.code[0].value == "banco build"
    finally:
        count_room_marts.write(built, into=True)
