"""One marts asset per shard: a run's gaming days computed over the shard's tables alone, on any
worker, and stored beside the warehouse for the day's second stage (`marts`) to combine."""

import dagster as dg

from models.warehouse import schema
from pipelines.defs.core.assets import key_of
from pipelines.defs.partitions import GAMING_DAYS, run_days
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SHARDING

CORE = [key_of(table) for table in (schema.CORE_ROUNDS, schema.CORE_BETS, schema.CORE_SHOES, schema.CORE_TABLE_EVENTS)]


def shard_marts(shard: str) -> dg.AssetsDefinition:
    spec = dg.AssetSpec(
        ["marts", f"shard_{shard}"],
        description=f"Every mart of the run's gaming days over shard {shard}'s tables alone, stored per day "
        "for the `marts` step to combine with the other shards'.",
        deps=CORE,
        kinds={"polars", "parquet"},
        group_name="marts",
    )

    @dg.multi_asset(  # one asset: a multi-asset takes a backfill policy out of beta
        name=f"marts_{shard}",
        specs=[spec],
        partitions_def=GAMING_DAYS,
        backfill_policy=dg.BackfillPolicy.single_run(),
        op_tags={"banco/shard": shard},
    )
    def marts_of_shard(context: dg.AssetExecutionContext, warehouse: Warehouse) -> dg.MaterializeResult:
        from models.metrics.build import build_shard

        days = run_days(context)
        rows = build_shard(warehouse.db_path, warehouse.mart_config, days, shard, SHARDING, context.run.run_id)
        return dg.MaterializeResult(
            metadata={"days": len(days), "rows": sum(rows.values()), "rows_by_mart": dg.MetadataValue.json(rows)}
        )

    return marts_of_shard


SHARD_MARTS = [shard_marts(shard) for shard in SHARDING.names]
