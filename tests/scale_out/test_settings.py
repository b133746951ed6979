"""The cluster's settings without the cluster: the executor from the environment, a worker's config
module, the instance's dagster.yaml as Dagster reads it, and `banco cluster up`'s refusals."""

from __future__ import annotations

import argparse
import runpy
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
import yaml
from dagster._core.instance.config import dagster_instance_config

from pipelines.cluster.environment import dagster_home
from pipelines.cluster.executor import DEFAULT_VISIBILITY_TIMEOUT, CelerySettings, executor_from_env
from pipelines.cluster.processes import DEPLOY
from pipelines.commands import cluster

BROKER = "redis://127.0.0.1:6379/0"


def test_the_default_executor_is_dagsters_and_celery_is_asked_for():
    assert executor_from_env({}) is dg.multi_or_in_process_executor
    assert executor_from_env({"BANCO_EXECUTOR": "multiprocess"}) is dg.multi_or_in_process_executor
    celery = executor_from_env({"BANCO_EXECUTOR": "celery", "BANCO_BROKER_URL": BROKER})
    assert celery.name == "celery" and celery is not dg.multi_or_in_process_executor


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"BANCO_EXECUTOR": "kubernetes"}, "BANCO_EXECUTOR must be 'multiprocess' or 'celery'"),
        ({"BANCO_EXECUTOR": "celery"}, "BANCO_BROKER_URL must be a Redis URL"),
        ({"BANCO_EXECUTOR": "celery", "BANCO_BROKER_URL": "amqp://127.0.0.1//"}, "BANCO_BROKER_URL must be"),
        ({"BANCO_EXECUTOR": "celery", "BANCO_BROKER_URL": BROKER, "BANCO_CELERY_BACKEND": "db+sqlite://"},
         "BANCO_CELERY_BACKEND must be"),
        ({"BANCO_EXECUTOR": "celery", "BANCO_BROKER_URL": BROKER, "BANCO_CELERY_VISIBILITY_TIMEOUT": "an hour"},
         "BANCO_CELERY_VISIBILITY_TIMEOUT must be a whole number"),
    ],
)  # fmt: skip
def test_bad_settings_are_one_line_errors(env, message):
    with pytest.raises(ValueError, match=message) as raised:
        executor_from_env(env)
    assert "\n" not in str(raised.value)


def test_a_dead_workers_task_comes_back_and_the_backend_is_the_broker():
    settings = CelerySettings.from_env({"BANCO_BROKER_URL": BROKER, "BANCO_CELERY_VISIBILITY_TIMEOUT": "900"})
    config = settings.app_config()
    assert (config["task_acks_late"], config["task_reject_on_worker_lost"], config["worker_prefetch_multiplier"]) == (
        True, True, 1)  # fmt: skip
    assert config["broker_transport_options"]["visibility_timeout"] == 900
    assert settings.backend == BROKER


def test_a_workers_config_module_reads_the_executors_settings(monkeypatch):
    monkeypatch.setenv("BANCO_BROKER_URL", BROKER)
    module = runpy.run_path(str(DEPLOY / "dagster_celery_config.py"))
    assert module["broker_url"] == module["result_backend"] == BROKER
    assert module["task_acks_late"] and module["task_reject_on_worker_lost"]
    assert module["broker_transport_options"]["visibility_timeout"] == DEFAULT_VISIBILITY_TIMEOUT


def test_the_cluster_instance_loads_as_dagster_reads_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BANCO_DAGSTER_PG_URL", "postgresql+psycopg2://banco@127.0.0.1:1/dagster")
    monkeypatch.setenv("BANCO_DAGSTER_DIR", str(tmp_path / "local"))
    home = dagster_home(tmp_path / "home")
    config, _ = dagster_instance_config(str(home))  # the storage in PostgreSQL, as the schema wants it
    assert config["storage"]["postgres"]["postgres_url"] == {"env": "BANCO_DAGSTER_PG_URL"}
    # everything else instantiated, on a SQLite storage that needs no server
    local = tmp_path / "local-home"
    local.mkdir()
    config = yaml.safe_load((home / "dagster.yaml").read_text())
    config["storage"] = {"sqlite": {"base_dir": str(tmp_path / "storage")}}
    (local / "dagster.yaml").write_text(yaml.safe_dump(config))
    instance = dg.DagsterInstance.from_config(str(local))
    try:
        assert type(instance.run_coordinator).__name__ == "QueuedRunCoordinator"
        assert instance.run_monitoring_enabled
        assert instance.run_monitoring_max_runtime_seconds > DEFAULT_VISIBILITY_TIMEOUT
        assert instance.get_concurrency_config().pool_config.default_pool_limit == 1
        assert type(instance.compute_log_manager).__name__ == "LocalComputeLogManager"
    finally:
        instance.dispose()


def banco(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipelines.cli", *args], capture_output=True, text=True)


@pytest.mark.slow
def test_cluster_up_refuses_bad_input_in_one_line_before_starting_anything(tmp_path):
    shards = banco("cluster", "up", "--folder", str(tmp_path / "cluster"), "--shards", "0")
    assert (shards.returncode, shards.stderr) == (2, "banco: error: BANCO_SHARDS must be 1 or more, not 0\n")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    folder = banco("cluster", "up", "--folder", str(tmp_path / "mine"))
    assert folder.returncode == 2 and folder.stderr.count("\n") == 1 and "not a cluster's folder" in folder.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_banco_up_cluster_takes_ups_options_and_cluster_ups_defaults_for_the_rest():
    given = argparse.Namespace(landing=Path("in"), demo_days=3, dagster_port=3999, dashboard_port=8600, cluster=True)
    options = cluster.up_options(given)
    assert (options.landing, options.demo_days, options.dagster_port) == (Path("in"), 3, 3999)
    assert (options.folder, options.postgres_port) == (Path(cluster.DEFAULT_FOLDER), cluster.PORTS["postgres"])
    assert not hasattr(options, "dashboard_port")
