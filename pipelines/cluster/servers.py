"""The servers a cluster shares, on one machine for trying it: PostgreSQL (the Dagster instance and the
Iceberg catalog), Redis (Celery's broker) and moto's S3 server (the warehouse's files), each on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from pipelines.cluster.processes import Process
from pipelines.services import ServiceError

#: The databases of the one PostgreSQL server: the Dagster instance's, and the Iceberg catalog's.
DATABASES = ("dagster", "catalog")
USER = "banco"


def _as_server_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def postgres(folder: Path, port: int) -> Process:
    """A new PostgreSQL cluster in `folder` (initdb, user `banco`, no password, loopback only) and its
    server in the foreground."""
    for tool in ("initdb", "postgres"):
        if not shutil.which(tool):
            raise ServiceError(f"PostgreSQL's {tool} is not on PATH (Debian: apt-get install postgresql)")
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    init = subprocess.run(_as_server_user(["initdb", "-D", str(data), "-A", "trust", "-U", USER]),
                          capture_output=True, text=True)  # fmt: skip
    if init.returncode != 0:
        last = (init.stderr.strip().splitlines() or ["no output"])[-1]
        raise ServiceError(f"initdb in {data} failed (the server's user must reach the folder): {last}")
    argv = _as_server_user(["postgres", "-D", str(data), "-h", "127.0.0.1", "-p", str(port), "-k", str(folder)])
    return Process("postgres", argv, "", folder / "server.log", cwd=folder)


def create_databases(port: int, timeout: float = 60.0) -> dict[str, str]:
    """Create DATABASES once the server takes connections; their SQLAlchemy URLs by name."""
    import psycopg2

    deadline = time.monotonic() + timeout
    while True:
        try:
            connection = psycopg2.connect(host="127.0.0.1", port=port, user=USER, dbname="postgres")
            break
        except psycopg2.OperationalError as error:  # still starting up
            if time.monotonic() > deadline:
                raise ServiceError(f"PostgreSQL on port {port} did not take connections: {error}") from None
            time.sleep(0.3)
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            for name in DATABASES:
                cursor.execute(f"CREATE DATABASE {name}")
    finally:
        connection.close()
    return {name: f"postgresql+psycopg2://{USER}@127.0.0.1:{port}/{name}" for name in DATABASES}


def redis(folder: Path, port: int) -> Process:
    """Debian's redis-server, persisting nothing (the broker's queue lives as long as the cluster)."""
    if not shutil.which("redis-server"):
        raise ServiceError("redis-server is not on PATH (Debian: apt-get install redis-server)")
    folder.mkdir(parents=True, exist_ok=True)
    argv = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
            "--save", "", "--appendonly", "no", "--daemonize", "no"]  # fmt: skip
    return Process("redis", argv, "", folder / "redis.log", cwd=folder)


def s3(folder: Path, port: int) -> Process:
    """moto's standalone S3 server (in memory: its objects go with it)."""
    try:
        import moto.server  # noqa: F401
    except ImportError:
        raise ServiceError("moto's S3 server is not installed: pip install 'moto[server]'") from None
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    return Process("s3", argv, f"http://127.0.0.1:{port}/moto-api/", folder / "s3.log", cwd=folder)


def create_bucket(port: int, bucket: str) -> None:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/{bucket}", method="PUT")
    urllib.request.urlopen(request, timeout=10).close()
