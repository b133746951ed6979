"""meta.alerts: every fact each rule reported, through which channel, to whom, when, and how it went.

A DuckDB table in the writer's file (store.write: the single writer, under its lock), so it reaches
readers with the next serving snapshot and a rebuild, which replaces the marts, leaves it be. The log
channel is this record: its delivery is the row written here.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb

from models.alerts.message import Delivery, Message
from models.warehouse import reader
from models.warehouse.schema import ALERTS

COLUMNS = """
    sent_at TIMESTAMPTZ NOT NULL, rule VARCHAR NOT NULL, severity VARCHAR, fact VARCHAR NOT NULL,
    gaming_day DATE, snapshot VARCHAR, channel VARCHAR NOT NULL, recipients VARCHAR[], ok BOOLEAN NOT NULL,
    attempts INTEGER, detail VARCHAR, message VARCHAR
"""
#: A fact's last successful delivery per rule and channel: what a run must not send again.
LAST_SENT = f"SELECT rule, fact, channel, max(sent_at) FROM {ALERTS} WHERE ok GROUP BY ALL"

Sent = dict[tuple[str, str, str], dt.datetime]


class LogChannel:
    """The channel every rule has and `banco up` uses alone: the message is written to meta.alerts
    (by the evaluation, beside every other channel's delivery), so sending it cannot fail."""

    name = "log"

    def send(self, message: Message) -> Delivery:
        now = dt.datetime.now(dt.UTC)
        return Delivery(self.name, message.recipients, True, 1, f"written to {ALERTS}", now)


def ensure(con: duckdb.DuckDBPyConnection) -> None:
    """meta.alerts in the writer's file, made empty the first time."""
    con.execute(f"CREATE SCHEMA IF NOT EXISTS meta; CREATE TABLE IF NOT EXISTS {ALERTS} ({COLUMNS})")


def sent(con: duckdb.DuckDBPyConnection) -> Sent:
    """When each (rule, fact, channel) was last delivered, from the writer's connection."""
    return {(rule, fact, channel): at for rule, fact, channel, at in con.execute(LAST_SENT).fetchall()}


def sent_published(db: Path) -> Sent:
    """The same, as the serving snapshot has it (none before the first record is published)."""
    if not _published(db):
        return {}
    rows = reader.run(db, LAST_SENT, lambda relation: relation.fetchall(), where="banco alerts", user=False)
    return {(rule, fact, channel): at for rule, fact, channel, at in rows}


def write(
    con: duckdb.DuckDBPyConnection,
    message: Message,
    facts: list[str],
    delivery: Delivery,
    days: dict[str, dt.date] | None = None,
) -> None:
    """One row per fact of `message` for its `delivery`, each with its own gaming day when `days` has it."""
    row = [delivery.sent_at, message.rule, message.severity, None, message.gaming_day, message.snapshot,
           delivery.channel, list(delivery.recipients), delivery.ok, delivery.attempts, delivery.detail,
           message.text()]  # fmt: skip
    days = days or {}
    rows = [[*row[:3], fact, days.get(fact, message.gaming_day), *row[5:]] for fact in facts]
    con.executemany(f"INSERT INTO {ALERTS} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


#: Whether the snapshot holds meta.alerts: a warehouse gets it with its first alert run.
PUBLISHED = "SELECT count(*) AS tables FROM duckdb_tables() WHERE schema_name = 'meta' AND table_name = 'alerts'"
HISTORY = f"""
    SELECT sent_at, rule, channel, array_to_string(recipients, ', ') AS recipients, count(*) AS facts,
           CASE WHEN ok THEN 'sent' ELSE 'failed' END AS result, attempts, detail, max(gaming_day) AS gaming_day,
           snapshot
    FROM {ALERTS}
    GROUP BY sent_at, rule, channel, recipients, ok, attempts, detail, snapshot
    ORDER BY sent_at DESC, rule, channel LIMIT {{limit}}
"""


def history(db: Path, limit: int = 100) -> list[tuple]:
    """What was sent, newest first: one row per message and channel, from the serving snapshot."""
    if not _published(db):
        return []
    query = HISTORY.format(limit=int(limit))
    return reader.run(db, query, lambda relation: relation.fetchall(), where="banco alerts", user=False)


def _published(db: Path) -> bool:
    return reader.run(db, PUBLISHED, lambda relation: relation.fetchall()[0][0], where="banco alerts", user=False) > 0
