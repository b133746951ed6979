"""One ingest asset per shard: each takes the landing files whose tables all belong to its shard and
commits them beside the other shards' writers (models/warehouse/ingest.py)."""

from pathlib import Path

import dagster as dg

from pipelines.defs.core.summary import IngestConfig, summary_metadata
from pipelines.defs.landing.assets import landing_files, simulated_shoes
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SHARDING


def shard_files(paths: list[Path], shard: str | None) -> list[Path]:
    """The round logs under `paths` that `shard` ingests (None: those of several shards, or unreadable)."""
    from models.warehouse.assign import by_shard
    from models.warehouse.ingest import found

    return by_shard(found(paths), SHARDING).get(shard, [])


def shard_ingest(shard: str) -> dg.AssetsDefinition:
    @dg.asset(
        name=f"ingest_{shard}",
        key_prefix=["core"],
        description=f"The landing files of shard {shard}'s tables, committed into the core tables beside the "
        "other shards' (files already in are skipped).",
        deps=[landing_files, simulated_shoes],
        kinds={"iceberg", "polars"},
        group_name="core",
        op_tags={"banco/shard": shard},
    )
    def ingest_shard(context: dg.AssetExecutionContext, config: IngestConfig, warehouse: Warehouse):
        from models.warehouse.ingest import Summary, ingest

        paths = shard_files(config.landing(warehouse), shard)
        context.log.info(f"shard {shard}: {len(paths)} files")
        done = Summary.of(ingest(warehouse.db_path, paths, shard=shard))
        for result in done.failed:
            context.log.warning(f"failed {result.path}: {result.error}")
        return dg.MaterializeResult(metadata=summary_metadata(done))

    return ingest_shard


SHARD_INGESTS = [shard_ingest(shard) for shard in SHARDING.names]


def ingest_run_config(paths: list[str]) -> dg.RunConfig:
    """The run config of an ingest of `paths`: every shard's step and the final one take the same list."""
    steps = ["ingest", *(asset.op.name for asset in SHARD_INGESTS)]
    return dg.RunConfig(ops={step: IngestConfig(paths=paths) for step in steps})
