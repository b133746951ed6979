"""The Alerts page's reads: the rules of the alerts file, what each query rule would send now (evaluated
without sending, once per serving snapshot), and what was sent (meta.alerts)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import streamlit as st

from dashboards import query
from models.alerts import evaluate, record
from models.alerts.channels import every
from models.alerts.rules import Rule, read
from models.settings import Settings
from models.warehouse.schema import ALERTS

#: Messages the page reads at most, newest first.
LIMIT = 1000
BY_RULE = (
    "SELECT rule, count(DISTINCT (sent_at, channel)) AS messages, count(*) AS facts, "
    "count(*) FILTER (WHERE NOT ok) AS failed_facts, max(sent_at) AS last_sent_at "
    f"FROM {ALERTS} GROUP BY rule ORDER BY rule"
)


def rules(settings: Settings) -> list[Rule]:
    """The rules of the alerts file (BANCO_ALERTS); a RulesError of one line when it cannot be read."""
    return read(settings.alerts_file)


def channels(settings: Settings) -> tuple[str, ...]:
    """The names of the channels that would send: the log and those the environment configures."""
    return tuple(channel.name for channel in every(settings))


def now(settings: Settings) -> list[evaluate.Outcome]:
    """What each query rule would send now, nothing sent or written (`banco alerts test`)."""
    file = settings.alerts_file
    return _evaluated(str(query.warehouse()), query.version(), str(file), file.stat().st_mtime_ns)


@st.cache_data(max_entries=8, show_spinner="Evaluating the rules…")
def _evaluated(db: str, version: int, file: str, written: int) -> list[evaluate.Outcome]:
    """`version` (the serving snapshot's) and `written` (the file's mtime) are only the cache key: the
    rules run again once a publish or an edit changes what they would say. Outcomes, never a connection."""
    settings = Settings.from_env()
    return evaluate.evaluate(Path(db), read(Path(file)), every(settings), alerts_to=settings.alerts_to,
                             dashboard=settings.dashboard_url, send=False)  # fmt: skip


def sent() -> bool:
    """Whether the snapshot holds meta.alerts (its first alert run makes it)."""
    return query.frame(record.PUBLISHED)["tables"][0] > 0


def history() -> pl.DataFrame:
    """What was sent, newest first (at most LIMIT messages): one row per message and channel."""
    return query.frame(record.HISTORY.format(limit=LIMIT))


def by_rule() -> pl.DataFrame:
    """Per rule: messages, facts reported (each fact once per channel), failed ones, the last sending."""
    return query.frame(BY_RULE)
