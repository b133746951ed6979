"""The shards of the code location: one ingest and one marts asset per shard, run side by side (the
multiprocess executor) or on other machines (Celery, Kubernetes); and the op tag of the steps that
write the serving DuckDB file, which only the serving host's worker takes."""

from __future__ import annotations

from models.warehouse.shards import Sharding
from pipelines.cluster.executor import SERVING
from pipelines.defs.resources import SETTINGS

__all__ = ["SERVING", "SHARDING"]
SHARDING = Sharding(SETTINGS.shards)
