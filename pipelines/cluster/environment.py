"""The environment every process of a cluster shares: the broker, the instance, the catalog and the
bucket, the code server's address, the shards and the landing folder."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from pipelines.cluster.processes import DEPLOY


def dagster_home(folder: Path) -> Path:
    """A DAGSTER_HOME holding the cluster's dagster.yaml (deploy/cluster), as an operator sets one up."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DEPLOY / "dagster.yaml", folder / "dagster.yaml")
    return folder


def environment(
    *,
    broker: str,
    instance_url: str,
    catalog_url: str,
    storage: Mapping[str, str],
    home: Path,
    code_port: int,
    shards: int,
    landing: Path,
) -> dict[str, str]:
    """The BANCO_* and Dagster settings of the executor, the workers, the daemon and the webserver;
    `storage` holds BANCO_WAREHOUSE_URI and pyiceberg's PYICEBERG_CATALOG__BANCO__S3__* settings."""
    for name, url in (("the Dagster instance", instance_url), ("the catalog", catalog_url)):
        if not url.startswith("postgresql+psycopg2://"):
            raise ValueError(f"the URL of {name} must be postgresql+psycopg2://..., not {url!r}")
    return {
        "BANCO_EXECUTOR": "celery",
        "BANCO_BROKER_URL": broker,
        "DAGSTER_HOME": str(home),
        "BANCO_DAGSTER_PG_URL": instance_url,
        "BANCO_CATALOG_URI": catalog_url,
        **storage,
        "BANCO_CODE_SERVER_HOST": "127.0.0.1",
        "BANCO_CODE_SERVER_PORT": str(code_port),
        "BANCO_SHARDS": str(shards),
        "BANCO_LANDING": str(landing.resolve()),
    }
