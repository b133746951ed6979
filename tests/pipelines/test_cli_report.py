"""`banco report` on crafted count-room marts: each format written, read back (polars, openpyxl, pypdf) and
its figures equal to the marts'; the rules setting; mistakes one line and a non-zero exit."""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path

import duckdb
import openpyxl
import polars as pl
import pytest
from pypdf import PdfReader

from pipelines.cli import main
from tests.pipelines import count_room_marts
from tests.pipelines.test_cli_ingest import banco

ALL_RULES = "maryland,kansas,ohio"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return count_room_marts.write(tmp_path_factory.mktemp("report") / "banco.duckdb")


@pytest.fixture
def month_end(db) -> pl.DataFrame:
    """Each table and game's last November row of marts.statistical_report: what the report shows."""
    stat = count_room_marts.marts(db, "marts.statistical_report")
    november = stat.filter(pl.col("gaming_day").dt.month() == 11).sort("gaming_day")
    return november.group_by("table_id", "game").last().sort("table_id")


def report(capsys, monkeypatch, db, tmp_path, fmt, rules=ALL_RULES, name="Casino of the Tests") -> Path:
    monkeypatch.setenv("BANCO_REPORT_RULES", rules)
    monkeypatch.setenv("BANCO_PROPERTY_NAME", name)
    out = tmp_path / f"report.{fmt}"
    status = main(["report", "--db", str(db), "--month", "2026-11", "--format", fmt, "--out", str(out)])
    printed, err = capsys.readouterr()
    assert status == 0 and err == "", err
    assert (
        printed == f"wrote {out}: 3 tables, 4 investigations due, 2 unreconciled table-shifts\n" or rules != ALL_RULES
    )
    return out


def test_the_csv_holds_each_tables_figures_as_the_marts_have_them(db, month_end, capsys, monkeypatch, tmp_path):
    rows = pl.read_csv(report(capsys, monkeypatch, db, tmp_path, "csv"), infer_schema_length=None)
    tables = rows.filter(level="table").sort("table_id")
    assert tables["table_id"].to_list() == ["T01", "T02", "T03"] and set(rows["month"]) == {"2026-11"}
    for name, mart in (("drop", "mtd_drop"), ("win", "mtd_win"), ("ytd_drop", "ytd_drop"), ("ytd_win", "ytd_win")):
        assert tables[name].to_list() == [float(v) for v in month_end[mart]], name
    assert tables["hold_pct"].to_list() == pytest.approx(month_end["mtd_hold_pct"].to_list())
    assert tables["md_flag"].to_list() == month_end["md_flag"].to_list()
    assert tables["ks_flag"].to_list() == month_end["ks_flag"].to_list()
    assert tables["md_ci_low"].to_list() == month_end["md_ci_low"].to_list()
    # Ohio: flagged when any day of the month was, T02's first
    assert tables["oh_flag"].to_list() == [False, True, False] and tables["oh_days_flagged"].to_list() == [0, 1, 0]
    assert tables["investigate"].fill_null("").to_list() == ["maryland", "ohio", "maryland, kansas"]
    punto = rows.filter(level="game", game="punto_banco").row(0, named=True)
    assert (punto["drop"], punto["win"], punto["days"]) == (3800.0, 550.0, 2)
    assert punto["hold_pct"] == pytest.approx(550 / 3800 * 100)
    whole = rows.filter(level="property").row(0, named=True)
    assert (whole["drop"], whole["win"], whole["ytd_drop"], whole["ytd_win"]) == (4800.0, 630.0, 5800.0, 730.0)
    assert rows["level"].to_list()[-1] == "property"


def test_the_workbook_has_the_report_the_investigations_and_the_shifts(db, month_end, capsys, monkeypatch, tmp_path):
    book = openpyxl.load_workbook(report(capsys, monkeypatch, db, tmp_path, "xlsx"))
    assert book.sheetnames == ["Report", "Investigations", "Unreconciled shifts"]
    sheet = book["Report"]
    header = {row[0]: row[1] for row in sheet.iter_rows(min_row=2, max_row=8, values_only=True)}
    assert header["Property"] == "Casino of the Tests" and header["Month"] == "2026-11"
    assert header["Rules applied"].startswith("Maryland (COMAR 36.05.03.25), Kansas")
    rows = list(sheet.iter_rows(min_row=10, values_only=True))
    names = list(rows[0])
    shown = {row[names.index("table_id")]: dict(zip(names, row, strict=True)) for row in rows[1:] if row[0] == "table"}
    for mart in month_end.iter_rows(named=True):
        row = shown[mart["table_id"]]
        assert Decimal(str(row["drop"])) == mart["mtd_drop"] and Decimal(str(row["win"])) == mart["mtd_win"]
        assert row["hold_pct"] == pytest.approx(mart["mtd_hold_pct"])
    money = sheet.cell(row=11, column=names.index("drop") + 1)
    assert money.number_format == "#,##0.00"  # money formatted
    investigations = list(book["Investigations"].iter_rows(values_only=True))
    assert [(r[0], r[2]) for r in investigations[1:]] == [
        ("T01", "maryland"), ("T02", "ohio"), ("T03", "maryland"), ("T03", "kansas"),
    ]  # fmt: skip
    shifts = list(book["Unreconciled shifts"].iter_rows(values_only=True))
    found = {row[2]: dict(zip(shifts[0], row, strict=True)) for row in shifts[1:]}
    assert set(found) == {"T02-1101-A", "T03-1102-A"}  # October's unreconciled shift is not November's
    assert found["T02-1101-A"]["difference"] == -25 and found["T03-1102-A"]["status"] == "no_closer"


def test_the_pdf_is_a_filed_report_with_its_figures_and_page_numbers(db, capsys, monkeypatch, tmp_path):
    pdf = PdfReader(report(capsys, monkeypatch, db, tmp_path, "pdf"))
    text = "\n".join(page.extract_text() for page in pdf.pages)
    assert "Monthly statistical report, November 2026" in text and "Casino of the Tests" in text
    assert f"Page 1 of {len(pdf.pages)}" in text
    assert "T01 Punto Banco 2 3,000.00 350.00 11.67 4,000.00 450.00 11.25 14.00 (2025) [12.00, 16.00] FLAG" in text
    assert "Total Punto Banco 2 3,800.00 550.00 14.47" in text and "Total All games 2 4,800.00 630.00 13.12" in text
    assert "Investigations due (4)" in text
    assert "T03 Punto Banco, Kansas (K.A.R. 112-108-51), as of 2026-11-02: MTD win-to-drop 25.00 %" in text
    assert "2 of 5 table-shifts unreconciled" in text and "-25.00" in text
    assert pdf.metadata.title == "Monthly statistical report, November 2026"


def test_the_rules_setting_decides_the_columns_and_the_investigations(db, capsys, monkeypatch, tmp_path):
    rows = pl.read_csv(report(capsys, monkeypatch, db, tmp_path, "csv", rules="Kansas"), infer_schema_length=None)
    assert not [name for name in rows.columns if name.startswith(("md_", "oh_"))]
    tables = rows.filter(level="table")  # by game, then table
    assert tables["table_id"].to_list() == ["T01", "T03", "T02"]
    assert tables["investigate"].fill_null("").to_list() == ["", "kansas", ""]


def test_by_default_it_writes_under_data_reports(db, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--db", str(db), "--month", "2026-11", "--format", "xlsx"]) == 0
    written = tmp_path / "data" / "reports" / "statistical-report-2026-11.xlsx"
    assert capsys.readouterr().out.startswith(f"wrote {written.relative_to(tmp_path)}: ")
    assert openpyxl.load_workbook(io.BytesIO(written.read_bytes())).sheetnames[0] == "Report"


def _no_marts(tmp_path: Path) -> Path:
    db = tmp_path / "bare.duckdb"
    duckdb.connect(str(db.with_name("bare.serving.duckdb"))).close()
    return db


@pytest.mark.parametrize(
    ("month", "where", "message"),
    [
        ("2026-13", "marts", "not a month (YYYY-MM, e.g. 2026-11): '2026-13'"),
        ("November", "marts", "not a month"),
        ("9999-12", "marts", "no report covers 9999-12: months run from 2000-01 to 9998-12"),
        ("0001-01", "marts", "no report covers 0001-01"),
        ("\u0662\u0660\u0662\u0666-11", "marts", "not a month"),  # Arabic-Indic digits
        ("2026-09", "marts", "no statistical report for 2026-09"),
        ("2026-11", "nothing", "no warehouse at"),
        ("2026-11", "bare", "has no count-room marts"),
    ],
)
def test_a_mistake_is_one_line_and_a_non_zero_exit(db, tmp_path, capsys, month, where, message):
    path = {"marts": db, "nothing": tmp_path / "none.duckdb", "bare": _no_marts(tmp_path)}[where]
    status = main(["report", "--db", str(path), "--month", month, "--out", str(tmp_path / "r.pdf")])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and not (tmp_path / "r.pdf").exists()
    assert err.startswith("banco: error: ") and len(err.strip().splitlines()) == 1 and message in err, err


def test_out_must_end_in_the_format_written(db, tmp_path, capsys):
    out = tmp_path / "r.csv"
    status = main(["report", "--db", str(db), "--month", "2026-11", "--format", "pdf", "--out", str(out)])
    _, err = capsys.readouterr()
    assert status == 2 and not (tmp_path / "r.csv").exists()
    assert err.strip().splitlines() == [
        f"banco: error: --out {tmp_path / 'r.csv'} does not end in .pdf, the format written: name it NAME.pdf"
    ]


def test_the_installed_command_refuses_bad_rules_in_one_line(db, tmp_path, monkeypatch):
    monkeypatch.setenv("BANCO_REPORT_RULES", "texas")
    result = banco("report", "--db", str(db), "--month", "2026-11", "--out", str(tmp_path / "r.pdf"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "banco: error: bad BANCO_* setting in the environment: BANCO_REPORT_RULES is a comma list of maryland, "
        "kansas, ohio, got 'texas' (texas unknown)"
    ]
