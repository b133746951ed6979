"""The job the publish sensor launches: every alert rule evaluated once, its new facts sent and recorded."""

import dagster as dg

from models.settings import Settings
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING

#: A run that overruns this is cancelled: a wait for a build's writer lock (10 minutes at most) and each
#: channel's retries (about 35 s a message) fit well inside it.
MAX_RUNTIME_SECONDS = 3600


def alert_settings() -> Settings:
    """The alerts' settings, read from the environment of the process that sends: the channels'
    credentials never sit in a resource's configuration, which the Dagster UI shows."""
    return Settings.from_env()


@dg.op(
    pool="duckdb",  # it writes meta.alerts through the warehouse's single writer
    tags=SERVING,
    description="Evaluate every alert rule of BANCO_ALERTS on the serving snapshot and send its new facts "
    "through the configured channels; one log line per rule. A channel that is down fails nothing: its "
    "delivery is recorded in meta.alerts and tried again next time.",
)
def evaluate_alerts(context: dg.OpExecutionContext, warehouse: Warehouse) -> None:
    from models.alerts import evaluate
    from models.alerts.channels import every
    from models.alerts.rules import RulesError, read

    settings = alert_settings()
    try:
        rules = read(settings.alerts_file)
    except RulesError as error:
        raise dg.Failure(description=str(error)) from None
    outcomes = evaluate.evaluate(warehouse.db_path, rules, every(settings), alerts_to=settings.alerts_to,
                                 dashboard=settings.dashboard_url)  # fmt: skip
    for outcome in outcomes:
        context.log.info(outcome.line())


@dg.job(
    tags={"dagster/max_runtime": str(MAX_RUNTIME_SECONDS)},
    description="Evaluate the alert rules once and send what is new (the sensor alerts_after_publish "
    "launches it after each serving publish; docs/alerts.md).",
)
def send_alerts() -> None:
    evaluate_alerts()
