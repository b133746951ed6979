"""The `banco` flags and the Dagster resource take their defaults from the settings' one home."""

from decimal import Decimal
from pathlib import Path

from models.metrics.build import MartConfig
from models.settings import DEFAULTS, Settings
from models.warehouse.shards import Sharding
from pipelines.cli import build_parser
from pipelines.defs.resources import Warehouse


def test_the_resource_defaults_are_the_settings():
    assert Warehouse(db=str(DEFAULTS.db), landing=str(DEFAULTS.landing)).mart_config == MartConfig()
    assert Warehouse.from_settings(DEFAULTS) == Warehouse(db=str(DEFAULTS.db), landing=str(DEFAULTS.landing))


def test_the_commands_flags_default_from_the_settings():
    settings = Settings.from_env({"BANCO_TIMEZONE": "Asia/Macau", "BANCO_DAY_START_HOUR": "7", "BANCO_SHARDS": "3",
                                  "BANCO_MAX_BET": "2000", "BANCO_LANDING": "in", "BANCO_DB": "w.duckdb"})  # fmt: skip
    parser = build_parser(settings)
    built = parser.parse_args(["build"])
    assert (built.timezone, built.day_start_hour, built.db, built.settings) == ("Asia/Macau", 7, "w.duckdb", settings)
    simulated = parser.parse_args(["simulate", "--shoes", "1", "--out", "x"])
    assert (simulated.timezone, simulated.day_start_hour) == ("Asia/Macau", 7)
    assert parser.parse_args(["cluster", "up"]).shards == 3 == Sharding(settings.shards).count
    assert parser.parse_args(["up"]).landing == Path("in")
    assert parser.parse_args(["systems", "--system", "flat", "--bet", "banker"]).max_bet == Decimal(2000)
    usual = build_parser(DEFAULTS).parse_args(["build"])
    assert (usual.timezone, usual.day_start_hour) == (DEFAULTS.gaming_day.timezone, DEFAULTS.gaming_day.start_hour)
