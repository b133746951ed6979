"""One evaluation of the alert rules: each rule's query over the serving snapshot, its new facts made
into a message, sent through the rule's channels, and every delivery recorded in meta.alerts.

A fact is the rule's key columns of one row; it is new on a channel until that channel has delivered
it (a failed delivery is tried again next run), and again once the rule's cooldown has passed. The key
never holds the snapshot, so a rebuild, which publishes a new one, reports nothing again.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models.alerts import record
from models.alerts.message import Channel, Delivery, Message
from models.alerts.rules import Rule, recipients
from models.warehouse import reader, store
from models.warehouse.schema import INGEST_LOG, SNAPSHOTS


@dataclass
class Outcome:
    """What one rule did: refused (one line why), or its facts now and the messages each channel took."""

    rule: Rule
    refused: str | None = None
    facts: int = 0
    messages: list[tuple[Message, Delivery | None]] = field(default_factory=list)  # None: not sent (a test)
    skipped: tuple[str, ...] = ()  # channels the rule names that are not configured

    def line(self) -> str:
        """One line: refused and why, or its facts and what each channel did with the new ones (the
        command's output and the Dagster job's log)."""
        name = self.rule.name
        if self.refused is not None:
            return f"{name}: refused: {self.refused}"
        said = []
        for message, delivery in self.messages:
            new = f"{len(message.facts)} new"
            if delivery is None:
                said.append(f"{new} would go to {', '.join(c for c in self.rule.channels if c not in self.skipped)}")
                break
            said.append(f"{new} via {delivery.channel} {delivery.result()}")
        said = said or ["nothing new"]
        skipped = f" ({', '.join(self.skipped)} not configured)" if self.skipped else ""
        return f"{name}: {self.facts} fact(s), {'; '.join(said)}{skipped}"


@dataclass(frozen=True)
class Found:
    """A rule's facts now: each as its key columns (in JSON, the record's key), and each fact's latest
    gaming day when the query gives one."""

    facts: dict[str, dict[str, Any]]
    days: dict[str, dt.date] = field(default_factory=dict)

    def gaming_day(self, facts: Sequence[str]) -> dt.date | None:
        """The latest gaming day of `facts`: the day a message about them reports."""
        return max((self.days[fact] for fact in facts if fact in self.days), default=None)


def snapshot(db: Path) -> str:
    """The serving snapshot's commit: the Iceberg snapshot of the warehouse's log (its commit's)."""
    query = f"SELECT snapshot_id FROM {SNAPSHOTS} WHERE table_name = '{INGEST_LOG}'"
    rows = reader.run(db, query, lambda relation: relation.fetchall(), where="banco alerts", user=False)
    return str(rows[0][0]) if rows else "none"


def find(db: Path, rule: Rule) -> Found:
    """The facts `rule` finds now, through the locked reader `banco sql` uses (a write is refused there);
    a QueryError of one line when its query fails or lacks a key column."""
    names, rows = reader.run(db, rule.query, lambda rel: (rel.columns, rel.fetchall()), where=f"alert {rule.name}")
    missing = [column for column in rule.key if column not in names]
    if missing:
        raise reader.QueryError(f"unknown key column {', '.join(missing)}: the query gives {', '.join(names)}")
    at = [names.index(column) for column in rule.key]
    day_at = names.index("gaming_day") if "gaming_day" in names else None
    facts, days = {}, {}
    for row in rows:
        fact = {column: row[i] for column, i in zip(rule.key, at, strict=True)}
        key = json.dumps(fact, default=str)
        facts[key] = fact
        day = row[day_at] if day_at is not None else None
        if isinstance(day, dt.date) and (key not in days or day > days[key]):
            days[key] = day
    return Found(facts, days)


def due(rule: Rule, found: Found, channel: str, sent: record.Sent, now: dt.datetime) -> list[str]:
    """The facts of `found` that `channel` has not delivered, or delivered longer ago than the cooldown."""
    last = [(fact, sent.get((rule.name, fact, channel))) for fact in found.facts]
    return [fact for fact, at in last if at is None or (rule.cooldown is not None and now - at >= rule.cooldown)]


def message(
    rule: Rule, found: Found, facts: list[str], snapshot_id: str, to: tuple[str, ...], dashboard: str
) -> Message:
    """The message for `facts` of `rule`: their key columns only, the day, the snapshot and the page's link."""
    count = f"{len(facts)} new fact{'s' if len(facts) != 1 else ''}"
    return Message(
        rule=rule.name,
        severity=rule.severity,
        subject=f"[{rule.severity}] {rule.name}: {count}",
        facts=tuple(found.facts[fact] for fact in facts),
        gaming_day=found.gaming_day(facts),
        snapshot=snapshot_id,
        link=link(rule, dashboard),
        recipients=to,
    )


def link(rule: Rule, dashboard: str) -> str:
    """The dashboard page a rule's messages link to (the dashboard itself for a rule without a page)."""
    return f"{dashboard.rstrip('/')}/{rule.page}" if rule.page else dashboard


def evaluate(
    db: Path,
    rules: Sequence[Rule],
    channels: Sequence[Channel],
    *,
    alerts_to: tuple[str, ...] = (),
    dashboard: str = "",
    send: bool = True,
) -> list[Outcome]:
    """Every rule once: with `send`, each channel's new facts sent and recorded under the warehouse's
    single writer (so two runs never send a fact twice); without, what would be sent, nothing sent
    or written."""
    snapshot_id = snapshot(db)
    by_name = {channel.name: channel for channel in channels}
    outcomes, found = [], {}
    for rule in (rule for rule in rules if rule.event is None):  # an event's rule is sent when it happens
        outcome = Outcome(rule, refused=rule.refused)
        outcomes.append(outcome)
        if rule.refused is None:
            try:
                found[rule.name] = find(db, rule)
                outcome.facts = len(found[rule.name].facts)
            except store.WarehouseError as error:
                outcome.refused = str(error)
        outcome.skipped = tuple(name for name in rule.channels if name not in by_name)

    def deliver(sent: record.Sent, con=None) -> None:
        now = dt.datetime.now(dt.UTC)
        for outcome in outcomes:
            if outcome.refused is not None:
                continue
            rule, facts = outcome.rule, found[outcome.rule.name]
            for name in (name for name in rule.channels if name in by_name):
                pending = due(rule, facts, name, sent, now)
                if not pending:
                    continue
                to = recipients(rule, alerts_to)
                text = message(rule, facts, pending, snapshot_id, to, dashboard)
                delivery = _sent(by_name[name], text) if con is not None else None
                outcome.messages.append((text, delivery))
                if delivery is not None:
                    record.write(con, text, pending, delivery, facts.days)

    if not send:
        deliver(record.sent_published(db))
        return outcomes
    with store.write(db) as con:
        record.ensure(con)
        deliver(record.sent(con), con)
    return outcomes


def announce(db: Path, message: Message, fact: dict[str, Any], channels: Sequence[Channel]) -> list[Delivery]:
    """A message no rule's query finds (a failed run, the morning report) sent through each channel that
    has not delivered its `fact` yet, and recorded in meta.alerts under the writer's lock: what each
    channel did now (nothing for a channel that has delivered it)."""
    key, deliveries = json.dumps(fact, default=str), []
    with store.write(db) as con:
        record.ensure(con)
        sent = record.sent(con)
        for channel in channels:
            if (message.rule, key, channel.name) in sent:
                continue
            delivery = _sent(channel, message)
            record.write(con, message, [key], delivery)
            deliveries.append(delivery)
    return deliveries


def _sent(channel: Channel, message: Message) -> Delivery:
    """`channel.send`, whose failure, should it raise all the same, is a failed delivery, not a lost record."""
    try:
        return channel.send(message)
    except Exception as error:  # one channel never stops the others, nor the record of them
        detail = f"{type(error).__name__}: {error}".splitlines()[0]
        return Delivery(channel.name, message.recipients, False, 1, detail, dt.datetime.now(dt.UTC))
