"""The alerts file read into rules, and each rule's facts found on the shared built warehouse (read only)."""

import datetime as dt
from pathlib import Path

import pytest

from models.alerts import evaluate
from models.alerts.record import LogChannel
from models.alerts.rules import RulesError, cooldown, on_event, parse, read, recipients

ROOT = Path(__file__).resolve().parents[3]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "alerts.toml"
    path.write_text(text)
    return path


def test_the_default_file_holds_the_built_in_rules():
    names = [rule.name for rule in read(ROOT / "alerts.toml")]
    assert names == ["surveillance-flag", "shift-unreconciled", "hold-outside-maryland-band", "quarantined-share",
                     "ingest-failed", "run-failed", "morning-report"]  # fmt: skip
    assert all(rule.refused is None and rule.cooldown is None for rule in read(ROOT / "alerts.toml"))
    assert [rule.name for rule in on_event(read(ROOT / "alerts.toml"), "run-failure")] == ["run-failed"]


def test_a_rule_on_an_event_has_no_query_and_names_a_known_event():
    fields = {"name": "r", "event": "run-failure", "to": ["shift_manager"]}
    assert parse(fields, 1).event == "run-failure" and parse(fields, 1).refused is None
    assert parse(fields | {"event": "lunch"}, 1).refused.startswith("event must be one of run-failure")
    assert parse(fields | {"query": "SELECT 1 AS x"}, 1).refused.startswith("a rule on an event has no query")


def test_a_bad_file_is_one_line_and_a_bad_rule_is_refused_alone(tmp_path):
    with pytest.raises(RulesError) as error:
        read(write(tmp_path, "[[rule]\nname = 'x'"))
    assert "is not TOML" in str(error.value) and "\n" not in str(error.value)
    rules = read(write(tmp_path, "[[rule]]\nname = 'a'\nquery = 'SELECT 1 AS x'\nkey = ['x']\nseverity = 'loud'\n"
                                 "[[rule]]\nname = 'b'\nquery = 'SELECT 1 AS x'\nkey = ['x']\n"))  # fmt: skip
    assert rules[0].refused.startswith("severity must be one of") and rules[1].refused is None


def test_cooldowns_and_recipients():
    assert cooldown("12h") == dt.timedelta(hours=12) and cooldown("never") is None
    with pytest.raises(ValueError):
        cooldown("soon")
    rule = parse({"name": "r", "query": "SELECT 1 AS x", "key": ["x"], "to": ["surveillance", "ops@casino.test"]}, 1)
    assert recipients(rule, ("a@casino.test",)) == ("a@casino.test", "ops@casino.test")


def test_a_message_says_the_latest_day_of_its_own_facts_not_of_every_fact():
    days = {"a": dt.date(2026, 11, 3), "b": dt.date(2026, 11, 9), "c": dt.date(2026, 11, 30)}
    found = evaluate.Found({fact: {"x": fact} for fact in [*days, "d"]}, days)
    assert found.gaming_day(["a", "b"]) == dt.date(2026, 11, 9) and found.gaming_day(["d"]) is None
    message = evaluate.message(
        parse({"name": "r", "query": "SELECT 1 AS x", "key": ["x"]}, 1), found, ["a"], "7", (), ""
    )
    assert message.gaming_day == dt.date(2026, 11, 3) and "Gaming day 2026-11-03" in message.text()


def test_a_write_or_an_unknown_key_column_is_refused_in_one_line_and_the_others_run(tmp_path, built_warehouse):
    rules = read(
        write(
            tmp_path,
            """
[[rule]]
name = "deletes"
query = "DELETE FROM marts.surveillance_flags"
key = ["player_id"]
[[rule]]
name = "copies"
query = "COPY marts.surveillance_flags TO '/tmp/out.csv'"
key = ["player_id"]
[[rule]]
name = "wrong-key"
query = "SELECT player_id FROM marts.surveillance_flags"
key = ["name"]
[[rule]]
name = "flags"
query = "SELECT player_id, gaming_day, rule FROM marts.surveillance_flags"
key = ["player_id", "gaming_day", "rule"]
""",
        )
    )
    outcomes = evaluate.evaluate(built_warehouse, rules, [LogChannel()], send=False)
    refused = {outcome.rule.name: outcome.refused for outcome in outcomes}
    assert "read-only" in refused["deletes"] and "file access" in refused["copies"]
    assert refused["wrong-key"].startswith("unknown key column name")
    assert all("\n" not in (line or "") for line in refused.values()) and refused["flags"] is None
    flags = outcomes[-1]
    assert flags.facts > 0 and len(flags.messages) == 1
    message, delivery = flags.messages[0]
    assert delivery is None and set(message.facts[0]) == {"player_id", "gaming_day", "rule"}
    assert message.snapshot.isdigit() and message.gaming_day is not None


def test_every_built_in_rule_runs_on_the_built_warehouse(built_warehouse):
    outcomes = evaluate.evaluate(built_warehouse, read(ROOT / "alerts.toml"), [LogChannel()], send=False)
    assert [outcome.refused for outcome in outcomes] == [None] * 5  # the two on events are not queries
