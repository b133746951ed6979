"""The cluster deployment: Dagster's Celery executor, its workers, and the servers they share."""
