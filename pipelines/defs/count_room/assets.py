"""The monthly statistical report, one partition a month, filed as CSV, XLSX and PDF."""

import datetime as dt
from pathlib import Path

import dagster as dg

from models.settings import Settings
from models.warehouse import schema
from models.warehouse.schema import BUILT_FROM
from pipelines.defs.core.assets import key_of
from pipelines.defs.metadata import preview
from pipelines.defs.partitions import FIRST_DAY
from pipelines.defs.resources import SETTINGS, Warehouse
from pipelines.defs.shards import SERVING


def months(settings: Settings, first: dt.date) -> dg.MonthlyPartitionsDefinition:
    """Months from that of the gaming day `first` to the one in progress (its report is month-to-date)."""
    return dg.MonthlyPartitionsDefinition(
        start_date=first.replace(day=1).isoformat(),
        timezone=settings.gaming_day.timezone,
        hour_offset=settings.gaming_day.start_hour,
        end_offset=1,
    )


MONTHS = months(SETTINGS, FIRST_DAY)


class ReportConfig(dg.Config):
    """Where the month's files go: empty for BANCO_REPORTS (default data/reports)."""

    folder: str = ""


@dg.asset(
    key=["reports", "monthly_statistical_report"],
    description="The month's statistical report as a regulator would have it filed (drop, win and win-to-drop "
    "per table and game, month- and year-to-date, the rules' flags, the investigations due and the count "
    "against the wagers), written as CSV, XLSX and PDF into BANCO_REPORTS (default data/reports).",
    deps=[key_of(schema.MARTS_STATISTICAL_REPORT), key_of(schema.MARTS_TABLE_SHIFT)],
    partitions_def=MONTHS,
    kinds={"pdf", "csv"},
    group_name="reports",
    op_tags=SERVING,  # it reads the serving snapshot, which only the serving host has
)
def monthly_statistical_report(
    context: dg.AssetExecutionContext, config: ReportConfig, warehouse: Warehouse
) -> dg.MaterializeResult:
    from models.reports import export, manifest, monthly
    from models.warehouse import travel, views

    month = dt.date.fromisoformat(context.partition_key)
    with warehouse.snapshot() as con:
        statistical = con.sql(monthly.STATISTICAL, params=monthly.window(month)).pl()
        shifts = con.sql(monthly.SHIFTS, params=monthly.window(month)).pl()
        built = con.sql(travel.BUILT).fetchall() if views.exists(con, BUILT_FROM) else []
    if statistical.is_empty():
        context.log.info(f"no count-room rows for {month:%Y-%m}: nothing to report")
        return dg.MaterializeResult(metadata={"tables": 0, "investigations": 0})
    commit, marts = travel.built(built)
    rules, name = SETTINGS.report_rules, SETTINGS.property_name
    report = monthly.report(statistical, shifts, month, rules, name, as_of=manifest.figures_time(commit, month))
    folder = Path(config.folder) if config.folder else SETTINGS.reports
    files = {fmt: export.write(report, fmt, folder / export.file_name(report, fmt)) for fmt in export.FORMATS}
    # each file's manifest, as `banco report` writes it: `banco verify` and `--as-of` take it
    recorded = {"marts": marts, "report": manifest.report_settings(rules, name)}
    for fmt, path in files.items():
        manifest.write(manifest.made(path, month, fmt, commit.recorded() if commit else None, recorded), path)
    summary = report.reconciliation
    return dg.MaterializeResult(
        metadata={
            **{f"{fmt}_path": dg.MetadataValue.path(str(path)) for fmt, path in files.items()},
            "tables": report.tables.filter(level="table").height,
            "investigations": report.investigations.height,
            "rules": ", ".join(report.rules),
            "table_shifts": summary.shifts,
            "table_shifts_unreconciled": summary.unreconciled,
            "investigations_due": preview(report.investigations, 20),
        }
    )


monthly_report_job = dg.define_asset_job(
    "monthly_statistical_report",
    selection=dg.AssetSelection.assets(monthly_statistical_report),
    description="Write a month's statistical report (CSV, XLSX and PDF) from the serving snapshot.",
)
