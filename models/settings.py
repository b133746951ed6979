"""Every setting of the project, declared once with its default, and read from the environment once.

`Settings()` holds the defaults; `Settings.from_env()` the BANCO_* variables set over them, each
checked, a bad one a one-line ValueError that names it. The edges read it (the `banco` command, the
Dagster code location, the dashboard) and pass the values down; a domain function takes them as
parameters. The sign-in's users file (models/access/users.py) and the Celery executor's broker
(pipelines/cluster/executor.py) keep their own homes: only those read them.
"""

from __future__ import annotations

import datetime as dt
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TypeVar

from models.gaming_day import GamingDay
from models.reports.rules import DEFAULT_RULES, parse_rules

Value = TypeVar("Value")

#: Where the warehouse lives unless BANCO_DB or --db say otherwise (docs/warehouse.md).
DEFAULT_DB = "data/warehouse/banco.duckdb"
#: The built-in alert rules, in the project's root: found wherever `banco` is run from.
BUILT_IN_ALERTS = Path(__file__).resolve().parents[1] / "alerts.toml"
#: The channels an alert may go through (models/alerts/): the warehouse's log, email, a webhook.
ALERT_CHANNELS = ("log", "email", "webhook")


@dataclass(frozen=True)
class Settings:
    """Where the data lives and what reading it may use; how the gaming day is reckoned and when
    the nightly build runs; how players are rated, dealers paced and surveillance flags; the count
    room's tolerance and the reports' rules. `VARIABLES` names each one's environment variable."""

    db: Path = Path(DEFAULT_DB)
    landing: Path = Path("data/landing")
    reports: Path = Path("data/reports")
    catalog_uri: str = ""  # empty: a SQLite catalog beside the DuckDB file (banco.catalog.db)
    warehouse_uri: str = ""  # empty: a folder beside the DuckDB file (banco.iceberg/)
    shards: int = 2
    snapshot_retention_hours: float = 24.0
    duckdb_memory: str = "1GB"  # a writer's cap (DuckDB spills past it)
    sql_memory: str = "2GB"  # a query's cap (`banco sql`, the dashboard: nothing spills)
    sql_threads: int = 2
    sql_timeout_seconds: float = 30.0
    sql_result_size: str = "256MB"  # what a query hands its caller to hold whole (the console, a table)
    sql_result_rows: int = 1_000_000
    gaming_day: GamingDay = field(default_factory=GamingDay)  # its own defaults: UTC, opening at 06:00
    first_gaming_day: dt.date | None = None  # None: the first that has landed (pipelines/defs/partitions.py)
    nightly_at: dt.time = dt.time(2, 0)
    morning_report_at: dt.time = dt.time(6, 0)  # the previous gaming day's report is emailed, after the nightly build
    max_tableau_violation_rate: float = 0.01
    session_gap_minutes: float = 30.0
    comp_rate: Decimal = Decimal(0)
    pace_break_minutes: float = 10.0
    surveillance_fdr: float = 0.05
    max_bet: Decimal = Decimal(5000)
    side_max: Decimal = Decimal(500)
    count_tolerance: Decimal | None = None  # None: one chip of a shift's smallest denomination
    report_rules: tuple[str, ...] = DEFAULT_RULES
    property_name: str = "Banco Casino"
    alerts_file: Path = BUILT_IN_ALERTS  # the alert rules (models/alerts/rules.py, docs/alerts.md)
    smtp_url: str = field(default="", repr=False)  # smtp://, smtp+starttls:// or smtps://user:password@host:port
    smtp_from: str = ""
    alerts_to: tuple[str, ...] = ()  # addresses every built-in rule emails
    webhook_url: str = field(default="", repr=False)  # a chat's webhook URL holds its token
    webhook_secret: str = field(default="", repr=False)  # signs each webhook body (HMAC-SHA256)
    dashboard_url: str = "http://127.0.0.1:8501"  # where an alert's link points
    alert_channels: tuple[str, ...] = ALERT_CHANNELS  # the channels alerts may use (banco up: log, on a demo)
    dagster_url: str = "http://127.0.0.1:3000"  # the Dagster UI a failed run's alert links to
    currency: str = "EUR"  # the ISO 4217 code every amount in the warehouse is in (models/display.py)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        """The defaults, with every BANCO_* variable `env` sets (blank is unset) read over its own."""
        values = {}
        try:
            for name, (variable, parse) in VARIABLES.items():
                text = env.get(variable, "").strip()
                if text:
                    values[name] = parse(variable, text)
            day = DEFAULTS.gaming_day
            hour = env.get(DAY_START_HOUR, "").strip()
            values["gaming_day"] = _gaming_day(
                env.get(TIMEZONE, "").strip() or day.timezone, _hour(DAY_START_HOUR, hour) if hour else day.start_hour
            )
        except ValueError as error:
            raise ValueError(f"bad BANCO_* setting in the environment: {error}") from None
        return cls(**values)


def _checked(kind: Callable[[str], Value], holds: Callable[[Value], bool], says: str) -> Callable[[str, str], Value]:
    """A parser of a variable's text into `kind` that must satisfy `holds`; `says` what it is."""

    def parse(variable: str, text: str) -> Value:
        try:
            value = kind(text)
        except (ValueError, InvalidOperation):
            value = None
        if value is None or not holds(value):
            raise ValueError(f"{variable} {says}, got {text!r}")
        return value

    return parse


def _finite(value: float | Decimal) -> bool:
    return value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)


def _any(value: object) -> bool:
    return True


def _text(variable: str, text: str) -> str:
    return text


def _path(variable: str, text: str) -> Path:
    return Path(text)


def _addresses(variable: str, text: str) -> tuple[str, ...]:
    addresses = tuple(part.strip() for part in text.split(",") if part.strip())
    if not all("@" in address for address in addresses):
        raise ValueError(f"{variable} is a comma-separated list of email addresses, got {text!r}")
    return addresses


def _channels(variable: str, text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [name for name in names if name not in ALERT_CHANNELS]
    if unknown or not names:
        raise ValueError(f"{variable} is a comma-separated list of {', '.join(ALERT_CHANNELS)}, got {text!r}")
    return names


def _rules(variable: str, text: str) -> tuple[str, ...]:
    return parse_rules(text)  # its own message names BANCO_REPORT_RULES


def _above_zero(kind: type, what: str) -> Callable[[str, str], float | int]:
    """`banco sql`'s limits, as that command has always worded them."""

    def parse(variable: str, text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0 or value == float("inf"):
            raise ValueError(f"{variable} must be {what} above 0, not {text!r}")
        return value

    return parse


_hour = _checked(int, lambda hour: 0 <= hour <= 23, "is a whole hour from 0 to 23")


def _gaming_day(timezone: str, start_hour: int) -> GamingDay:
    try:
        return GamingDay(timezone, start_hour)
    except ValueError:
        raise ValueError(f"{TIMEZONE} is a time zone name such as Asia/Macau, got {timezone!r}") from None


#: The gaming day's two variables, read together into `Settings.gaming_day`.
TIMEZONE, DAY_START_HOUR = "BANCO_TIMEZONE", "BANCO_DAY_START_HOUR"
#: Every other setting's variable and how its text is read.
VARIABLES: dict[str, tuple[str, Callable[[str, str], object]]] = {
    "db": ("BANCO_DB", _path),
    "landing": ("BANCO_LANDING", _path),
    "reports": ("BANCO_REPORTS", _path),
    "catalog_uri": ("BANCO_CATALOG_URI", _text),
    "warehouse_uri": ("BANCO_WAREHOUSE_URI", _text),
    "shards": ("BANCO_SHARDS", _checked(int, lambda n: n >= 1, "is a whole number of shards, 1 or more")),
    "snapshot_retention_hours": (
        "BANCO_SNAPSHOT_RETENTION_HOURS",
        _checked(float, lambda h: 0 <= h < math.inf, "is a number of hours, 0 or more"),
    ),
    "duckdb_memory": ("BANCO_DUCKDB_MEMORY", _text),
    "sql_memory": ("BANCO_SQL_MEMORY", _text),  # DuckDB reads it: a reader that cannot start says so
    "sql_threads": ("BANCO_SQL_THREADS", _above_zero(int, "a whole number")),
    "sql_timeout_seconds": ("BANCO_SQL_TIMEOUT_SECONDS", _above_zero(float, "a number")),
    "sql_result_size": ("BANCO_SQL_RESULT_SIZE", _text),  # read as DuckDB reads BANCO_SQL_MEMORY: reader.py
    "sql_result_rows": ("BANCO_SQL_RESULT_ROWS", _above_zero(int, "a whole number")),
    "first_gaming_day": ("BANCO_FIRST_GAMING_DAY", _checked(dt.date.fromisoformat, _any, "is a date (YYYY-MM-DD)")),
    "nightly_at": ("BANCO_NIGHTLY_AT", _checked(dt.time.fromisoformat, _any, "is a time of day (HH:MM)")),
    "morning_report_at": (
        "BANCO_MORNING_REPORT_AT",
        _checked(dt.time.fromisoformat, _any, "is a time of day (HH:MM)"),
    ),
    "max_tableau_violation_rate": (
        "BANCO_MAX_TABLEAU_VIOLATION_RATE",
        _checked(float, lambda rate: 0 <= rate <= 1, "is a share from 0 to 1 (0.01: one in a hundred)"),
    ),
    "session_gap_minutes": (
        "BANCO_SESSION_GAP_MINUTES",
        _checked(float, lambda m: 0 < m < math.inf, "is a positive number of minutes"),
    ),
    "comp_rate": (
        "BANCO_COMP_RATE",
        _checked(Decimal, lambda s: _finite(s) and 0 <= s <= 1, "is a share from 0 to 1 (0.25: a quarter of theo)"),
    ),
    "pace_break_minutes": (
        "BANCO_PACE_BREAK_MINUTES",
        _checked(float, lambda m: 0 < m < math.inf, "is a positive number of minutes"),
    ),
    "surveillance_fdr": (
        "BANCO_SURVEILLANCE_FDR",
        _checked(float, lambda rate: 0 < rate < 1, "is a rate between 0 and 1 (0.05: five in a hundred)"),
    ),
    "max_bet": ("BANCO_MAX_BET", _checked(Decimal, lambda a: _finite(a) and a > 0, "is a positive amount")),
    "side_max": ("BANCO_SIDE_MAX", _checked(Decimal, lambda a: _finite(a) and a > 0, "is a positive amount")),
    "count_tolerance": (
        "BANCO_COUNT_TOLERANCE",
        _checked(Decimal, lambda a: _finite(a) and a >= 0, "is an amount of 0 or more (0.25: a quarter)"),
    ),
    "report_rules": ("BANCO_REPORT_RULES", _rules),
    "property_name": ("BANCO_PROPERTY_NAME", _text),
    "alerts_file": ("BANCO_ALERTS", _path),
    "smtp_url": ("BANCO_SMTP_URL", _text),
    "smtp_from": ("BANCO_SMTP_FROM", _text),
    "alerts_to": ("BANCO_ALERTS_TO", _addresses),
    "webhook_url": ("BANCO_WEBHOOK_URL", _text),
    "webhook_secret": ("BANCO_WEBHOOK_SECRET", _text),
    "dashboard_url": ("BANCO_DASHBOARD_URL", _text),
    "alert_channels": ("BANCO_ALERT_CHANNELS", _channels),
    "dagster_url": ("BANCO_DAGSTER_URL", _text),
    "currency": (
        "BANCO_CURRENCY",
        _checked(str.upper, lambda code: len(code) == 3 and code.isalpha(), "is a three-letter currency code (EUR)"),
    ),
}
#: The defaults, for the types whose own defaults are these settings'.
DEFAULTS = Settings()
