"""A Redis server of its own for a test: Debian's redis-server on loopback, in a temporary folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.dashboards.servers import free_port


def _answers(port: int) -> bool:
    """Whether a Redis server on 127.0.0.1:`port` answers PING."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def redis() -> Iterator[str]:
    """Start redis-server on 127.0.0.1 on a free port, persisting nothing, and yield its URL
    (`redis://127.0.0.1:PORT/0`); stopped and its folder removed afterwards."""
    assert shutil.which("redis-server"), "redis-server is not on PATH (python3 dev.py test installs it)"
    folder = Path(tempfile.mkdtemp(prefix="banco-redis-"))
    port = free_port()
    argv = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder),
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", str(folder / "log")]  # fmt: skip
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not _answers(port):
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"redis-server did not start: see {folder / 'log'}")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)
