"""The morning report: a gaming day's one-page PDF, written to the reports folder and emailed once to the
recipients of the alerts file's morning-report rules."""

import datetime as dt
from pathlib import Path

import dagster as dg

from models.warehouse import schema
from pipelines.defs.alerts.jobs import MAX_RUNTIME_SECONDS, alert_settings
from pipelines.defs.core.assets import key_of
from pipelines.defs.partitions import GAMING_DAYS
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING


class MorningReportConfig(dg.Config):
    """Where the page goes: empty for BANCO_REPORTS (default data/reports)."""

    folder: str = ""


@dg.asset(
    key=["reports", "morning_report"],
    description="The gaming day's one-page morning report (hold against theo by table, surveillance flags, "
    "unexplained table-shifts, integrity counts, each with its dashboard link), written as "
    "morning-report-DAY.pdf into BANCO_REPORTS and emailed once to the morning-report rules' recipients.",
    deps=[key_of(schema.MARTS_TABLE_DAY), key_of(schema.MARTS_SURVEILLANCE_FLAGS), key_of(schema.MARTS_TABLE_SHIFT)],
    partitions_def=GAMING_DAYS,
    kinds={"pdf"},
    group_name="reports",
    pool="duckdb",  # announce records the sending in meta.alerts through the warehouse's single writer
    op_tags=SERVING,  # it reads the serving snapshot, which only the serving host has
)
def morning_report(
    context: dg.AssetExecutionContext, config: MorningReportConfig, warehouse: Warehouse
) -> dg.MaterializeResult:
    from models.alerts import morning
    from models.alerts.channels import every
    from models.alerts.evaluate import announce, snapshot
    from models.alerts.rules import on_event, read, recipients
    from models.metrics import staleness
    from models.reports import daily, daily_pdf
    from models.warehouse.store import WarehouseError

    day, settings = dt.date.fromisoformat(context.partition_key), alert_settings()
    try:
        report = morning.read(
            warehouse.db_path, day, property_name=settings.property_name, gaming_day=warehouse.gaming_day,
            currency=settings.currency, dashboard_url=settings.dashboard_url,
            snapshot=snapshot(warehouse.db_path), stale=staleness.of_serving(warehouse.db_path, "morning report"),
        )  # fmt: skip
    except WarehouseError as error:  # a day without play, or no marts yet: nothing to report, nothing failed
        context.log.info(str(error))
        return dg.MaterializeResult(metadata={"sent": 0})
    if report.stale:
        context.log.warning(report.stale)
    folder = Path(config.folder) if config.folder else settings.reports
    path = daily_pdf.write(report, folder / daily.file_name(day))
    pdf, channels, sent = path.read_bytes(), every(settings), []
    for rule in on_event(read(settings.alerts_file), "morning-report"):
        text = morning.message(report, rule, recipients(rule, settings.alerts_to), pdf)
        used = [channel for channel in channels if channel.name in rule.channels]
        for delivery in announce(warehouse.db_path, text, {"gaming_day": day.isoformat()}, used):
            sent.append(delivery)
            line = f"{rule.name} via {delivery.channel}: {'sent' if delivery.ok else 'failed'}, {delivery.detail}"
            (context.log.info if delivery.ok else context.log.warning)(line)
    return dg.MaterializeResult(
        metadata={
            "pdf_path": dg.MetadataValue.path(str(path)),
            "snapshot": report.snapshot,
            "sent": sum(delivery.ok for delivery in sent),
            "failed": sum(not delivery.ok for delivery in sent),
        }
    )


morning_report_job = dg.define_asset_job(
    "morning_report",
    selection=dg.AssetSelection.assets(morning_report),
    description="Write a gaming day's one-page morning report and email it to the morning-report rules' "
    "recipients (once a day: meta.alerts records what was sent).",
    tags={"dagster/max_runtime": str(MAX_RUNTIME_SECONDS)},  # as send_alerts: a wait for the writer, retries
)
