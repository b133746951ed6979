"""The partitions begin at the first gaming day that has landed, read as the real code location loads."""

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from models.metrics.days import days_with_coups, first_day_with_coups
from models.settings import Settings
from models.warehouse.store import read
from pipelines.defs.partitions import BEFORE_ANYTHING_LANDED, first_day
from pipelines.settings import PROJECT_ROOT

LOAD = """import json
from dagster import AssetKey
from pipelines.definitions import defs
first = lambda *key: defs.resolve_assets_def(AssetKey(list(key))).partitions_def.get_first_partition_key()
keys = [("marts", "table_day"), ("marts", "shard_s0"), ("reports", "monthly_statistical_report")]
print(json.dumps([first(*key) for key in keys]))
"""


def test_the_loaded_partitions_begin_at_the_first_landed_gaming_day(built_warehouse: Path):
    env = {key: value for key, value in os.environ.items() if key != "BANCO_FIRST_GAMING_DAY"}
    env |= {"BANCO_DB": str(built_warehouse), "PYTHONPATH": str(PROJECT_ROOT)}
    loaded = subprocess.run([sys.executable, "-c", LOAD], env=env, capture_output=True, text=True, timeout=300)
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert json.loads(loaded.stdout) == ["2026-11-01", "2026-11-01", "2026-11-01"]  # the days 2026-11-01..03


def test_the_first_day_is_the_setting_then_the_first_landed_then_a_fixed_early_one(built_warehouse: Path, tmp_path):
    con = read(built_warehouse)
    try:
        landed = days_with_coups(con, Settings().gaming_day)
        assert first_day_with_coups(con, Settings().gaming_day) == landed[0] == dt.date(2026, 11, 1)
    finally:
        con.close()
    assert first_day(Settings(db=built_warehouse)) == dt.date(2026, 11, 1)
    assert first_day(Settings(db=built_warehouse, first_gaming_day=dt.date(2026, 10, 1))) == dt.date(2026, 10, 1)
    # nothing landed yet: early enough that whatever lands first is inside, with no DuckDB file made
    assert first_day(Settings(db=tmp_path / "banco.duckdb")) == BEFORE_ANYTHING_LANDED
    assert not list(tmp_path.iterdir())
