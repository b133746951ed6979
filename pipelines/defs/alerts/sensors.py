"""Alerts in Dagster: the rules evaluated after each serving publish (a run of send_alerts), and a
failed run, or one a blocking check failed, announced through the rule that answers "run-failure"."""

import datetime as dt
from typing import TYPE_CHECKING

import dagster as dg

from pipelines.defs.alerts.jobs import alert_settings, send_alerts
from pipelines.defs.resources import Warehouse
from pipelines.defs.serving.assets import serving_snapshot

if TYPE_CHECKING:
    from models.alerts.message import Message
    from models.alerts.rules import Rule
    from models.settings import Settings

RANGE = ("dagster/asset_partition_range_start", "dagster/asset_partition_range_end")


@dg.asset_sensor(
    asset_key=serving_snapshot.key,
    job=send_alerts,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After each serving publish, evaluate the alert rules once (a run of send_alerts) and send "
    "their new facts through the configured channels.",
)
def alerts_after_publish(context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry):
    # one evaluation per publish: a run evaluates every rule, so sending in a run (not in this tick)
    # may wait for the writer's lock and the channels' retries without overrunning the tick
    return dg.RunRequest(run_key=f"alerts-after-{asset_event.run_id}")


@dg.run_failure_sensor(
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="A failed run of this code location (a step that raised, a blocking check that failed) "
    "alerted through the channels of the alert rule that answers run-failure, once per run.",
)
def alert_on_run_failure(context: dg.RunFailureSensorContext, warehouse: Warehouse) -> None:
    from models.alerts import evaluate
    from models.alerts.channels import every
    from models.alerts.rules import Rule, RulesError, on_event, read
    from models.warehouse import store

    settings = alert_settings()
    channels = every(settings)
    try:
        rules = on_event(read(settings.alerts_file), "run-failure")
    except RulesError as error:  # unreadable rules: nothing missed, so every channel to BANCO_ALERTS_TO
        context.log.error(f"{error}; the failed run goes through every channel configured")
        names = tuple(channel.name for channel in channels)
        rules = [Rule("run-failed", "critical", to=("shift_manager",), channels=names, event="run-failure")]
    if not rules:
        context.log.info(f"no rule of {settings.alerts_file} answers run-failure: nothing sent")
    run = context.dagster_run
    try:
        snapshot = evaluate.snapshot(warehouse.db_path)
    except store.WarehouseError:  # a run that failed before the first ingest
        snapshot = "none"
    for rule in rules:
        text = failure_message(context, rule, snapshot, settings)
        chosen = [channel for channel in channels if channel.name in rule.channels]
        for delivery in evaluate.announce(warehouse.db_path, text, {"run_id": run.run_id}, chosen):
            context.log.info(f"{rule.name}: run {run.run_id} of {run.job_name} via {delivery.channel} "
                             f"{delivery.result()}")  # fmt: skip


def failure_message(
    context: dg.RunFailureSensorContext, rule: "Rule", snapshot: str, settings: "Settings"
) -> "Message":
    """What a failed run says: its job, run id, failed steps and blocking checks by name, its partition,
    the snapshot, and links to the run in Dagster and to the rule's dashboard page; never an error's text,
    which may quote a row."""
    from models.alerts.evaluate import link
    from models.alerts.message import Message
    from models.alerts.rules import recipients

    run = context.dagster_run
    steps, checks = failures(context.instance, run.run_id)
    partition = run.tags.get("dagster/partition") or "…".join(
        dict.fromkeys(run.tags[tag] for tag in RANGE if tag in run.tags)
    )
    fact = {"job": run.job_name, "run_id": run.run_id}
    fact |= {"partition": partition} if partition else {}
    fact |= {"failed_checks": ", ".join(checks)} if checks else {}
    fact |= {"failed_steps": ", ".join(steps)} if steps else {}
    fact["dagster"] = f"{settings.dagster_url.rstrip('/')}/runs/{run.run_id}"
    failed = f"blocking check {', '.join(checks)} failed" if checks else "failed"
    return Message(
        rule=rule.name,
        severity=rule.severity,
        subject=f"[{rule.severity}] {rule.name}: {run.job_name} {failed}",
        facts=(fact,),
        gaming_day=_day(partition.split("…")[-1]) if partition else None,
        snapshot=snapshot,
        link=link(rule, settings.dashboard_url),
        recipients=recipients(rule, settings.alerts_to),
    )


def failures(instance: dg.DagsterInstance, run_id: str) -> tuple[list[str], list[str]]:
    """The steps that failed in the run and the blocking checks that failed (asset/check), by name."""
    kinds = {dg.DagsterEventType.STEP_FAILURE, dg.DagsterEventType.ASSET_CHECK_EVALUATION}
    steps, checks = [], []
    for entry in instance.all_logs(run_id, of_type=kinds):
        event = entry.dagster_event
        if event.event_type == dg.DagsterEventType.STEP_FAILURE:
            steps.append(event.step_key)
            continue
        evaluation = event.asset_check_evaluation_data
        if not evaluation.passed and evaluation.blocking:
            checks.append(f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}")
    return list(dict.fromkeys(steps)), list(dict.fromkeys(checks))


def _day(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:  # a partition that is not a gaming day (a month's report: 2026-11)
        return None
