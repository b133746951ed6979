"""Ingest the landing folder into the core, quarantine and meta tables of the warehouse."""

import datetime as dt

import dagster as dg

from models.warehouse import schema
from pipelines.defs.core.shards import SHARD_INGESTS, shard_files
from pipelines.defs.core.summary import IngestConfig, combined, summary_metadata
from pipelines.defs.metadata import table_metadata
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING

DESCRIPTIONS = {
    schema.CORE_ROUNDS: "One row per accepted coup, with totals, draws, natural, pairs and outcome.",
    schema.CORE_BETS: "One row per accepted wager, with the house's net, commission and theoretical win.",
    schema.CORE_SHOES: "One row per shoe: coups, cards seen and how the shoe reconciled against its decks.",
    schema.QUARANTINE_ROUNDS: "Rejected round rows, kept with their raw text, reason, detail, file and line.",
    schema.QUARANTINE_BETS: "Rejected bet rows, kept with their raw text, reason, detail, file and line.",
    schema.CORE_TABLE_EVENTS: "One row per accepted table event: openers, closers, fills, credits, drops, markers "
    "and marker payments, by table and shift.",
    schema.QUARANTINE_TABLE_EVENTS: "Rejected table-event rows, kept with their raw text, reason, detail, file and "
    "line.",
    schema.INGEST_LOG: "One row per file ingested: rows read, accepted, quarantined, duplicate, status, error.",
}


def key_of(table: str) -> dg.AssetKey:
    """The asset key of a warehouse table: `core.rounds` is core/rounds."""
    return dg.AssetKey(table.split("."))


INGEST_LOG = key_of(schema.INGEST_LOG)


def run_started(context) -> dt.datetime:
    """When the run began: every shard's ingest of it began after."""
    record = context.instance.get_run_record_by_id(context.run.run_id)
    started = record.start_time if record is not None and record.start_time else None
    return dt.datetime.fromtimestamp(started, dt.UTC) if started else dt.datetime.now(dt.UTC)


def shard_metadata(context) -> list[dict]:
    """The metadata each shard's ingest of this run recorded."""
    parts = []
    for asset in SHARD_INGESTS:
        event = context.instance.get_latest_materialization_event(asset.key)
        if event is not None and event.run_id == context.run.run_id and event.asset_materialization is not None:
            parts.append(event.asset_materialization.metadata)
    return parts


@dg.multi_asset(
    name="ingest",
    specs=[
        dg.AssetSpec(
            key_of(table),
            description=text,
            deps=[asset.key for asset in SHARD_INGESTS],
            kinds={"iceberg", "polars"},
            group_name="core",
        )
        for table, text in DESCRIPTIONS.items()
    ],
    pool="duckdb",
    op_tags=SERVING,
)
def ingest_landing(context: dg.AssetExecutionContext, config: IngestConfig, warehouse: Warehouse):
    """After every shard's writer: the files of several shards' tables (or unreadable ones) ingested
    alone, then the tables maintained and the serving snapshot published, as the serving writer."""
    from models.metrics.days import days_touched_since
    from models.warehouse.ingest import Summary, ingest

    started = run_started(context)
    rest = shard_files(config.landing(warehouse), None)
    done = Summary.of(ingest(warehouse.db_path, rest))
    for result in done.failed:
        context.log.warning(f"failed {result.path}: {result.error}")
    with warehouse.snapshot() as con:
        days = days_touched_since(con, started, warehouse.gaming_day)
    summary = {
        **combined([*shard_metadata(context), summary_metadata(done)]),
        "ingest_started_at": dg.MetadataValue.text(started.isoformat()),
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
