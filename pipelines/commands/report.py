"""Write the monthly statistical report (CSV, XLSX or PDF), or a gaming day's one-page morning report (PDF)."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import replace
from pathlib import Path

import duckdb

from models.metrics import staleness
from models.reports import export, manifest, monthly
from models.reports.rules import parse_month
from models.settings import DEFAULTS, Settings
from models.warehouse import reader, travel
from models.warehouse.store import WarehouseError
from models.warehouse.travel import Commit
from pipelines.progress import Progress, bars

WHERE = "banco report"


def _month(text: str) -> dt.date:
    try:
        return parse_month(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a gaming day is a date as YYYY-MM-DD, not {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--month", type=_month, help="the month to report, e.g. 2026-11 (with --as-of MANIFEST: "
                       "the manifest's)")  # fmt: skip
    which.add_argument("--day", type=_day, help="a gaming day's one-page morning report instead, e.g. 2026-11-18 "
                       "(PDF only)")  # fmt: skip
    parser.add_argument("--format", choices=export.FORMATS, help="pdf (the default, or the manifest's), xlsx or csv")
    parser.add_argument("--out", type=Path, help="the file to write (default: statistical-report-MONTH.EXT in "
                        f"$BANCO_REPORTS, else {DEFAULTS.reports}; with --as-of, "
                        "statistical-report-MONTH.as-of-SNAPSHOT.EXT; with --day, morning-report-DAY.pdf)")  # fmt: skip
    parser.add_argument("--as-of", metavar="MANIFEST|SNAPSHOT|TIME",
                        help="make the report again from the tables as a commit left them (a report's manifest, "
                        "with its settings; a snapshot id; an ISO 8601 time with its zone), its marts built in a "
                        "scratch warehouse")  # fmt: skip
    parser.epilog = (
        "The rules applied follow BANCO_REPORT_RULES (maryland, kansas, ohio; default maryland), the name on "
        "the report BANCO_PROPERTY_NAME. Beside the file, NAME.manifest.json names the commit and settings it "
        "was made from and its sha256 (`banco verify NAME.manifest.json` checks it). The morning report (--day) "
        "shows the day's hold against theo by table, surveillance flags, unexplained table-shifts and integrity "
        "counts, each with a link to its page under BANCO_DASHBOARD_URL."
    )


def _read(db: Path, sql: str, month: dt.date):
    try:
        params = monthly.window(month)
        return reader.run(db, sql, lambda relation: relation.pl(), where=WHERE, params=params, user=False)
    except duckdb.CatalogException:  # ingested, but built before the count-room marts (or never built)
        raise WarehouseError(
            f"the warehouse at {db} has no count-room marts ({', '.join(monthly.MARTS[:2])}) yet: run `banco build`"
        ) from None


def _built(db: Path) -> tuple[Commit | None, dict | None]:
    """The commit the serving file's marts were built from and their settings (None: a build before
    builds noted them)."""
    try:
        return travel.built(reader.run(db, travel.BUILT, lambda rel: rel.fetchall(), where=WHERE, user=False))
    except duckdb.CatalogException:
        return None, None


def run(args: argparse.Namespace) -> int:
    if args.day is not None:
        return _morning(args)
    with bars() as progress:
        return _again(args, progress) if args.as_of is not None else _report(args, progress)


def _morning(args: argparse.Namespace) -> int:
    """The gaming day's one-page morning report, as the schedule emails it."""
    from models.alerts import morning
    from models.alerts.evaluate import snapshot
    from models.reports import daily, daily_pdf

    if args.as_of is not None or (args.format or "pdf") != "pdf":
        raise ValueError("--day makes the one-page morning report: a PDF of the serving snapshot, without --as-of")
    settings = args.settings
    report = morning.read(
        Path(args.db), args.day, property_name=settings.property_name, gaming_day=settings.gaming_day,
        currency=settings.currency, dashboard_url=settings.dashboard_url, snapshot=snapshot(Path(args.db)),
    )  # fmt: skip
    if report.stale is not None:
        print(f"{WHERE}: warning: {report.stale}", file=sys.stderr)
    path = daily_pdf.write(report, _out(args.out, "pdf") or settings.reports / daily.file_name(args.day))
    flags, shifts = int(report.flags["flags"].sum() or 0), report.shifts.height
    tables = report.tables.filter(level="table").height
    print(f"wrote {path}: {tables} tables, {flags} surveillance flags, {shifts} unexplained table-shifts")
    return 0


def _report(args: argparse.Namespace, progress: Progress) -> int:
    if args.month is None:
        raise ValueError("--month is needed: the month to report, e.g. 2026-11")
    settings, db, month, fmt = args.settings, Path(args.db), args.month, args.format or "pdf"
    progress("reading the count-room marts", 0)
    for _ in range(3):  # a build published between the reads: read again, so the marts are the commit's
        commit, marts = _built(db)
        statistical, shifts = _read(db, monthly.STATISTICAL, month), _read(db, monthly.SHIFTS, month)
        if _built(db)[0] == commit:
            break
    as_of = manifest.figures_time(commit, month)
    report = monthly.report(statistical, shifts, month, settings.report_rules, settings.property_name, as_of=as_of)
    stale = staleness.of_serving(db, WHERE)
    if stale is not None:  # the report is still written: the warning goes with it, in its manifest
        print(f"{WHERE}: warning: {stale}", file=sys.stderr)
    progress(f"writing the {fmt}", 0)
    path = export.write(report, fmt, _out(args.out, fmt) or settings.reports / export.file_name(report, fmt))
    recorded = {"marts": marts, "report": manifest.report_settings(settings.report_rules, settings.property_name)}
    made = manifest.made(path, month, fmt, commit.recorded() if commit else None, recorded)
    manifest.write(replace(made, stale=stale), path)
    _wrote(path, report)
    return 0


def _out(out: Path | None, fmt: str) -> Path | None:
    """`--out` as given, when its extension is the format's (a PDF named .csv misleads whoever opens it)."""
    if out is not None and out.suffix.lower() != f".{fmt}":
        raise ValueError(f"--out {out} does not end in .{fmt}, the format written: name it NAME.{fmt}")
    return out


def _wrote(path: Path, report: monthly.Report) -> None:
    tables = report.tables.filter(level="table").height
    print(
        f"wrote {path}: {tables} tables, {report.investigations.height} investigations due, "
        f"{report.reconciliation.unreconciled} unreconciled table-shifts"
    )


def _again(args: argparse.Namespace, progress: Progress) -> int:
    """The report made again as of a manifest's commit with its settings, or as of a snapshot or a
    time with the settings in force."""
    from models.metrics import as_of
    from models.metrics.config import MartConfig

    settings, db = args.settings, Path(args.db)
    if args.as_of.endswith(manifest.SUFFIX) or Path(args.as_of).is_file():
        made = manifest.read(Path(args.as_of))
        commit = travel.find(db, str(made.log_snapshot()))
        config, rules, name = as_of.config_of(made), made.report_rules, made.property_name
        month, fmt = args.month or made.first_day, args.format or made.format
    else:
        if args.month is None:
            raise ValueError("--month is needed with --as-of SNAPSHOT or TIME: the month to report, e.g. 2026-11")
        commit = travel.find(db, args.as_of)
        config = MartConfig.from_settings(settings)  # as `banco build` reckons them
        rules, name, month, fmt = settings.report_rules, settings.property_name, args.month, args.format or "pdf"
    print(f"{WHERE}: building the marts at {commit.describe()} in a scratch warehouse", file=sys.stderr)
    report = as_of.report_at(db, commit, config, month, rules, name, progress)
    default = f"statistical-report-{month:%Y-%m}.as-of-{commit.log_snapshot}.{fmt}"
    progress(f"writing the {fmt}", 0)
    path = export.write(report, fmt, _out(args.out, fmt) or settings.reports / default)
    recorded = {"marts": config.recorded(), "report": manifest.report_settings(rules, name)}
    manifest.write(manifest.made(path, month, fmt, commit.recorded(), recorded), path)
    _wrote(path, report)
    return 0
