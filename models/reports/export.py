"""A report as files: CSV (the table's rows), XLSX (the report, the investigations and the unreconciled
shifts as sheets, money formatted) and PDF (laid out to be filed, with page numbers), each as bytes."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import polars as pl
import xlsxwriter
from fpdf import FPDF
from fpdf.fonts import FontFace

from models import display
from models.reports.monthly import MONEY, PERCENT, Report
from models.reports.rules import SHORT, TITLES

FORMATS = ("csv", "xlsx", "pdf")
XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MONEY_FORMAT = "#,##0.00"
PERCENT_FORMAT = "0.00"
#: What a missing figure shows as in the PDF (its core font has no em dash).
MISSING = "-"


def file_name(report: Report, extension: str) -> str:
    return f"statistical-report-{report.month:%Y-%m}.{extension}"


def to_bytes(report: Report, fmt: str) -> bytes:
    """The report in `fmt` (one of FORMATS)."""
    return {"csv": csv, "xlsx": xlsx, "pdf": pdf}[fmt](report)


def write(report: Report, fmt: str, path: Path) -> Path:
    """Write the report in `fmt` to `path` whole (a temporary file renamed over it), creating its folder."""
    data = to_bytes(report, fmt)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    partial.replace(path)
    return path


#: What a spreadsheet takes a cell starting with for a formula (OWASP's CSV injection list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` with every text cell that a spreadsheet would read as a formula prefixed by `'`: ids and
    names come from the logs and the settings, and must stay text wherever the file is opened."""
    texts = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    return frame.with_columns(
        pl.when(pl.any_horizontal(pl.col(name).str.starts_with(start) for start in FORMULA_STARTS))
        .then(pl.lit("'") + pl.col(name))
        .otherwise(pl.col(name))
        .alias(name)
        for name in texts
    )


def csv(report: Report) -> bytes:
    """The report's rows (tables, game totals, the property's), each with its month; no cell a formula."""
    rows = report.tables.with_columns(month=pl.lit(f"{report.month:%Y-%m}")).select("month", pl.exclude("month"))
    return inert(rows).write_csv().encode()


def _money(frame: pl.DataFrame) -> pl.DataFrame:
    """Money as floats: Excel keeps numbers as doubles, and formats them to the cent."""
    return frame.with_columns(pl.col(name).cast(pl.Float64) for name in MONEY if name in frame.columns)


def _formats(frame: pl.DataFrame) -> dict[str, str]:
    formats = {name: MONEY_FORMAT for name in MONEY if name in frame.columns}
    return formats | {name: PERCENT_FORMAT for name in PERCENT if name in frame.columns}


def xlsx(report: Report) -> bytes:
    """Three sheets: Report (the header block above the table), Investigations, Unreconciled shifts."""
    buffer = io.BytesIO()
    # every string a string: an id or a name from the logs never becomes a formula or a link
    options = {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False}
    with xlsxwriter.Workbook(buffer, options) as book:
        # the file's creation time is the figures', not the clock's: a report made again is the same bytes
        book.set_properties({"created": _instant(report), "title": report.title, "author": report.property_name})
        bold = book.add_format({"bold": True})
        sheet = book.add_worksheet("Report")
        sheet.write(0, 0, report.title, book.add_format({"bold": True, "font_size": 14}))
        header = report.header()
        for row, (label, value) in enumerate(header, start=1):
            sheet.write(row, 0, label, bold)
            sheet.write(row, 1, value)
        sheets = (
            (sheet, report.tables, (len(header) + 2, 0)),
            (book.add_worksheet("Investigations"), report.investigations, (0, 0)),
            (book.add_worksheet("Unreconciled shifts"), report.unreconciled, (0, 0)),
        )
        for where, frame, position in sheets:
            _money(frame).write_excel(
                book, where, position=position, column_formats=_formats(frame), dtype_formats={pl.Date: "yyyy-mm-dd"},
                autofit=True, float_precision=2,
            )  # fmt: skip
    return buffer.getvalue()


def _instant(report: Report) -> dt.datetime:
    """The report's time as XLSX stores it: naive UTC."""
    return report.as_of.astimezone(dt.UTC).replace(tzinfo=None)


def _text(value: object) -> str:
    """Text the PDF's core font can draw (Latin-1)."""
    text = str(value).replace("\u2014", "-").replace("\u2013", "-")
    return text.encode("latin-1", "replace").decode("latin-1")


def _figure(value) -> str:
    """Money, or a percent already in percent, as models/display.py writes it (to 2 decimals)."""
    return MISSING if value is None else display.number(value)


def _name(identifier: str | None) -> str:
    """A game's or status's name (Chemin de Fer, Unreconciled)."""
    return MISSING if identifier is None else display.name(identifier)


def _flag(value: bool | None) -> str:
    return MISSING if value is None else ("FLAG" if value else "ok")


class _Filed(FPDF):
    """A filed report's page: the title on each, its page number and of how many at the foot."""

    def __init__(self, report: Report) -> None:
        super().__init__(orientation="L", format="A4")
        self.report = report
        self.set_auto_page_break(auto=True, margin=14)
        self.set_title(report.title)
        self.set_creation_date(report.as_of.astimezone(dt.UTC))  # the figures' time, not the clock's (as xlsx)
        self.set_author(report.property_name)

    def header(self) -> None:
        self.set_font("helvetica", "B", 9)
        self.cell(0, 6, _text(f"{self.report.property_name} - {self.report.title}"), align="L")
        self.ln(8)

    def footer(self) -> None:
        self.set_y(-10)
        self.set_font("helvetica", size=8)
        self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="C")


def _rules_cells(report: Report, row: dict) -> list[str]:
    cells = []
    for rule in report.rules:
        if row["level"] != "table":
            cells += ["", ""]
        elif rule == "maryland":
            base, low, high = row["md_base_hold_pct"], row["md_ci_low"], row["md_ci_high"]
            interval = MISSING if low is None else f"[{low:.2f}, {high:.2f}]"
            cells += [f"{_figure(base)} ({row['md_base_period'] or MISSING}) {interval}", _flag(row["md_flag"])]
        elif rule == "kansas":
            base = row["ks_base_hold_pct"]
            cells += [MISSING if base is None else f"{base:.2f} +/- {row['ks_high'] - base:g}", _flag(row["ks_flag"])]
        else:
            rolling, lifetime = row["oh_rolling_hold_pct"], row["oh_lifetime_hold_pct"]
            days = f" ({row['oh_days_flagged']} d)" if row["oh_days_flagged"] else ""
            cells += [f"{_figure(rolling)} vs {_figure(lifetime)}{days}", _flag(row["oh_flag"])]
    return cells


def pdf(report: Report) -> bytes:
    """Title, header block, the table with its game and property totals, the investigations due, the
    unreconciled shifts; page numbers at the foot."""
    doc = _Filed(report)
    doc.add_page()
    doc.set_font("helvetica", "B", 15)
    doc.cell(0, 9, _text(report.title), new_x="LMARGIN", new_y="NEXT")
    doc.set_font("helvetica", size=9)
    for label, value in report.header():
        doc.set_font("helvetica", "B", 9)
        doc.cell(45, 5, _text(label))
        doc.set_font("helvetica", size=9)
        doc.multi_cell(0, 5, _text(value), new_x="LMARGIN", new_y="NEXT")
    doc.ln(3)
    _section(doc, "Statistical drop, win and win-to-drop (percent)")
    heading = ["Table", "Game", "Days", "Drop", "Win", "W/D %", "YTD drop", "YTD win", "YTD W/D"]
    widths = [12, 20, 8, 22, 22, 12, 23, 22, 13]
    for rule in report.rules:
        heading += [{"maryland": "MD base (period) 95 % CI", "kansas": "KS base +/- pts",
                     "ohio": "OH 30 d vs lifetime"}[rule], SHORT[rule]]  # fmt: skip
        widths += [{"maryland": 38, "kansas": 22, "ohio": 34}[rule], 9]
    rows = []
    for row in report.tables.iter_rows(named=True):
        who = row["table_id"] if row["level"] == "table" else "Total"
        game = _name(row["game"]) if row["level"] != "property" else "All games"
        rows.append((row["level"] != "table", [who, game, str(row["days"]), _figure(row["drop"]), _figure(row["win"]),
                     _figure(row["hold_pct"]), _figure(row["ytd_drop"]), _figure(row["ytd_win"]),
                     _figure(row["ytd_hold_pct"]), *_rules_cells(report, row)]))  # fmt: skip
    table(doc, heading, widths, rows, numeric=range(2, 9))
    doc.set_font("helvetica", size=7)
    doc.multi_cell(
        0, 4, _text(
            "Month figures are month to date at the month's last gaming day; W/D % = win / drop x 100. "
            "Rules: " + "; ".join(TITLES[rule] for rule in report.rules) + ". FLAG: outside the rule's interval; "
            "ok: inside; -: no base yet (no prior period)."
        ), new_x="LMARGIN", new_y="NEXT",
    )  # fmt: skip
    doc.ln(3)
    _section(doc, f"Investigations due ({report.investigations.height})")
    if report.investigations.is_empty():
        _line(doc, "No investigation is due: every table and game lies within the applied rules.")
    for row in report.investigations.iter_rows(named=True):
        _line(
            doc,
            f"{row['table_id']} {_name(row['game'])}, {TITLES[row['rule']]}, as of {row['as_of']}: {row['explain']}.",
        )
    doc.ln(3)
    r = report.reconciliation
    _section(doc, f"Count against wagers: {r.unreconciled} of {r.shifts} table-shifts unreconciled")
    if report.unreconciled.is_empty():
        _line(doc, "Every table-shift's count matched its wagers within the tolerance.")
    else:
        heading = ["Gaming day", "Table", "Shift", "Game", "Status", "Drop", "Win", "Wagers win", "Difference",
                   "Unexplained"]  # fmt: skip
        shown = ("drop", "win", "wagers_win", "difference", "unexplained")
        rows = [
            (False, [str(row["gaming_day"]), row["table_id"], row["shift_id"], _name(row["game"]),
                       _name(row["status"]), *[_figure(row[name]) for name in shown]])
            for row in report.unreconciled.iter_rows(named=True)
        ]  # fmt: skip
        table(doc, heading, [24, 18, 30, 26, 26, 26, 26, 26, 26, 22], rows, numeric=range(5, 10))
        doc.ln(2)
        for row in report.unreconciled.iter_rows(named=True):
            _line(doc, f"{row['table_id']} shift {row['shift_id']}: {row['attribution'] or row['status']}.")
    return bytes(doc.output())


def _section(doc: FPDF, title: str) -> None:
    doc.set_font("helvetica", "B", 11)
    doc.cell(0, 7, _text(title), new_x="LMARGIN", new_y="NEXT")


def _line(doc: FPDF, text: str) -> None:
    doc.set_font("helvetica", size=8)
    doc.multi_cell(0, 4.5, _text(f"- {text}"), new_x="LMARGIN", new_y="NEXT")


def table(doc: FPDF, heading: list[str], widths: list[int], rows, numeric, line_height: float = 4.5) -> None:
    """A table whose headings repeat on each page; `rows` are (bold, cells), a total's bold and shaded."""
    doc.set_font("helvetica", size=7)
    align = ["RIGHT" if index in numeric else "LEFT" for index in range(len(heading))]
    total = FontFace(emphasis="BOLD", fill_color=(235, 235, 235))
    with doc.table(
        col_widths=widths, width=sum(widths), align="LEFT", text_align=align, line_height=line_height,
        headings_style=FontFace(emphasis="BOLD", fill_color=(210, 210, 210)), first_row_as_headings=True,
    ) as rendered:  # fmt: skip
        rendered.row([_text(cell) for cell in heading])
        for bold, cells in rows:
            rendered.row([_text(cell) for cell in cells], style=total if bold else None)
