"""Ingest the landing folder into the core, quarantine and meta tables of the warehouse."""

import datetime as dt
from pathlib import Path

import dagster as dg
from pydantic import Field

from models.metrics.days import days_touched_since
from models.warehouse import schema
from models.warehouse.ingest import Summary, ingest
from pipelines.defs.landing.assets import landing_files, simulated_shoes
from pipelines.defs.metadata import table_metadata
from pipelines.defs.resources import Warehouse

DESCRIPTIONS = {
    schema.CORE_ROUNDS: "One row per accepted coup, with totals, draws, natural, pairs and outcome.",
    schema.CORE_BETS: "One row per accepted wager, with the house's net, commission and theoretical win.",
    schema.CORE_SHOES: "One row per shoe: coups, cards seen and how the shoe reconciled against its decks.",
    schema.QUARANTINE_ROUNDS: "Rejected round rows, kept with their raw text, reason, detail, file and line.",
    schema.QUARANTINE_BETS: "Rejected bet rows, kept with their raw text, reason, detail, file and line.",
    schema.INGEST_LOG: "One row per file ingested: rows read, accepted, quarantined, duplicate, status, error.",
}


def key_of(table: str) -> dg.AssetKey:
    """The asset key of a warehouse table: `core.rounds` is core/rounds."""
    return dg.AssetKey(table.split("."))


INGEST_LOG = key_of(schema.INGEST_LOG)


class IngestConfig(dg.Config):
    """Files or folders to ingest; none means the whole landing folder (files already in are skipped)."""

    paths: list[str] = Field(default_factory=list)


@dg.multi_asset(
    name="ingest",
    specs=[
        dg.AssetSpec(
            key_of(table),
            description=text,
            deps=[landing_files, simulated_shoes],
            kinds={"iceberg", "polars"},
            group_name="core",
        )
        for table, text in DESCRIPTIONS.items()
    ],
    pool="duckdb",
)
def ingest_landing(context: dg.AssetExecutionContext, config: IngestConfig, warehouse: Warehouse):
    """Each file committed whole (its tables, then its log row); rounds before bets; the serving
    snapshot published after."""
    started = dt.datetime.now(dt.UTC)
    paths = [Path(path) for path in config.paths] or [warehouse.landing_path]
    done = Summary.of(ingest(warehouse.db_path, paths))
    for result in done.failed:
        context.log.warning(f"failed {result.path}: {result.error}")
    with warehouse.snapshot() as con:
        days = days_touched_since(con, started, warehouse.gaming_day)
    summary = {
        "summary": dg.MetadataValue.text(done.headline()),
        "ingest_started_at": dg.MetadataValue.text(started.isoformat()),
        "files_new": done.new,
        "files_skipped": done.skipped,
        "files_failed": len(done.failed),
        "rows_read": done.rows_read,
        "rows_accepted": done.accepted,
        "rows_quarantined": sum(done.quarantined.values()),
        "rows_duplicate": done.duplicates,
        "quarantined_by_reason": dg.MetadataValue.json(dict(sorted(done.quarantined.items()))),
        "failed_files": dg.MetadataValue.json({str(r.path): r.error for r in done.failed}),
        "gaming_days_touched": dg.MetadataValue.json([day.isoformat() for day in days]),
    }
    tables = table_metadata(warehouse.db_path, list(DESCRIPTIONS))
    for table in DESCRIPTIONS:
        extra = summary if table == schema.INGEST_LOG else {}
        yield dg.MaterializeResult(asset_key=key_of(table), metadata={**tables[table], **extra})


def latest_ingest_start(context) -> dt.datetime | None:
    """When the latest ingest began, from its materialization (None before the first)."""
    event = context.instance.get_latest_materialization_event(INGEST_LOG)
    if event is None or event.asset_materialization is None:
        return None
    return dt.datetime.fromisoformat(event.asset_materialization.metadata["ingest_started_at"].value)
