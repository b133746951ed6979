"""`banco alerts` as a user runs it, on a warehouse of its own with planted advantage players and count
faults: each planted fact reported once, never again across runs and a rebuild, a new one reported."""

from pathlib import Path

import duckdb
import polars as pl
import pytest

from dashboards.browser import free_port
from tests.pipelines.test_cli_ingest import banco
from tests.planted import planted_warehouse

ROOT = Path(__file__).resolve().parents[2]
FLAGS = "SELECT player_id, gaming_day, rule FROM marts.surveillance_flags"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    """A built warehouse written by these tests alone (a warehouse cannot be copied by its files)."""
    return planted_warehouse(tmp_path_factory.mktemp("alerts"))


def rows(db: Path, sql: str) -> list[tuple]:
    return duckdb.connect(str(db.with_name("banco.serving.duckdb")), read_only=True).sql(sql).fetchall()


def alerts(db: Path, action: str, *args: str):
    """`banco alerts ACTION --db DB ARGS`: the warehouse named after the action, as a user types it."""
    return banco("alerts", action, "--db", str(db), *args)


def test_test_sends_nothing_and_records_nothing(warehouse, tmp_path):
    rules = tmp_path / "alerts.toml"
    rules.write_text(f'[[rule]]\nname = "tested"\nquery = "{FLAGS}"\nkey = ["player_id", "gaming_day", "rule"]\n')
    before = alerts(warehouse, "history").stdout
    shown = alerts(warehouse, "test", "tested", "--file", str(rules))
    assert shown.returncode == 0, shown.stderr
    assert "new would go to log" in shown.stdout and "snapshot" in shown.stdout and "player_id PL" in shown.stdout
    assert alerts(warehouse, "history").stdout == before and "tested" not in before


def test_each_planted_fact_is_reported_once_across_runs_and_a_rebuild(warehouse):
    from models.metrics.build import build

    first = alerts(warehouse, "run", "--file", str(ROOT / "alerts.toml"))
    assert first.returncode == 0, first.stderr
    sent = rows(warehouse, "SELECT rule, fact FROM meta.alerts WHERE channel = 'log'")
    assert len(sent) == len(set(sent))
    landing = warehouse.parent / "landing"
    planted = pl.read_parquet(landing / "_players").filter(pl.col("kind") != "ordinary")["player_id"].to_list()
    flagged = {row[0] for row in rows(warehouse, FLAGS)}
    reported = {fact for rule, fact in sent if rule == "surveillance-flag"}
    assert flagged and flagged <= set(planted) and len(reported) == len(set(rows(warehouse, FLAGS)))
    assert {fact.split('"')[3] for fact in reported} == flagged  # each fact's player_id
    faults = pl.read_parquet(landing / "_faults").select("table_id", "shift_id").rows()
    shifts = {tuple(fact.split('"')[3::4][:2]) for rule, fact in sent if rule == "shift-unreconciled"}
    assert shifts and shifts <= set(faults)
    assert "surveillance-flag: " in first.stdout and " via log sent" in first.stdout

    again = alerts(warehouse, "run", "--file", str(ROOT / "alerts.toml"))
    build(warehouse)  # a rebuild publishes a new snapshot: nothing in it is new
    rebuilt = alerts(warehouse, "run", "--file", str(ROOT / "alerts.toml"))
    for result in again, rebuilt:
        assert result.returncode == 0 and "via log" not in result.stdout, result.stdout
    assert rows(warehouse, "SELECT count(*) FROM meta.alerts")[0][0] == len(sent)
    history = alerts(warehouse, "history").stdout
    assert "surveillance-flag via log" in history and "shift-unreconciled via log" in history


def test_a_new_fact_is_reported_and_a_write_refused_while_the_others_run(warehouse, tmp_path):
    first_day = min(row[1] for row in rows(warehouse, FLAGS))
    rules = tmp_path / "alerts.toml"
    rule = '[[rule]]\nname = "{name}"\nquery = "{query}"\nkey = ["player_id", "gaming_day", "rule"]\n'
    early = FLAGS + f" WHERE gaming_day = DATE '{first_day}'"
    rules.write_text(rule.format(name="early", query=early) + rule.format(name="writes", query="DELETE FROM core.bets"))
    ran = alerts(warehouse, "run", "--file", str(rules))
    assert ran.returncode == 0, ran.stderr
    assert "writes: refused: alert writes is read-only" in ran.stdout and " new via log sent" in ran.stdout
    count = rows(warehouse, "SELECT count(*) FROM meta.alerts WHERE rule = 'early'")[0][0]
    rules.write_text(rule.format(name="early", query=FLAGS))  # every day's flags: the first day's are not new
    widened = alerts(warehouse, "run", "--file", str(rules))
    new = rows(warehouse, "SELECT count(*) FROM meta.alerts WHERE rule = 'early'")[0][0] - count
    assert new == len(set(rows(warehouse, FLAGS))) - count > 0, widened.stdout
    # each fact is recorded with its own gaming day
    recorded = rows(warehouse, "SELECT fact, gaming_day FROM meta.alerts WHERE rule = 'early'")
    assert all(f'"gaming_day": "{day}"' in fact for fact, day in recorded)


def test_a_bad_rules_file_is_one_line_and_exit_2(warehouse, tmp_path):
    (tmp_path / "alerts.toml").write_text("[[rule]\n")
    failed = alerts(warehouse, "run", "--file", str(tmp_path / "alerts.toml"))
    assert failed.returncode == 2 and len(failed.stderr.strip().splitlines()) == 1
    assert "is not TOML" in failed.stderr


def test_a_failed_delivery_is_recorded_and_tried_again_while_the_log_goes_once(warehouse, tmp_path):
    from models.alerts.channels import Retry, Webhook
    from models.alerts.evaluate import evaluate
    from models.alerts.record import LogChannel
    from models.alerts.rules import read

    rules = tmp_path / "alerts.toml"
    rules.write_text(f'[[rule]]\nname = "down"\nquery = "{FLAGS}"\nkey = ["player_id", "gaming_day", "rule"]\n'
                     'channels = ["log", "webhook"]\nto = ["surveillance"]\n')  # fmt: skip
    # a real webhook whose receiver is down: nothing listens on its port, and each send is retried
    down = Webhook(f"http://127.0.0.1:{free_port()}/hook", "secret", retry=Retry(attempts=2, delay=0.01))
    for expected in ([True, False], [False]):  # the log once; the webhook again on the second run
        (outcome,) = evaluate(warehouse, read(rules), [LogChannel(), down], alerts_to=("a@casino.test",))
        assert [delivery.ok for _, delivery in outcome.messages] == expected
        assert all(delivery.attempts == 2 for _, delivery in outcome.messages if delivery.channel == "webhook")
    recorded = rows(warehouse, "SELECT channel, ok, count(*) FROM meta.alerts WHERE rule = 'down' GROUP BY ALL")
    facts = len(set(rows(warehouse, FLAGS)))
    assert sorted(recorded) == [("log", True, facts), ("webhook", False, 2 * facts)]
    recipients = rows(warehouse, "SELECT DISTINCT channel, recipients FROM meta.alerts WHERE rule = 'down'")
    # the log names the rule's addresses; a webhook its host only (a chat's URL path is its secret)
    assert sorted(recipients) == [("log", ["a@casino.test"]), ("webhook", ["127.0.0.1"])]
