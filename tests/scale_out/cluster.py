"""A Celery cluster of its own for a test: Redis, PostgreSQL and moto's S3 on 127.0.0.1, the code server,
two Celery workers and the Dagster daemon, started as `banco cluster up` starts them and stopped after.

The workers are separate processes, each with its own working folder, HOME, TMPDIR and warehouse file
(only w1, the serving host, holds the serving DuckDB file). They are not in network namespaces of their
own: a namespace would cut them off from the servers, which listen on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import psycopg2
from dagster._cli.job import job_launch_command
from dagster._cli.schedule import schedule_stop_command
from dagster._cli.sensor import sensor_stop_command
from sqlalchemy.engine import make_url

from pipelines.cluster import processes
from pipelines.cluster.environment import dagster_home, environment
from pipelines.services import Service, stop_all
from tests.dashboards.servers import free_port
from tests.postgres import postgres
from tests.redis import redis
from tests.s3 import s3

#: What runs on its own in the daemon is stopped: the test launches every run itself.
AUTOMATIONS = [(sensor_stop_command, "landing_sensor"), (sensor_stop_command, "marts_after_ingest"),
               (schedule_stop_command, "nightly_marts")]  # fmt: skip
WORKSPACE = str(processes.DEPLOY / "workspace.yaml")
#: A run that outlives this is cancelled by the daemon's run monitoring (a hang fails the test, it never hangs it).
MAX_RUNTIME_SECONDS = 240
WORKER = "Celery worker"


@dataclass
class Cluster:
    env: dict[str, str]
    instance: dg.DagsterInstance
    workers: dict[str, Service]
    serving_db: Path
    started: list[Service]

    def launch(self, job: str, tags: dict[str, str] | None = None) -> str:
        """Submit a run of `job` to the instance's queue, as the UI or a sensor does; its run id. The
        command is `dagster job launch`, run in this process (a new one would take seconds to start)."""
        run_id = str(uuid.uuid4())
        tags = {"dagster/max_runtime": str(MAX_RUNTIME_SECONDS), **(tags or {})}
        job_launch_command.main(["-w", WORKSPACE, "-j", job, "--run-id", run_id, "--tags", json.dumps(tags)],
                                standalone_mode=False)  # fmt: skip
        return run_id

    def finished(self, run_id: str) -> dg.DagsterRun:
        """The run once it ended; the daemon cancels it past MAX_RUNTIME_SECONDS, so this returns."""
        deadline = time.monotonic() + MAX_RUNTIME_SECONDS + 120  # the run's own limit, and the daemon's poll
        while True:
            run = self.instance.get_run_by_id(run_id)
            if run is not None and run.is_finished:
                return run
            assert time.monotonic() < deadline, f"run {run_id} still {run and run.status} past its max run time"
            time.sleep(1)

    def steps_by_worker(self, run_id: str) -> list[tuple[str, str]]:
        """(step key, worker name) for every time a worker started a step of the run, in order."""
        taken = []
        for record in self.instance.all_logs(run_id, of_type=dg.DagsterEventType.ENGINE_EVENT):
            metadata = record.dagster_event.engine_event_data.metadata
            if WORKER in metadata:
                taken.append((record.dagster_event.step_key, metadata[WORKER].value.split("@")[0]))
        return taken

    def kill(self, name: str) -> None:
        """SIGKILL a worker's process group: the worker and the step it runs die at once, as with its machine."""
        os.killpg(self.workers[name].process.pid, signal.SIGKILL)
        self.workers[name].process.wait()

    def replace(self, name: str) -> None:
        """Start a new worker in a dead one's place (its machine back), with the same folder and settings."""
        dead = self.workers[name]
        self.workers[name] = dataclasses.replace(dead, process=None, log=dead.log.with_name("worker.replaced.log"))
        self.started.append(self.workers[name])
        self.workers[name].start()
        processes.ready([self.workers[name]])


def _databases(url: str) -> dict[str, str]:
    """A database for the Dagster instance and one for the Iceberg catalog on the test's server."""
    parsed = make_url(url)
    connection = psycopg2.connect(host=parsed.host, port=parsed.port, user=parsed.username, dbname=parsed.database)
    connection.autocommit = True
    with connection.cursor() as cursor:
        for name in ("dagster", "catalog"):
            cursor.execute(f"CREATE DATABASE {name}")
    connection.close()
    return {name: parsed.set(database=name).render_as_string(hide_password=False) for name in ("dagster", "catalog")}


def _stop_automations() -> None:
    """`dagster sensor stop` and `dagster schedule stop`, in this process."""
    for command, name in AUTOMATIONS:
        command.main(["-w", WORKSPACE, name], standalone_mode=False)


@contextlib.contextmanager
def cluster(folder: Path, landing: Path, shards: int, monkeypatch) -> Iterator[Cluster]:
    """Start the servers and the cluster's processes; the test's own process reads the same instance,
    catalog and bucket (its environment is the cluster's)."""
    with redis() as broker, postgres() as server, s3() as storage:
        urls = _databases(server)
        env = environment(broker=broker, instance_url=urls["dagster"], catalog_url=urls["catalog"], storage=storage,
                          home=dagster_home(folder / "dagster_home"), code_port=free_port(), shards=shards,
                          landing=landing)  # fmt: skip
        (folder / "test").mkdir(parents=True)
        env = {**env, "BANCO_DAGSTER_DIR": str(folder / "test")}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        env = {**os.environ, **env}
        serving_db = folder / "serving" / "banco.duckdb"
        serving = {**env, "BANCO_DB": str(serving_db)}
        port = int(env["BANCO_CODE_SERVER_PORT"])
        started: list[Service] = []
        instance = None
        try:
            code = processes.code_server(port, folder / "code-server", serving)
            w1 = processes.worker("w1", folder / "w1", serving=True, env=serving)
            own = {**env, "BANCO_DB": str(folder / "w2" / "banco.duckdb")}  # what w2 would write, were it to
            w2 = processes.worker("w2", folder / "w2", serving=False, env=own)
            for service in (code, w1, w2):
                started.append(service)
                service.start()
            processes.wait_for_port(code, port)
            _stop_automations()
            daemon = processes.daemon(folder / "daemon", env)
            started.append(daemon)
            daemon.start()
            processes.ready([w1, w2])
            instance = dg.DagsterInstance.from_config(env["DAGSTER_HOME"])
            yield Cluster(env, instance, {"w1": w1, "w2": w2}, serving_db, started)
        finally:
            if instance is not None:
                instance.dispose()
            stop_all(started)
