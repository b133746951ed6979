"""The shards of the code location: one ingest and one marts asset per shard, run side by side (the
multiprocess executor) or on other machines (Celery, Kubernetes); and the serving host's queue."""

from __future__ import annotations

from models.warehouse.shards import Sharding

SHARDING = Sharding.from_env()
#: The op tag of every step that writes the serving DuckDB file: dagster-celery sends it to the
#: `serving` queue, which only the serving host's worker takes (other executors pass it over).
SERVING = {"dagster-celery/queue": "serving"}
