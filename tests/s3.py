"""An S3 endpoint of its own for a test: moto's standalone server on loopback, with one bucket."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

from tests.dashboards.servers import free_port

#: pyiceberg's settings of the `banco` catalog for such an endpoint (keys moto accepts).
KEYS = {"S3__ACCESS_KEY_ID": "banco", "S3__SECRET_ACCESS_KEY": "banco-secret", "S3__REGION": "us-east-1"}


@contextlib.contextmanager
def s3(bucket: str = "banco") -> Iterator[dict[str, str]]:
    """Start moto's server on 127.0.0.1 and create `bucket`; yields the environment a warehouse
    on `s3://BUCKET/warehouse` needs (BANCO_WAREHOUSE_URI and pyiceberg's catalog settings)."""
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
        request = urllib.request.Request(f"{endpoint}/{bucket}", method="PUT")
        urllib.request.urlopen(request, timeout=5).close()
        env = {f"PYICEBERG_CATALOG__BANCO__{key}": value for key, value in KEYS.items()}
        env["PYICEBERG_CATALOG__BANCO__S3__ENDPOINT"] = endpoint
        env["BANCO_WAREHOUSE_URI"] = f"s3://{bucket}/warehouse"
        yield env
    finally:
        os.killpg(server.pid, 9)
        server.wait()
