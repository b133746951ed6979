"""Settings the `banco` commands and the Dagster code location share, read from the environment.

Every setting has a default, so nothing is required from the user; the environment overrides it.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from models.contract import DEFAULT_DB
from models.metrics.gaming_day import GamingDay
from models.reports.rules import DEFAULT_RULES, parse_rules

DEFAULT_LANDING = "data/landing"
#: Where the monthly statistical reports are filed unless BANCO_REPORTS says otherwise.
DEFAULT_REPORTS = "data/reports"
PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Settings:
    """Where the data lives, how the gaming day is reckoned, when the nightly build runs, and how
    players are rated (the session gap, the comp rate) and dealers paced (the break)."""

    db: Path = Path(DEFAULT_DB)
    landing: Path = Path(DEFAULT_LANDING)
    reports: Path = Path(DEFAULT_REPORTS)
    gaming_day: GamingDay = field(default_factory=GamingDay)
    first_gaming_day: dt.date = dt.date(2020, 1, 1)
    nightly_at: dt.time = dt.time(2, 0)
    max_tableau_violation_rate: float = 0.01
    session_gap_minutes: float = 30.0
    comp_rate: Decimal = Decimal(0)
    pace_break_minutes: float = 10.0
    surveillance_fdr: float = 0.05
    max_bet: Decimal = Decimal(5000)
    side_max: Decimal = Decimal(500)
    report_rules: tuple[str, ...] = DEFAULT_RULES
    property_name: str = "Banco Casino"
    count_tolerance: Decimal | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        """BANCO_DB, BANCO_LANDING, BANCO_REPORTS, BANCO_TIMEZONE, BANCO_DAY_START_HOUR, BANCO_FIRST_GAMING_DAY,
        BANCO_NIGHTLY_AT (HH:MM), BANCO_MAX_TABLEAU_VIOLATION_RATE, BANCO_SESSION_GAP_MINUTES,
        BANCO_COMP_RATE (a share of theo, 0 to 1), BANCO_PACE_BREAK_MINUTES, BANCO_SURVEILLANCE_FDR
        (0 to 1), BANCO_MAX_BET and BANCO_SIDE_MAX (the tables' limits), BANCO_REPORT_RULES (the
        regulators' rules a report applies), BANCO_PROPERTY_NAME (the name it is filed under) and
        BANCO_COUNT_TOLERANCE (the count room's allowed difference: an amount), each optional."""
        try:
            return cls(
                db=Path(env.get("BANCO_DB", DEFAULT_DB)),
                landing=Path(env.get("BANCO_LANDING", DEFAULT_LANDING)),
                reports=Path(env.get("BANCO_REPORTS", DEFAULT_REPORTS)),
                gaming_day=GamingDay(env.get("BANCO_TIMEZONE", "UTC"), int(env.get("BANCO_DAY_START_HOUR", "6"))),
                first_gaming_day=dt.date.fromisoformat(env.get("BANCO_FIRST_GAMING_DAY", "2020-01-01")),
                nightly_at=dt.time.fromisoformat(env.get("BANCO_NIGHTLY_AT", "02:00")),
                max_tableau_violation_rate=float(env.get("BANCO_MAX_TABLEAU_VIOLATION_RATE", "0.01")),
                session_gap_minutes=_minutes(env, "BANCO_SESSION_GAP_MINUTES", "30"),
                comp_rate=_share(env, "BANCO_COMP_RATE", "0"),
                pace_break_minutes=_minutes(env, "BANCO_PACE_BREAK_MINUTES", "10"),
                surveillance_fdr=_rate(env, "BANCO_SURVEILLANCE_FDR", "0.05"),
                max_bet=_amount(env, "BANCO_MAX_BET", "5000"),
                side_max=_amount(env, "BANCO_SIDE_MAX", "500"),
                report_rules=parse_rules(env.get("BANCO_REPORT_RULES", ",".join(DEFAULT_RULES))),
                property_name=env.get("BANCO_PROPERTY_NAME", "").strip() or "Banco Casino",
                count_tolerance=_tolerance(env, "BANCO_COUNT_TOLERANCE"),
            )
        except ValueError as error:
            raise ValueError(f"bad BANCO_* setting in the environment: {error}") from None


def _minutes(env: Mapping[str, str], name: str, default: str) -> float:
    """A positive number of minutes from the environment."""
    text = env.get(name, default)
    try:
        minutes = float(text)
    except ValueError:
        minutes = float("nan")
    if not minutes > 0 or minutes == float("inf"):
        raise ValueError(f"{name} is a positive number of minutes, got {text!r}")
    return minutes


def _share(env: Mapping[str, str], name: str, default: str) -> Decimal:
    """A share from 0 to 1 from the environment, kept exact."""
    text = env.get(name, default)
    try:
        share = Decimal(text.strip())
    except InvalidOperation:
        share = Decimal("NaN")
    if not (share.is_finite() and 0 <= share <= 1):
        raise ValueError(f"{name} is a share from 0 to 1 (0.25: a quarter of theo), got {text!r}")
    return share


def _rate(env: Mapping[str, str], name: str, default: str) -> float:
    """A rate strictly between 0 and 1 from the environment."""
    text = env.get(name, default)
    try:
        rate = float(text)
    except ValueError:
        rate = float("nan")
    if not 0 < rate < 1:
        raise ValueError(f"{name} is a rate between 0 and 1 (0.05: five in a hundred), got {text!r}")
    return rate


def _amount(env: Mapping[str, str], name: str, default: str) -> Decimal:
    """A positive amount of money from the environment, kept exact."""
    text = env.get(name, default)
    try:
        amount = Decimal(text.strip())
    except InvalidOperation:
        amount = Decimal("NaN")
    if not (amount.is_finite() and amount > 0):
        raise ValueError(f"{name} is a positive amount, got {text!r}")
    return amount


def _tolerance(env: Mapping[str, str], name: str) -> Decimal | None:
    """An amount of 0 or more from the environment, kept exact; None when unset (or blank)."""
    text = env.get(name, "")
    if not text.strip():
        return None
    try:
        amount = Decimal(text.strip())
    except InvalidOperation:
        amount = Decimal("NaN")
    if not (amount.is_finite() and amount >= 0):
        raise ValueError(f"{name} is an amount of 0 or more (0.25: a quarter), got {text!r}")
    return amount


def dagster_environment(workdir: Path, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment Dagster runs in: the project's dagster.yaml (DAGSTER_HOME is the project root)
    with its storage and logs under `workdir/.dagster/`, unless the caller already chose."""
    return {
        "DAGSTER_HOME": env.get("DAGSTER_HOME", str(PROJECT_ROOT)),
        "BANCO_DAGSTER_DIR": env.get("BANCO_DAGSTER_DIR", str((workdir / ".dagster").resolve())),
    }
