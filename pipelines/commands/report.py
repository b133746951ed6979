"""Write the monthly statistical report (CSV, XLSX or PDF) from the count-room marts."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

import duckdb

from models.reports import export, monthly
from models.reports.rules import parse_month
from models.settings import DEFAULTS, Settings
from models.warehouse import reader
from models.warehouse.store import WarehouseError

WHERE = "banco report"


def _month(text: str) -> dt.date:
    try:
        return parse_month(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("--month", type=_month, required=True, help="the month to report, e.g. 2026-11")
    parser.add_argument("--format", choices=export.FORMATS, default="pdf", help="pdf (the default), xlsx or csv")
    parser.add_argument("--out", type=Path, help="the file to write (default: statistical-report-MONTH.EXT in "
                        f"$BANCO_REPORTS, else {DEFAULTS.reports})")  # fmt: skip
    parser.epilog = (
        "The rules applied follow BANCO_REPORT_RULES (maryland, kansas, ohio; default maryland), the name on "
        "the report BANCO_PROPERTY_NAME."
    )


def _read(db: Path, sql: str, month: dt.date):
    try:
        params = monthly.window(month)
        return reader.run(db, sql, lambda relation: relation.pl(), where=WHERE, params=params, user=False)
    except duckdb.CatalogException:  # ingested, but built before the count-room marts (or never built)
        raise WarehouseError(
            f"the warehouse at {db} has no count-room marts ({', '.join(monthly.MARTS[:2])}) yet: run `banco build`"
        ) from None


def run(args: argparse.Namespace) -> int:
    settings = args.settings
    db = Path(args.db)
    statistical = _read(db, monthly.STATISTICAL, args.month)
    shifts = _read(db, monthly.SHIFTS, args.month)
    report = monthly.report(statistical, shifts, args.month, settings.report_rules, settings.property_name)
    path = export.write(report, args.format, args.out or settings.reports / export.file_name(report, args.format))
    tables = report.tables.filter(level="table").height
    print(
        f"wrote {path}: {tables} tables, {report.investigations.height} investigations due, "
        f"{report.reconciliation.unreconciled} unreconciled table-shifts"
    )
    return 0
