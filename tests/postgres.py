"""A PostgreSQL server for tests: a fresh cluster in a temporary folder, on loopback, and databases on it."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from tests.dashboards.servers import free_port


def _as_server_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """Start a cluster in a folder of its own on 127.0.0.1 and yield its SQLAlchemy URL (user
    `banco`, no password, database `postgres`); stopped and removed afterwards. The folder is
    directly under the system's temporary folder: the server's user must reach it."""
    assert shutil.which("initdb") and shutil.which("pg_ctl"), "PostgreSQL's initdb and pg_ctl are not on PATH"
    folder = Path(tempfile.mkdtemp(prefix="banco-postgres-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    subprocess.run(_as_server_user(["initdb", "-D", str(data), "-A", "trust", "-U", "banco"]), check=True,
                   capture_output=True)  # fmt: skip
    options = f"-h 127.0.0.1 -p {port} -k {folder}"
    start = ["pg_ctl", "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start"]
    subprocess.run(_as_server_user(start), check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg2://banco@127.0.0.1:{port}/postgres"
    finally:
        stop = ["pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(_as_server_user(stop), check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def database(server_url: str, name: str | None = None) -> str:
    """Create a database (a new name unless given) on the server at `server_url`; its URL."""
    from sqlalchemy import create_engine, make_url, text

    name = name or f"test_{uuid.uuid4().hex[:12]}"
    engine = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)
