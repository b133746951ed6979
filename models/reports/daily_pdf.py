"""The morning report as one PDF page: the header, then each section under its title with the link to its
dashboard page. Long lists are cut to fit the page, saying how many more the page behind the link shows."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
from fpdf import FPDF

from models import display
from models.reports.daily import DailyReport
from models.reports.export import _text, table

#: The most rows a section lists: with the header, they fit one A4 page.
MAX_TABLES, MAX_SHIFTS, MAX_PLAYERS, MAX_REASONS = 24, 6, 12, 8
LINK_COLOUR = (20, 70, 160)


def header(report: DailyReport) -> list[tuple[str, str]]:
    """The header block: property, gaming day, snapshot, the time it was made (with its zone) and, when the
    marts lag the warehouse, why."""
    rows = [
        ("Property", report.property_name),
        ("Gaming day", report.gaming_day.isoformat()),
        ("Serving snapshot", report.snapshot),
        ("Made at", f"{report.made_at:%Y-%m-%d %H:%M} {report.made_at.tzname()}"),
    ]
    return rows + ([("Warning", report.stale)] if report.stale else [])


def pdf(report: DailyReport) -> bytes:
    """The page, as bytes."""
    doc = FPDF(orientation="P", format="A4")
    doc.set_auto_page_break(auto=False)
    doc.set_margins(12, 10, 12)
    doc.set_title(report.title)
    doc.set_author(report.property_name)
    doc.set_creation_date(report.made_at.astimezone(dt.UTC))
    doc.add_page()
    doc.set_font("helvetica", "B", 14)
    doc.cell(0, 8, _text(f"{report.property_name} - {report.title}"), new_x="LMARGIN", new_y="NEXT")
    for label, value in header(report):
        doc.set_font("helvetica", "B", 8)
        doc.cell(32, 4.5, _text(label))
        doc.set_font("helvetica", size=8)
        doc.multi_cell(0, 4.5, _text(value), new_x="LMARGIN", new_y="NEXT")
    _tables(doc, report)
    _flags(doc, report)
    _shifts(doc, report)
    _integrity(doc, report)
    return bytes(doc.output())


def write(report: DailyReport, path: Path) -> Path:
    """Write the page to `path` whole (a temporary file renamed over it), creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(pdf(report))
    partial.replace(path)
    return path


def _section(doc: FPDF, title: str, link: str) -> None:
    doc.ln(2)
    doc.set_font("helvetica", "B", 10)
    doc.cell(doc.get_string_width(_text(title)) + 3, 6, _text(title))
    doc.set_font("helvetica", "U", 7)
    doc.set_text_color(*LINK_COLOUR)
    doc.cell(0, 6, _text(link), link=link, new_x="LMARGIN", new_y="NEXT")
    doc.set_text_color(0, 0, 0)


def _line(doc: FPDF, text: str) -> None:
    doc.set_font("helvetica", size=8)
    doc.multi_cell(0, 4, _text(text), new_x="LMARGIN", new_y="NEXT")


def _more(doc: FPDF, shown: int, total: int, what: str) -> None:
    if total > shown:
        _line(doc, f"... and {total - shown} more {what}: see the page behind the link.")


def _tables(doc: FPDF, report: DailyReport) -> None:
    tables = report.tables.filter(level="table")
    _section(doc, f"Hold against theo by table ({tables.height})", report.link("tables"))
    money = report.currency
    heading = ["Table", "Game", f"Handle ({money})", f"House win ({money})", f"Theo ({money})", "Hold", "Theo hold"]
    rows = []
    shown = pl.concat([tables.head(MAX_TABLES), report.tables.filter(level="total")])
    for row in shown.iter_rows(named=True):
        total = row["level"] == "total"
        rows.append((total, [
            "Total" if total else row["table_id"], "All games" if total else display.name(row["game"]),
            display.money(row["handle"]), display.money(row["house_win"]), display.money(row["theo"]),
            display.percent(row["hold"], "hold"), display.percent(row["theo_hold"], "hold"),
        ]))  # fmt: skip
    table(doc, heading, [18, 30, 32, 32, 32, 21, 21], rows, numeric=range(2, 7), line_height=4)
    _more(doc, min(tables.height, MAX_TABLES), tables.height, "tables")


def _flags(doc: FPDF, report: DailyReport) -> None:
    count = int(report.flags["flags"].sum() or 0)
    _section(doc, f"Surveillance flags ({count})", report.link("flags"))
    if report.flags.is_empty():
        _line(doc, "No player was flagged on the day.")
    for row in report.flags.iter_rows(named=True):
        players = row["players"]
        more = f" and {len(players) - MAX_PLAYERS} more" if len(players) > MAX_PLAYERS else ""
        shown = ", ".join(players[:MAX_PLAYERS]) + more
        _line(doc, f"{display.name(row['rule'])}: {row['flags']} flag(s); players {shown}")


def _shifts(doc: FPDF, report: DailyReport) -> None:
    shifts = report.shifts
    _section(doc, f"Unexplained table-shifts ({shifts.height})", report.link("shifts"))
    if shifts.is_empty():
        _line(doc, "Every table-shift's count reconciled with its wagers, or its quarantined coups explain it.")
        return
    rows = [(False, [row["table_id"], row["shift_id"], display.name(row["game"]), row["attribution"] or ""])
            for row in shifts.head(MAX_SHIFTS).iter_rows(named=True)]  # fmt: skip
    table(doc, ["Table", "Shift", "Game", "Why"], [18, 26, 30, 112], rows, numeric=(), line_height=4)
    _more(doc, min(shifts.height, MAX_SHIFTS), shifts.height, "table-shifts")


def _integrity(doc: FPDF, report: DailyReport) -> None:
    found = report.integrity
    rows_quarantined = int(found.quarantined["rows"].sum() or 0)
    _section(doc, f"Integrity: {rows_quarantined} rows quarantined", report.link("integrity"))
    _line(
        doc,
        f"Coups quarantined at the day's tables: {display.count(found.quarantined_coups)} "
        f"({display.percent(found.quarantined_share, 'share')} of the handle). "
        f"Files the ingest could not load (all days): {display.count(found.failed_files)}.",
    )
    for row in found.quarantined.head(MAX_REASONS).iter_rows(named=True):
        _line(doc, f"{display.name(row['kind'])}, {display.name(row['reason'])}: {display.count(row['rows'])}")
    _more(doc, min(found.quarantined.height, MAX_REASONS), found.quarantined.height, "reasons")
