"""A Celery worker's settings: `celery -A dagster_celery.app worker` imports this module when it is on
the worker's PYTHONPATH (dagster-celery looks for a module of this name). It reads the same BANCO_*
settings as the executor that sends the tasks (pipelines/cluster/executor.py), so both agree."""

from pipelines.cluster.executor import CelerySettings as _CelerySettings
from pipelines.cluster.worker import load_code_at_start as _load_code_at_start

globals().update(_CelerySettings.from_env().worker_config())
_load_code_at_start()
