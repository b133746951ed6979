"""The morning report on a real built warehouse: its figures equal the marts' for the day, and its PDF is one
page holding each section with its dashboard link."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import duckdb
import polars as pl
import pytest
from pypdf import PdfReader

from dashboards.pages import PAGES
from models import display
from models.alerts import morning
from models.alerts.evaluate import snapshot
from models.gaming_day import GamingDay
from models.reports import daily, daily_pdf

DAY = dt.date(2026, 11, 2)
URL = "http://dash.casino.test:8501"


def marts(db: Path, sql: str) -> pl.DataFrame:
    with duckdb.connect(str(db.with_name("banco.serving.duckdb")), read_only=True) as con:
        return con.sql(sql, params={"day": DAY}).pl()


@pytest.fixture(scope="module")
def report(built_warehouse) -> daily.DailyReport:
    return morning.read(
        built_warehouse, DAY, property_name="Casino of the Tests", gaming_day=GamingDay(), currency="CHF",
        dashboard_url=URL, snapshot=snapshot(built_warehouse), now=dt.datetime(2026, 11, 3, 6, 0, tzinfo=dt.UTC),
    )  # fmt: skip


def test_hold_by_table_is_the_table_days_of_the_day_and_their_sums(report, built_warehouse):
    days = marts(built_warehouse, "SELECT * FROM marts.table_day WHERE gaming_day = $day ORDER BY table_id, game")
    tables = report.tables.filter(level="table")
    assert tables["table_id"].to_list() == days["table_id"].to_list() and tables.height > 1
    for name in ("handle", "house_win", "theo"):
        assert tables[name].to_list() == days[name].to_list(), name
        assert report.tables.filter(level="total")[name].item() == days[name].sum(), name
    assert tables["hold"].to_list() == days["win_over_handle"].to_list()
    assert tables["theo_hold"].to_list() == days["theo_over_handle"].to_list()
    total = report.tables.filter(level="total").row(0, named=True)
    assert total["hold"] == pytest.approx(float(days["house_win"].sum() / days["handle"].sum()))


def test_flags_shifts_and_integrity_are_the_days(report, built_warehouse):
    flags = marts(built_warehouse, "SELECT rule, player_id FROM marts.surveillance_flags WHERE gaming_day = $day")
    assert dict(report.flags.select("rule", "flags").iter_rows()) == dict(flags.group_by("rule").len().iter_rows())
    assert set(report.flags.columns) == {"rule", "flags", "players"}  # ids only: no name, no amount
    shifts = marts(
        built_warehouse, "SELECT * FROM marts.table_shift WHERE gaming_day = $day AND status = 'unreconciled'"
    )
    assert report.shifts["shift_id"].sort().to_list() == shifts["shift_id"].sort().to_list()
    coups = marts(built_warehouse, "SELECT sum(quarantined_coups) FROM marts.table_day WHERE gaming_day = $day")
    assert report.integrity.quarantined_coups == coups.item()
    assert report.snapshot.isdigit() and report.made_at.tzname() == "UTC"


def test_flags_by_rule_counts_each_rule_and_lists_its_players_once():
    flags = pl.DataFrame({"rule": ["zender", "edge_timing", "edge_timing"], "player_id": ["P2", "P1", "P1"]})
    assert daily.flags_by_rule(flags).rows() == [("edge_timing", 2, ["P1"]), ("zender", 1, ["P2"])]


def test_a_day_without_play_is_one_line(built_warehouse):
    from models.warehouse.store import WarehouseError

    with pytest.raises(WarehouseError, match="no coups on gaming day 2020-01-01"):
        morning.read(built_warehouse, dt.date(2020, 1, 1), property_name="x", gaming_day=GamingDay(), currency="EUR",
                   dashboard_url=URL, snapshot="none")  # fmt: skip


def test_each_sections_page_is_a_dashboard_page():
    assert set(daily.PAGES.values()) <= {Path(name).stem for name, _, _ in PAGES}


def test_the_pdf_is_one_page_with_the_header_every_section_and_its_link(report):
    reader = PdfReader(io.BytesIO(daily_pdf.pdf(report)))
    assert len(reader.pages) == 1
    text = reader.pages[0].extract_text()
    for expected in ("Casino of the Tests", "Morning report, gaming day 2026-11-02", report.snapshot,
                     "2026-11-03 06:00 UTC", "Hold against theo by table", "Surveillance flags",
                     "Unexplained table-shifts", "Handle (CHF)", "Total"):  # fmt: skip
        assert expected in text, expected
    first = report.tables.filter(level="table").row(0, named=True)
    assert display.money(first["handle"]) in text and display.percent(first["hold"], "hold") in text
    links = {a.get_object()["/A"]["/URI"] for a in reader.pages[0].get("/Annots", [])}
    assert links == {f"{URL}/tables", f"{URL}/surveillance", f"{URL}/count_room", f"{URL}/integrity"}


def test_a_busy_day_still_fits_one_page_and_says_how_many_more(report):
    many = pl.concat([report.tables.filter(level="table")] * 12 + [report.tables.filter(level="total")])
    shifts = pl.DataFrame({"shift_id": [f"S{i}" for i in range(20)]}).with_columns(
        table_id=pl.lit("T01"), game=pl.lit("banco"), status=pl.lit("unreconciled"), attribution=pl.lit("short")
    )
    flags = pl.DataFrame({"rule": ["zender"], "flags": [40], "players": [[f"P{i:03}" for i in range(40)]]})
    stale = "the last build failed at 2026-11-03 02:00 UTC: RuntimeError: disk full"
    from dataclasses import replace

    busy = replace(report, tables=many, shifts=shifts, flags=flags, stale=stale)
    reader = PdfReader(io.BytesIO(daily_pdf.pdf(busy)))
    text = reader.pages[0].extract_text()
    assert len(reader.pages) == 1 and "more tables" in text and "14 more table-shifts" in text
    assert "28 more" in text and "disk full" in text


def test_the_message_links_each_section_and_attaches_the_page(report):
    from models.alerts.morning import message as email
    from models.alerts.rules import Rule

    pdf = daily_pdf.pdf(report)
    message = email(report, Rule(name="morning-report", severity="info"), ("a@casino.test",), pdf)
    assert message.subject == "Casino of the Tests: morning report, gaming day 2026-11-02"
    assert all(f"{URL}/{page}" in message.text() for page in daily.PAGES.values())
    assert message.attachments == (("morning-report-2026-11-02.pdf", pdf, "application/pdf"),)
    assert "CHF" not in message.text()
