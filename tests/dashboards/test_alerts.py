"""The Alerts page on a warehouse of its own whose alerts were sent (the log channel) and failed (a webhook
nobody answers): the rules, what each would send now and what was sent, as meta.alerts holds it, in a
real browser and under AppTest."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from dashboards import fmt
from dashboards.browser import settled
from models.alerts.channels import Retry, Webhook
from models.alerts.evaluate import evaluate
from models.alerts.record import LogChannel
from models.alerts.rules import read
from tests.dashboards.servers import ALERTS, dashboard, free_port
from tests.dashboards.test_pages import open_app, table_with
from tests.planted import planted_warehouse

ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


@pytest.fixture(scope="module")
def alerted(tmp_path_factory) -> Path:
    """A small built warehouse with planted advantage players and count faults, its rules run once:
    every fact delivered to the log, and refused by a webhook whose port nobody listens on."""
    db = planted_warehouse(tmp_path_factory.mktemp("alerted"), shoes=12, tables=3, count_fault_rate=0.3)
    down = Webhook(f"http://127.0.0.1:{free_port()}/hook", retry=Retry(attempts=1, delay=0, timeout=2))
    evaluate(db, read(ALERTS), [LogChannel(), down])
    return db


def sent(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")), read_only=True)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def shown_history(at):
    """The history table: the last of the tables of messages (the failures' comes first when any failed)."""
    return [t.value for t in at.dataframe if t.value.columns[0] == "sent_at"][-1]


def test_what_was_sent_equals_meta_alerts(alerted, monkeypatch):
    monkeypatch.setenv("BANCO_ALERTS", str(ALERTS))
    at = open_app(alerted, monkeypatch, "alerts")
    assert at.title[0].value == "Alerts" and not at.exception
    facts = dict(sent(alerted, "SELECT rule, count(*) FROM meta.alerts GROUP BY rule"))
    failed = dict(sent(alerted, "SELECT rule, count(*) FILTER (WHERE NOT ok) FROM meta.alerts GROUP BY rule"))
    assert facts and any(failed.values())
    by_rule = table_with(at, "rule", "messages", "facts", "failed_facts").set_index("rule")
    assert by_rule["facts"].to_dict() == facts and by_rule["failed_facts"].to_dict() == failed
    history = shown_history(at)
    assert history.groupby("rule")["facts"].sum().to_dict() == facts  # every message, newest first
    assert history["sent_at"].is_monotonic_decreasing
    assert {"sent", "failed"} == set(history["result"])
    assert any("did not reach their channel" in w.value for w in at.warning)  # the failures stand out
    at.segmented_control(key="alerts_result").set_value("failed").run()
    shown = shown_history(at)
    assert set(shown["result"]) == {"failed"} and shown["facts"].sum() == sum(failed.values())
    at.multiselect(key="alerts_rules").set_value(["surveillance-flag"]).run()
    shown = shown_history(at)
    assert set(shown["rule"]) == {"surveillance-flag"} and shown["facts"].sum() == failed["surveillance-flag"]


def test_the_rules_and_what_each_would_send_now(alerted, warehouse, monkeypatch):
    monkeypatch.setenv("BANCO_ALERTS", str(ALERTS))
    at = open_app(alerted, monkeypatch, "alerts")
    rules = table_with(at, "rule", "severity", "recipients", "channels", "page").set_index("rule")
    assert list(rules.index) == [rule.name for rule in read(ALERTS)]
    assert rules.loc["shift-unreconciled", "recipients"] == "Count room"
    assert rules.loc["shift-unreconciled", "page"] == "Count room"
    assert rules.loc["surveillance-flag", "channels"] == "log (email, webhook not configured)"
    assert rules.loc["run-failed", "sent_on"] == "Run failure"
    # the log delivered every fact and no other channel is configured here: each rule's line says nothing new
    lines = [fmt.plain(outcome.line()) for outcome in evaluate(alerted, read(ALERTS), [LogChannel()], send=False)]
    assert lines and all("nothing new" in line for line in lines)
    assert set(lines) <= {m.value for m in at.markdown}
    # on a warehouse where nothing was sent, each rule with facts offers the message it would send
    at = open_app(warehouse, monkeypatch, "alerts")
    outcomes = evaluate(warehouse, read(ALERTS), [LogChannel()], send=False)
    assert [e.label for e in at.expander] == [o.line() for o in outcomes if o.refused is None and o.messages]
    assert at.expander and any("Nothing was sent yet" in i.value for i in at.info)


def test_the_page_in_a_real_browser(alerted, browser, tmp_path):
    with dashboard(alerted, tmp_path, BANCO_ALERTS=str(ALERTS)) as (url, _):
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{url}/alerts")
        page.wait_for_selector("h1:has-text('Alerts')", timeout=60_000)
        settled(page)
        assert page.locator(ERRORS).count() == 0
        for part in ("Rules", "What each rule would send now", "What was sent"):
            assert page.locator(f"h3:has-text('{part}')").count() == 1, part
        assert page.locator('[data-testid="stDataFrame"]').count() == 4  # rules, failures, by rule, history
        assert page.locator('[data-testid="stMetricValue"]').count() == 3
        page.close()
