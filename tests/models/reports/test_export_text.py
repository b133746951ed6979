"""A report's ids and names stay text in every export: no cell of the xlsx is a formula or a link, and no
cell of the csv starts as a spreadsheet formula would (OWASP's CSV injection list)."""

import csv
import datetime as dt
import io

import openpyxl
import polars as pl

from models.reports import export, monthly
from tests.pipelines import count_room_marts

LINK = '=HYPERLINK("http://example.invalid/x","click")'
PAYLOADS = {"T01": LINK, "T02": "=1+1", "T03": "@SUM(A1:A9)"}


def evil_report() -> monthly.Report:
    """The crafted month's report with its table ids, a shift id and the property's name as payloads."""
    statistical = pl.DataFrame(count_room_marts.STATISTICAL, infer_schema_length=None).select(
        monthly.STATISTICAL_COLUMNS
    )
    shifts = pl.DataFrame(count_room_marts.SHIFTS, infer_schema_length=None).select(monthly.SHIFT_COLUMNS)
    statistical, shifts = (
        frame.with_columns(pl.col("table_id").replace(PAYLOADS)).filter(pl.col("gaming_day").dt.month() == 11)
        for frame in (statistical, shifts)
    )
    shifts = shifts.with_columns(shift_id=pl.lit("-2+3"))
    return monthly.report(statistical, shifts, dt.date(2026, 11, 1), ("maryland",), "+cmd|' /C calc'!A0")


def test_no_cell_of_the_workbook_is_a_formula_or_a_link():
    book = openpyxl.load_workbook(io.BytesIO(export.xlsx(evil_report())))
    cells = [cell for sheet in book.worksheets for row in sheet.iter_rows() for cell in row]
    assert not [cell.coordinate for cell in cells if cell.data_type == "f" or cell.hyperlink]
    texts = {cell.value for cell in cells if isinstance(cell.value, str)}
    assert {LINK, "=1+1", "-2+3", "+cmd|' /C calc'!A0"} <= texts  # kept as the logs gave them, as text


def test_no_cell_of_the_csv_starts_as_a_formula():
    rows = list(csv.reader(io.StringIO(export.csv(evil_report()).decode())))
    header, body = rows[0], rows[1:]
    texts = [value for row in body for name, value in zip(header, row, strict=True) if name in ("table_id", "game")]
    assert {f"'{LINK}", "'=1+1", "'@SUM(A1:A9)"} <= set(texts)
    assert not [value for value in texts if value.startswith(export.FORMULA_STARTS)]
