"""What a Celery worker does as it starts: import the code location. A module of its own, which only the
workers' config imports (deploy/cluster/dagster_celery_config.py): the code location imports the executor,
so the executor importing the code location back would make a loop."""

from __future__ import annotations


def load_code_at_start() -> None:
    """Have each of a worker's pool processes import the code location as it starts, not at its first
    step. Not before the fork (Celery's `include`): the import starts Polars' threads, and a process
    forked after that hangs at its first Polars query."""
    from celery.signals import worker_process_init

    @worker_process_init.connect(weak=False)
    def _import_code(**_) -> None:
        import pipelines.definitions  # noqa: F401
