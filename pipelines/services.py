"""Start the long-running servers `banco up` leaves behind, and stop every one of them on the way out."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path


class ServiceError(Exception):
    """A server would not start or died; the message says which and where its log is."""


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port no one listens on now, chosen by the system."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@dataclass
class Service:
    """One server process, in its own process group so that it and its children stop together."""

    name: str
    argv: list[str]
    health_url: str
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen | None = None

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.argv, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env}, start_new_session=True
            )

    def healthy(self) -> bool:
        if self.health_url.startswith("tcp://"):  # a server that speaks no HTTP: listening is ready
            host, port = self.health_url.removeprefix("tcp://").rsplit(":", 1)
            try:
                socket.create_connection((host, int(port)), timeout=2).close()
                return True
            except OSError:
                return False
        try:
            with urllib.request.urlopen(self.health_url, timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal_group(self, sig: int) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)


def wait_until_healthy(services: list[Service], timeout: float = 180.0) -> None:
    """Block until every service with a health URL answers; raise if one dies or time runs out."""
    deadline = time.monotonic() + timeout
    waiting = [service for service in services if service.health_url]
    while waiting:
        for service in list(waiting):
            if not service.running():
                raise ServiceError(f"{service.name} exited during start-up; see {service.log}")
            if service.healthy():
                waiting.remove(service)
        if waiting and time.monotonic() > deadline:
            raise ServiceError(f"{', '.join(s.name for s in waiting)} did not answer within {timeout:.0f} s")
        time.sleep(0.5)


@contextlib.contextmanager
def supervised(services: list[Service], what: str) -> Iterator[None]:
    """Start `services` in the block; after it, serve until Ctrl-C (or until one stops: an error),
    then stop every one of them, started or not."""
    try:
        yield
        while all(service.running() for service in services):
            time.sleep(1)
        dead = next(service for service in services if not service.running())
        raise ServiceError(f"{dead.name} stopped unexpectedly; see {dead.log}")
    except KeyboardInterrupt:
        print(f"\nstopping {what}", flush=True)
    finally:
        stop_all(services)


def stop_all(services: list[Service], grace: float = 10.0) -> None:
    """SIGTERM to every group; once the leaders exit (or after `grace` seconds), SIGKILL to what is left,
    since some servers ignore SIGTERM or leave children behind."""
    for service in services:
        service.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for service in services:
        if service.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                service.process.wait(timeout=max(0.0, deadline - time.monotonic()))
    for service in services:
        service.signal_group(signal.SIGKILL)
        if service.process is not None:
            service.process.wait()
