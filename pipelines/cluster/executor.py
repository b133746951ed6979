"""Which executor runs a job's steps: Dagster's default on one machine, Celery's on a cluster.

With BANCO_EXECUTOR=celery every step is a task on the Redis broker BANCO_BROKER_URL, taken by a worker
(`celery -A dagster_celery.app worker`, docs/scale-out.md). The workers read the same settings through
deploy/cluster/dagster_celery_config.py, so the side that sends a task and the side that runs it agree.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlparse

import dagster as dg

QUEUE_TAG = "dagster-celery/queue"
#: dagster-celery's own default queue: every step without the tag below.
DEFAULT_QUEUE = "dagster"
SERVING_QUEUE = "serving"
#: Op tags of the steps that write the serving DuckDB file: only the serving host's worker takes them.
SERVING = {QUEUE_TAG: SERVING_QUEUE}
#: A task its worker has not acknowledged for this long (the worker died with its machine) is handed to
#: another worker. A step that runs longer is run twice, so it must exceed the longest step, and stay
#: below the instance's max run time (deploy/cluster/dagster.yaml), which cancels a run waiting longer.
DEFAULT_VISIBILITY_TIMEOUT = 3600


@dataclass(frozen=True)
class CelerySettings:
    """Where the tasks and their results go, and when a dead worker's task is handed on."""

    broker: str
    backend: str
    visibility_timeout: int = DEFAULT_VISIBILITY_TIMEOUT

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> CelerySettings:
        """BANCO_BROKER_URL (redis://HOST:PORT/DB, required), BANCO_CELERY_BACKEND (redis://... or
        rpc://; default the broker) and BANCO_CELERY_VISIBILITY_TIMEOUT (seconds, default 3600)."""
        broker = env.get("BANCO_BROKER_URL", "")
        if urlparse(broker).scheme not in ("redis", "rediss") or not urlparse(broker).hostname:
            raise ValueError(f"BANCO_BROKER_URL must be a Redis URL such as redis://127.0.0.1:6379/0, not {broker!r}")
        backend = env.get("BANCO_CELERY_BACKEND") or broker
        if urlparse(backend).scheme not in ("redis", "rediss", "rpc"):
            raise ValueError(f"BANCO_CELERY_BACKEND must be a redis:// URL or rpc://, not {backend!r}")
        timeout = env.get("BANCO_CELERY_VISIBILITY_TIMEOUT", str(DEFAULT_VISIBILITY_TIMEOUT))
        if not timeout.isdigit() or int(timeout) < 1:
            raise ValueError(f"BANCO_CELERY_VISIBILITY_TIMEOUT must be a whole number of seconds, not {timeout!r}")
        return cls(broker, backend, int(timeout))

    def app_config(self) -> dict:
        """Celery settings both sides share (the executor's `config_source`, the workers' config module)."""
        return {
            # A task is acknowledged when it ends, not when it arrives: the message of a worker that dies
            # mid-step stays on the broker. Its pool child killed, the worker requeues it at once; the
            # whole worker gone, another worker takes it after the visibility timeout.
            "task_acks_late": True,
            "task_reject_on_worker_lost": True,
            # One task at a time per process, none held in reserve that a dying worker would take along.
            "worker_prefetch_multiplier": 1,
            "broker_transport_options": {
                "visibility_timeout": self.visibility_timeout,
                # a live worker looks for messages whose worker died every few seconds, not every 100 s
                "unacked_restore_interval": min(10, self.visibility_timeout),
                "unacked_restore_throttle": 1,
                # dagster-celery's own defaults, which this dict replaces
                "max_retries": 3,
                "interval_start": 0,
                "interval_step": 0.2,
                "interval_max": 0.5,
            },
            "broker_connection_retry_on_startup": True,
        }

    def worker_config(self) -> dict:
        """What a worker's `dagster_celery_config` module holds."""
        return {
            "broker_url": self.broker,
            "result_backend": self.backend,
            # a pool process that imports the code location at start (worker.load_code_at_start) is up in
            # seconds, not the 4 s Celery waits for by default before it kills and replaces it
            "worker_proc_alive_timeout": 120,
            **self.app_config(),
        }


def executor_from_env(env: Mapping[str, str] = os.environ) -> dg.ExecutorDefinition:
    """Dagster's default executor (steps in subprocesses of the run), or with BANCO_EXECUTOR=celery
    dagster-celery's, configured from the environment (CelerySettings.from_env)."""
    kind = env.get("BANCO_EXECUTOR") or "multiprocess"
    if kind == "multiprocess":
        return dg.multi_or_in_process_executor
    if kind != "celery":
        raise ValueError(f"BANCO_EXECUTOR must be 'multiprocess' or 'celery', not {kind!r}")
    from dagster_celery import celery_executor

    settings = CelerySettings.from_env(env)
    config = {"broker": settings.broker, "backend": settings.backend, "config_source": settings.app_config()}
    return celery_executor.configured(config, name="celery")
