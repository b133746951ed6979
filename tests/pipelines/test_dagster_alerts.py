"""The alerts in Dagster on real parts: a warehouse of its own, a real instance, real runs, and a real
SMTP server on loopback. The publish sensor launches one evaluation per publish; a failed run is
emailed once, naming its failed check; a mail server that refuses fails no run."""

import json
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from dashboards.browser import free_port
from pipelines.definitions import defs
from pipelines.defs.alerts.sensors import alert_on_run_failure, alerts_after_publish
from pipelines.defs.resources import Warehouse
from pipelines.defs.serving.assets import serving_snapshot
from tests.planted import planted_warehouse

ROOT = Path(__file__).resolve().parents[2]
FLAGS = "SELECT player_id, gaming_day, rule FROM marts.surveillance_flags"
SHIFTS = "SELECT table_id, shift_id, gaming_day FROM marts.table_shift WHERE status = 'unreconciled'"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Warehouse:
    """A built warehouse written by these tests alone, with planted advantage players and count faults."""
    folder = tmp_path_factory.mktemp("dagster-alerts")
    planted_warehouse(folder)
    return Warehouse(db=str(folder / "banco.duckdb"), landing=str(folder / "landing"))


@pytest.fixture(scope="module")
def instance():
    with dg.instance_for_test() as instance:
        yield instance


@pytest.fixture
def mail(smtp_server, monkeypatch):
    """A real SMTP server on loopback, and the environment that points the alerts at it."""
    inbox, port = smtp_server()
    monkeypatch.setenv("BANCO_SMTP_URL", f"smtp://127.0.0.1:{port}")
    monkeypatch.setenv("BANCO_SMTP_FROM", "banco@casino.test")
    monkeypatch.setenv("BANCO_ALERTS_TO", "floor@casino.test")
    monkeypatch.setenv("BANCO_ALERTS", str(ROOT / "alerts.toml"))
    monkeypatch.delenv("BANCO_WEBHOOK_URL", raising=False)
    return inbox


def rows(warehouse: Warehouse, sql: str) -> list[tuple]:
    """What the writer's file holds now (meta.alerts reaches the serving snapshot with the next publish)."""
    with duckdb.connect(str(warehouse.db_path), read_only=True) as con:
        return con.sql(sql).fetchall()


def publish(warehouse: Warehouse, instance: dg.DagsterInstance) -> None:
    assert dg.materialize([serving_snapshot], resources={"warehouse": warehouse}, instance=instance).success


def tick(instance: dg.DagsterInstance, cursor: str | None) -> tuple[list[dg.RunRequest], str | None]:
    context = dg.build_sensor_context(instance=instance, cursor=cursor, definitions=defs)
    data = alerts_after_publish.evaluate_tick(context)
    return data.run_requests, data.cursor


def send(request: dg.RunRequest, warehouse: Warehouse, instance: dg.DagsterInstance, **kwargs):
    """A run of send_alerts as the sensor requested it, executed for real on `instance`."""
    job = defs.resolve_job_def("send_alerts")
    return job.execute_in_process(instance=instance, resources={"warehouse": warehouse}, tags=request.tags, **kwargs)


def test_each_publish_evaluates_once_and_emails_each_planted_fact_once(warehouse, instance, mail):
    publish(warehouse, instance)
    (request,), cursor = tick(instance, None)
    assert tick(instance, cursor)[0] == []  # the same publish again: no second run
    assert send(request, warehouse, instance).success
    subjects = [message["Subject"] for message in mail.mails()]
    assert any("surveillance-flag" in subject for subject in subjects)
    assert any("shift-unreconciled" in subject for subject in subjects)
    assert all(message["To"] == "floor@casino.test" for message in mail.mails())
    emailed = rows(warehouse, "SELECT rule, fact FROM meta.alerts WHERE channel = 'email' AND ok")
    assert len(emailed) == len(set(emailed))
    flags = {json.loads(fact)["player_id"] for rule, fact in emailed if rule == "surveillance-flag"}
    assert flags == {row[0] for row in rows(warehouse, FLAGS)} != set()
    shifts = {tuple(json.loads(fact).values())[:2] for rule, fact in emailed if rule == "shift-unreconciled"}
    assert shifts == {row[:2] for row in rows(warehouse, SHIFTS)} != set()
    body = next(m for m in mail.mails() if "surveillance-flag" in m["Subject"]).get_content()
    assert "snapshot" in body and "player_id PL" in body and "/surveillance" in body

    publish(warehouse, instance)  # a second publish: a second run, which finds nothing new to send
    (again,), _ = tick(instance, cursor)
    assert again.run_key != request.run_key
    sent = len(mail.mails())
    result = send(again, warehouse, instance)
    assert result.success and len(mail.mails()) == sent
    assert rows(warehouse, "SELECT count(*) FROM meta.alerts WHERE channel = 'email'")[0][0] == len(emailed)
    logged = [entry.user_message for entry in instance.all_logs(result.run_id)]
    assert any(line.startswith("surveillance-flag: ") and "nothing new" in line for line in logged)  # a line a rule


def test_a_refused_mail_server_fails_no_run_and_is_recorded(warehouse, instance, mail, monkeypatch, tmp_path):
    rules = tmp_path / "alerts.toml"
    rules.write_text(f'[[rule]]\nname = "refused"\nquery = "{FLAGS}"\nkey = ["player_id", "gaming_day", "rule"]\n'
                     'channels = ["log", "email"]\nto = ["surveillance"]\n')  # fmt: skip
    monkeypatch.setenv("BANCO_ALERTS", str(rules))
    monkeypatch.setenv("BANCO_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")  # nothing listens there
    result = send(dg.RunRequest(), warehouse, instance)
    assert result.success
    recorded = rows(warehouse, "SELECT channel, ok, max(attempts) FROM meta.alerts WHERE rule = 'refused' GROUP BY ALL")
    assert sorted(recorded) == [("email", False, 3), ("log", True, 1)]
    assert not mail.mails()


def failure_context(instance, failed, warehouse: Warehouse):
    """What the run-failure sensor is given for the failed run `failed`, as the daemon gives it."""
    return dg.build_run_status_sensor_context(
        sensor_name="alert_on_run_failure",
        dagster_instance=instance,
        dagster_run=failed.dagster_run,
        dagster_event=failed.get_run_failure_event(),
        resources={"warehouse": warehouse},
    ).for_run_failure()


def test_a_failed_blocking_check_is_emailed_once_naming_it(instance, mail, tmp_path):
    warehouse = Warehouse(db=str(tmp_path / "warehouse" / "banco.duckdb"), landing=str(tmp_path / "landing"))
    warehouse.landing_path.mkdir(parents=True)
    lines = ["table_id,shoe_id,round_no,started_at,player_cards,banker_cards"]
    for n in range(1, 21):  # every other coup: player 2 3 stands on 5 against banker 4 3 = 7
        player, banker = ("2H 3S", "4D 3C") if n % 2 else ("9H KS", "8D KC")
        lines.append(f"T1,S1,{n},2026-10-01T12:{n:02d}:00Z,{player},{banker}")
    (warehouse.landing_path / "rounds_bad.csv").write_text("\n".join(lines) + "\n")
    job = defs.resolve_job_def("ingest_landing")
    failed = job.execute_in_process(instance=instance, resources={"warehouse": warehouse}, raise_on_error=False)
    assert not failed.success
    context = failure_context(instance, failed, warehouse)
    alert_on_run_failure(context)
    alert_on_run_failure(context)  # the sensor ticks again over the same run: nothing sent twice
    (message,) = mail.mails()
    run_id = failed.dagster_run.run_id
    assert "run-failed" in message["Subject"] and "tableau_violation_rate" in message["Subject"]
    body = message.get_content()
    assert run_id in body and "core/rounds:tableau_violation_rate" in body and "ingest_landing" in body
    assert f"http://127.0.0.1:3000/runs/{run_id}" in body and "snapshot" in body
    recorded = rows(warehouse, "SELECT channel, ok, fact FROM meta.alerts WHERE rule = 'run-failed'")
    assert sorted(recorded) == [(c, True, json.dumps({"run_id": run_id})) for c in ("email", "log")]


def test_unreadable_rules_and_no_warehouse_still_send_a_failed_run(instance, mail, tmp_path, monkeypatch):
    (tmp_path / "alerts.toml").write_text("[[rule]\n")
    monkeypatch.setenv("BANCO_ALERTS", str(tmp_path / "alerts.toml"))
    warehouse = Warehouse(db=str(tmp_path / "warehouse" / "banco.duckdb"), landing=str(tmp_path / "landing"))
    failed = send(dg.RunRequest(), warehouse, instance, raise_on_error=False)
    assert not failed.success  # the rules file is not TOML: the run fails with its one line
    context = failure_context(instance, failed, warehouse)
    alert_on_run_failure(context)
    (message,) = mail.mails()
    assert message["Subject"] == "[critical] run-failed: send_alerts failed" and message["To"] == "floor@casino.test"
    body = message.get_content()
    assert "snapshot none" in body and "failed_steps evaluate_alerts" in body
    assert sorted(rows(warehouse, "SELECT channel, ok FROM meta.alerts")) == [("email", True), ("log", True)]
