"""The cluster's own processes: Celery workers, the code server, the daemon and the webserver.

Each runs in a process group of its own with its own working folder, HOME and TMPDIR, so that on one
machine they share no more than they would on several: the network and what the environment names.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipelines.cluster.executor import DEFAULT_QUEUE, SERVING_QUEUE
from pipelines.services import Service, ServiceError
from pipelines.settings import PROJECT_ROOT

#: What an operator copies: the instance's dagster.yaml, the workspace and the workers' config module.
DEPLOY = PROJECT_ROOT / "deploy" / "cluster"
BIN = Path(sys.executable).parent
LOCATION = ["-m", "pipelines.definitions"]


@dataclass
class Process(Service):
    """A Service started in a working folder of its own."""

    cwd: Path | None = None

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.argv,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **self.env},
                cwd=self.cwd,
                start_new_session=True,
            )


def private(folder: Path) -> dict[str, str]:
    """A process's own HOME, TMPDIR and Dagster folder (compute logs) under `folder`."""
    for sub in ("tmp", "dagster"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {"HOME": str(folder), "TMPDIR": str(folder / "tmp"), "BANCO_DAGSTER_DIR": str(folder / "dagster")}


def worker(name: str, folder: Path, serving: bool, env: Mapping[str, str] = {}) -> Process:
    """A Celery worker taking one step at a time from the default queue (and the serving queue on the
    serving host), with the workers' config module (deploy/cluster) on its PYTHONPATH."""
    queues = [DEFAULT_QUEUE, SERVING_QUEUE] if serving else [DEFAULT_QUEUE]
    argv = [str(BIN / "celery"), "-A", "dagster_celery.app", "worker", "-Q", ",".join(queues),
            "-n", f"{name}@%h", "-c", "1", "-l", "info"]  # fmt: skip
    path = os.pathsep.join(filter(None, [str(DEPLOY), env.get("PYTHONPATH", os.environ.get("PYTHONPATH"))]))
    env = {**env, **private(folder), "PYTHONPATH": path}
    return Process(name, argv, "", folder / "worker.log", env=env, cwd=folder)


def code_server(port: int, folder: Path, env: Mapping[str, str] = {}) -> Process:
    """The gRPC server of the code location: the daemon and the webserver load the code from it,
    and it starts each run's orchestrating process (which hands the steps to Celery)."""
    argv = [str(BIN / "dagster"), "api", "grpc", *LOCATION, "-h", "127.0.0.1", "-p", str(port),
            "--location-name", "banco"]  # fmt: skip
    return Process("code-server", argv, "", folder / "code-server.log", env={**env, **private(folder)}, cwd=folder)


def daemon(folder: Path, env: Mapping[str, str] = {}) -> Process:
    """The daemon: the run queue, run monitoring (max run time), schedules and sensors."""
    argv = [str(BIN / "dagster-daemon"), "run", "-w", str(DEPLOY / "workspace.yaml")]
    return Process("dagster-daemon", argv, "", folder / "daemon.log", env={**env, **private(folder)}, cwd=folder)


def webserver(port: int, folder: Path, env: Mapping[str, str] = {}) -> Process:
    """The Dagster UI on 127.0.0.1:`port`."""
    argv = [str(BIN / "dagster-webserver"), "-w", str(DEPLOY / "workspace.yaml"), "-h", "127.0.0.1", "-p", str(port)]
    health = f"http://127.0.0.1:{port}/server_info"
    return Process("dagster-webserver", argv, health, folder / "webserver.log", env={**env, **private(folder)},
                   cwd=folder)  # fmt: skip


def wait_for_port(service: Service, port: int, timeout: float = 120.0) -> None:
    """Block until `service` accepts connections on 127.0.0.1:`port` (a gRPC or Redis server has no
    HTTP health check); raise if it dies or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if not service.running():
                raise ServiceError(f"{service.name} exited during start-up; see {service.log}") from None
            if time.monotonic() > deadline:
                raise ServiceError(f"{service.name} did not listen on port {port} within {timeout:.0f} s") from None
            time.sleep(0.3)


def ready(workers: Sequence[Service], timeout: float = 120.0) -> None:
    """Block until every worker's log says it is ready to take tasks."""
    deadline = time.monotonic() + timeout
    for service in workers:
        while not (service.log.exists() and " ready." in service.log.read_text(errors="replace")):
            if not service.running():
                raise ServiceError(f"{service.name} exited during start-up; see {service.log}")
            if time.monotonic() > deadline:
                raise ServiceError(f"{service.name} was not ready within {timeout:.0f} s; see {service.log}")
            time.sleep(0.3)
