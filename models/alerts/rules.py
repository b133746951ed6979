"""The alert rules, as data: the alerts file (TOML, BANCO_ALERTS) read into one Rule per `[[rule]]`.

docs/alerts.md describes the format. A file that cannot be read is a RulesError of one line; a rule
that is malformed is kept as refused (`Rule.refused` says why, in one line) so the others still run.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

SEVERITIES = ("info", "warning", "critical")
#: A cooldown: a number and a unit (m, h, d), or "never" (a fact is reported once, never again).
COOLDOWN = re.compile(r"(?P<count>\d+)\s*(?P<unit>[mhd])")
UNITS = {"m": "minutes", "h": "hours", "d": "days"}
FIELDS = {"name", "severity", "query", "key", "cooldown", "to", "channels", "page", "description", "event"}
#: What a rule may answer instead of a query: a Dagster run that failed (a failed blocking check fails its
#: run), and the morning report after the nightly build. Their senders live in pipelines/defs/alerts/.
EVENTS = ("run-failure", "morning-report")


class RulesError(ValueError):
    """An alerts file that cannot be read as rules; the message is one line naming the file."""


@dataclass(frozen=True)
class Rule:
    """One rule: its query over the serving snapshot (a row is a fact), the columns that identify a
    fact, how long before a fact is reported again (None: never), its recipients (roles or addresses),
    its channels and the dashboard page its messages link to. `refused`: why it does not run, if so."""

    name: str
    severity: str = "warning"
    query: str = ""
    key: tuple[str, ...] = ()
    cooldown: dt.timedelta | None = None
    to: tuple[str, ...] = ()
    channels: tuple[str, ...] = ("log",)
    page: str = ""
    description: str = ""
    event: str | None = None  # one of EVENTS: sent when it happens, not found by a query
    refused: str | None = None


def read(path: Path) -> list[Rule]:
    """The rules of the alerts file at `path`, in its order."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RulesError(f"cannot read the alerts file {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RulesError(f"the alerts file {path} is not TOML: {error}") from None
    entries = data.get("rule", [])
    if set(data) - {"rule"} or not isinstance(entries, list):
        raise RulesError(f"the alerts file {path} holds [[rule]] entries only, not {sorted(set(data) - {'rule'})}")
    rules = [parse(entry, number) for number, entry in enumerate(entries, 1)]
    names = [rule.name for rule in rules]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise RulesError(f"the alerts file {path} names more than one rule {', '.join(repeated)}")
    return rules


def parse(entry: object, number: int) -> Rule:
    """One `[[rule]]` entry as a Rule; a malformed one as a refused Rule saying why."""
    name = entry.get("name") if isinstance(entry, dict) else None
    name = name if isinstance(name, str) and name else f"rule {number}"
    try:
        return _parsed(entry, name)
    except (TypeError, ValueError) as error:
        return Rule(name=name, refused=str(error))


def _parsed(entry: object, name: str) -> Rule:
    if not isinstance(entry, dict):
        raise ValueError("a rule is a table of name, severity, query, key, ...")
    unknown = sorted(set(entry) - FIELDS)
    if unknown:
        raise ValueError(f"unknown field {', '.join(unknown)} (a rule has {', '.join(sorted(FIELDS))})")
    severity = entry.get("severity", "warning")
    if severity not in SEVERITIES:
        raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, not {severity!r}")
    event = entry.get("event")
    if event is not None:
        return _on_event(entry, name, severity, event)
    query = entry.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValueError("it needs a query: one SQL query whose every row is a fact to report")
    key = _words(entry.get("key"), "key")
    if not key:
        raise ValueError("it needs a key: the columns that identify a fact")
    return Rule(
        name=name,
        severity=severity,
        query=query.strip().rstrip(";"),
        key=key,
        cooldown=cooldown(entry.get("cooldown", "never")),
        to=_words(entry.get("to", ()), "to"),
        channels=_words(entry.get("channels", ("log",)), "channels"),
        page=str(entry.get("page", "")).strip("/"),
        description=str(entry.get("description", "")),
    )


def _on_event(entry: dict, name: str, severity: str, event: object) -> Rule:
    """A rule sent on an event: who gets it and how, never a query (the event is its one fact)."""
    if event not in EVENTS:
        raise ValueError(f"event must be one of {', '.join(EVENTS)}, not {event!r}")
    if {"query", "key", "cooldown"} & set(entry):
        raise ValueError("a rule on an event has no query, key or cooldown: the event is its fact, sent once")
    return Rule(
        name=name,
        severity=severity,
        to=_words(entry.get("to", ()), "to"),
        channels=_words(entry.get("channels", ("log",)), "channels"),
        page=str(entry.get("page", "")).strip("/"),
        description=str(entry.get("description", "")),
        event=event,
    )


def on_event(rules: list[Rule], event: str) -> list[Rule]:
    """The rules that answer `event` and run (a refused one is left out, as evaluate leaves it)."""
    return [rule for rule in rules if rule.event == event and rule.refused is None]


def _words(value: object, field: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(word, str) and word for word in value):
        raise ValueError(f"{field} must be a list of names")
    return tuple(value)


def cooldown(text: object) -> dt.timedelta | None:
    """A cooldown ("12h", "30m", "7d") as a span, or None for "never" (a fact is reported once)."""
    if text == "never":
        return None
    match = COOLDOWN.fullmatch(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ValueError(f'cooldown must be a number and m, h or d (e.g. "12h"), or "never", not {text!r}')
    return dt.timedelta(**{UNITS[match["unit"]]: int(match["count"])})


def recipients(rule: Rule, alerts_to: tuple[str, ...]) -> tuple[str, ...]:
    """The addresses `rule` reaches: an entry with an @ is an address; any other is a role (surveillance,
    count_room, compliance, shift_manager...), and every role reaches BANCO_ALERTS_TO's addresses."""
    found: list[str] = []
    for entry in rule.to:
        for address in (entry,) if "@" in entry else alerts_to:
            if address not in found:
                found.append(address)
    return tuple(found)
