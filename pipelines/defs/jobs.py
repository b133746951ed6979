"""The jobs sensors and schedules launch: ingest what landed, and build the marts of gaming days."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.core.assets import ingest_landing
from pipelines.defs.core.shards import SHARD_INGESTS
from pipelines.defs.landing.assets import simulated_shoes
from pipelines.defs.marts.assets import build_marts
from pipelines.defs.marts.shards import SHARD_MARTS
from pipelines.defs.serving.assets import serving_snapshot

ingest_job = dg.define_asset_job(
    "ingest_landing",
    selection=dg.AssetSelection.assets(*SHARD_INGESTS, ingest_landing),
    description="Ingest new files from the landing folder into the core tables, each shard's on a step of its "
    "own, with the blocking checks.",
    tags={"banco/writes": "core"},  # one ingest run at a time (dagster.yaml's tag limits)
)

marts_job = dg.define_asset_job(
    "build_marts",
    selection=dg.AssetSelection.assets(*SHARD_MARTS, build_marts, serving_snapshot),
    description="Rebuild the marts of gaming days (each shard's on a step of its own, then combined) and "
    "publish the serving snapshot.",
    tags={"banco/writes": "marts"},
)

simulate_job = dg.define_asset_job(
    "simulate_shoes",
    selection=dg.AssetSelection.assets(simulated_shoes),
    description="Deal simulated shoes into the landing folder (the landing sensor then ingests them).",
)
