"""The one home of the settings: each declared once with its default, read from BANCO_* variables by
`Settings.from_env` alone, a bad value one line naming its variable, and the defaults the same
wherever a type or a function restates a setting as its own default."""

import dataclasses
import inspect
import re
from decimal import Decimal
from pathlib import Path

import pytest

from models.gaming_day import GamingDay
from models.metrics import combine, pace, players, surveillance
from models.metrics.build import MartConfig
from models.settings import DAY_START_HOUR, DEFAULTS, TIMEZONE, VARIABLES, Settings
from models.simulate.config import Population, Simulation
from models.systems.rules import Limits
from models.warehouse.reader import Limits as QueryLimits

ROOT = Path(__file__).resolve().parents[2]
#: Every setting's variable.
NAMES = [variable for variable, _ in VARIABLES.values()] + [TIMEZONE, DAY_START_HOUR]
#: A read of one from the environment (`os.environ[NAME] = ...` writes one for a child process).
READS = re.compile(rf"""(environ\.get\(|getenv\(|env\.get\(|environ\[)\s*["']({"|".join(NAMES)})["'](?!\]\s*=[^=])""")


def test_nothing_set_is_the_defaults_and_every_setting_has_one_variable():
    assert Settings.from_env({}) == Settings() == DEFAULTS
    named = {field.name for field in dataclasses.fields(Settings)}
    assert set(VARIABLES) | {"gaming_day"} == named
    assert len(set(NAMES)) == len(NAMES) and all(name.startswith("BANCO_") for name in NAMES)


def test_each_variable_sets_its_setting_and_blank_is_unset():
    env = {
        "BANCO_TIMEZONE": "Asia/Macau", "BANCO_DAY_START_HOUR": "8", "BANCO_SHARDS": "3", "BANCO_COMP_RATE": "0.25",
        "BANCO_SQL_THREADS": "4", "BANCO_COUNT_TOLERANCE": "0", "BANCO_REPORT_RULES": "ohio, kansas",
        "BANCO_PROPERTY_NAME": " ", "BANCO_LANDING": "",
    }  # fmt: skip
    settings = Settings.from_env(env)
    assert settings.gaming_day == GamingDay("Asia/Macau", 8)
    assert (settings.shards, settings.comp_rate, settings.sql_threads) == (3, Decimal("0.25"), 4)
    assert (settings.count_tolerance, settings.report_rules) == (Decimal(0), ("kansas", "ohio"))
    assert (settings.property_name, settings.landing) == (DEFAULTS.property_name, DEFAULTS.landing)


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("BANCO_TIMEZONE", "Mars/Base", "BANCO_TIMEZONE is a time zone name such as Asia/Macau, got 'Mars/Base'"),
        ("BANCO_DAY_START_HOUR", "24", "BANCO_DAY_START_HOUR is a whole hour from 0 to 23, got '24'"),
        ("BANCO_DAY_START_HOUR", "six", "BANCO_DAY_START_HOUR is a whole hour from 0 to 23, got 'six'"),
        ("BANCO_FIRST_GAMING_DAY", "2026-13-01", "BANCO_FIRST_GAMING_DAY is a date (YYYY-MM-DD), got '2026-13-01'"),
        ("BANCO_NIGHTLY_AT", "25:00", "BANCO_NIGHTLY_AT is a time of day (HH:MM), got '25:00'"),
        ("BANCO_SHARDS", "0", "BANCO_SHARDS is a whole number of shards, 1 or more, got '0'"),
        ("BANCO_SHARDS", "two", "BANCO_SHARDS is a whole number of shards, 1 or more, got 'two'"),
        ("BANCO_SNAPSHOT_RETENTION_HOURS", "-1", "BANCO_SNAPSHOT_RETENTION_HOURS is a number of hours, 0 or more"),
        ("BANCO_SQL_THREADS", "many", "BANCO_SQL_THREADS must be a whole number above 0, not 'many'"),
        ("BANCO_MAX_TABLEAU_VIOLATION_RATE", "2", "BANCO_MAX_TABLEAU_VIOLATION_RATE is a share from 0 to 1"),
        ("BANCO_COMP_RATE", "inf", "BANCO_COMP_RATE is a share from 0 to 1 (0.25: a quarter of theo), got 'inf'"),
        ("BANCO_MAX_BET", "nan", "BANCO_MAX_BET is a positive amount, got 'nan'"),
        ("BANCO_REPORT_RULES", ",", "BANCO_REPORT_RULES is a comma list of maryland, kansas, ohio, got ','"),
        ("BANCO_ALERT_CHANNELS", "sms", "BANCO_ALERT_CHANNELS is a comma-separated list of log, email, webhook"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_variable(name, value, message):
    with pytest.raises(ValueError, match="^" + re.escape(f"bad BANCO_* setting in the environment: {message}")) as bad:
        Settings.from_env({name: value})
    assert "\n" not in str(bad.value)


def test_only_the_home_reads_the_settings_variables():
    readers = sorted(
        str(path.relative_to(ROOT))
        for room in ("models", "pipelines", "dashboards", "benchmarks")
        for path in (ROOT / room).rglob("*.py")
        if READS.search(path.read_text())
    )
    assert readers == []
    assert READS.search('os.environ.get("BANCO_TIMEZONE", "UTC")') and READS.search("os.environ['BANCO_SHARDS']")
    assert not READS.search('os.environ["BANCO_DB"] = str(db)')


def test_the_types_and_functions_that_restate_a_setting_take_its_default():
    assert MartConfig() == MartConfig.from_settings(DEFAULTS)
    assert QueryLimits() == QueryLimits(DEFAULTS.sql_memory, DEFAULTS.sql_threads, DEFAULTS.sql_timeout_seconds)
    assert (Limits().max_bet, Population().max_bet, Population().side_max) == (
        DEFAULTS.max_bet, DEFAULTS.max_bet, DEFAULTS.side_max,
    )  # fmt: skip
    sim = Simulation(shoes=1)
    assert GamingDay(sim.timezone, sim.day_start_hour) == DEFAULTS.gaming_day

    def default(function, name):
        return inspect.signature(function).parameters[name].default

    assert default(surveillance.surveillance_flags, "fdr") == default(combine.combine, "fdr") == 0.05
    assert DEFAULTS.surveillance_fdr == 0.05
    assert default(surveillance.surveillance_sessions, "max_bet") == DEFAULTS.max_bet
    assert default(surveillance.surveillance_sessions, "side_max") == DEFAULTS.side_max
    assert default(pace.dealer_pace, "break_minutes") == default(pace.pace_stints, "break_minutes")
    assert default(pace.dealer_pace, "break_minutes") == DEFAULTS.pace_break_minutes
    assert default(players.player_day, "comp_rate") == default(combine.combine, "comp_rate") == DEFAULTS.comp_rate
