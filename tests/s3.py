"""An S3 endpoint for tests: moto's standalone server on loopback, with a bucket per user."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator

from tests.dashboards.servers import free_port

#: pyiceberg's settings of the `banco` catalog for such an endpoint (keys moto accepts).
KEYS = {"S3__ACCESS_KEY_ID": "banco", "S3__SECRET_ACCESS_KEY": "banco-secret", "S3__REGION": "us-east-1"}


@contextlib.contextmanager
def s3_server() -> Iterator[str]:
    """Start moto's server on 127.0.0.1 and yield its endpoint URL; killed afterwards."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("moto's S3 server did not start") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        os.killpg(server.pid, 9)
        server.wait()


def bucket(endpoint: str, name: str | None = None) -> dict[str, str]:
    """Create a bucket (a new name unless given) on `endpoint`; the environment a warehouse on
    `s3://BUCKET/warehouse` needs (BANCO_WAREHOUSE_URI and pyiceberg's catalog settings)."""
    name = name or f"banco-{uuid.uuid4().hex[:12]}"
    urllib.request.urlopen(urllib.request.Request(f"{endpoint}/{name}", method="PUT"), timeout=5).close()
    env = {f"PYICEBERG_CATALOG__BANCO__{key}": value for key, value in KEYS.items()}
    env["PYICEBERG_CATALOG__BANCO__S3__ENDPOINT"] = endpoint
    env["BANCO_WAREHOUSE_URI"] = f"s3://{name}/warehouse"
    return env


@contextlib.contextmanager
def s3(name: str = "banco") -> Iterator[dict[str, str]]:
    """A server of its own with one bucket, for a test that needs the endpoint to itself."""
    with s3_server() as endpoint:
        yield bucket(endpoint, name)
