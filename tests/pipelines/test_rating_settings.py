"""The settings of ratings, dealer pace and surveillance: read from the environment, checked, carried to the build."""

import datetime as dt
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from models.metrics.build import MartConfig
from models.settings import Settings
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import read
from pipelines.defs.resources import Warehouse

BANCO = Path(sys.executable).with_name("banco")


def test_the_defaults_and_the_environment_reach_the_marts_config():
    assert MartConfig() == Warehouse.from_settings(Settings.from_env({})).mart_config
    settings = Settings.from_env(
        {"BANCO_SESSION_GAP_MINUTES": "45", "BANCO_COMP_RATE": "0.3", "BANCO_PACE_BREAK_MINUTES": "7.5"}
    )
    config = Warehouse.from_settings(settings).mart_config
    assert (config.session_gap, config.comp_rate, config.pace_break_minutes) == (45.0, Decimal("0.3"), 7.5)
    assert (MartConfig().session_gap, MartConfig().comp_rate, MartConfig().pace_break_minutes) == (30, 0, 10)


def test_the_surveillance_settings_reach_the_marts_config():
    settings = Settings.from_env({"BANCO_SURVEILLANCE_FDR": "0.01", "BANCO_MAX_BET": "10000", "BANCO_SIDE_MAX": "1000"})
    config = Warehouse.from_settings(settings).mart_config
    assert (config.surveillance_fdr, config.max_bet, config.side_max) == (0.01, Decimal(10000), Decimal(1000))
    assert (MartConfig().surveillance_fdr, MartConfig().max_bet, MartConfig().side_max) == (0.05, 5000, 500)


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("BANCO_SESSION_GAP_MINUTES", "0", "BANCO_SESSION_GAP_MINUTES is a positive number of minutes, got '0'"),
        ("BANCO_SESSION_GAP_MINUTES", "half", "BANCO_SESSION_GAP_MINUTES is a positive number of minutes"),
        ("BANCO_PACE_BREAK_MINUTES", "-1", "BANCO_PACE_BREAK_MINUTES is a positive number of minutes, got '-1'"),
        ("BANCO_COMP_RATE", "25%", "BANCO_COMP_RATE is a share from 0 to 1 (0.25: a quarter of theo), got '25%'"),
        ("BANCO_COMP_RATE", "1.2", "BANCO_COMP_RATE is a share from 0 to 1"),
        ("BANCO_COMP_RATE", "nan", "BANCO_COMP_RATE is a share from 0 to 1"),
        ("BANCO_SURVEILLANCE_FDR", "0", "BANCO_SURVEILLANCE_FDR is a rate between 0 and 1 (0.05: five in a hundred)"),
        ("BANCO_SURVEILLANCE_FDR", "5%", "BANCO_SURVEILLANCE_FDR is a rate between 0 and 1"),
        ("BANCO_MAX_BET", "-5", "BANCO_MAX_BET is a positive amount, got '-5'"),
        ("BANCO_SIDE_MAX", "lots", "BANCO_SIDE_MAX is a positive amount, got 'lots'"),
    ],
)
def test_a_bad_rating_setting_is_named(name, value, message):
    with pytest.raises(ValueError, match="^" + re.escape(f"bad BANCO_* setting in the environment: {message}")):
        Settings.from_env({name: value})


def test_banco_build_says_so_in_one_line(tmp_path):
    env = {**os.environ, "BANCO_COMP_RATE": "lots"}
    done = subprocess.run([str(BANCO), "build", "--db", str(tmp_path / "w.duckdb")], capture_output=True, text=True,
                          env=env, timeout=120)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("banco: error: bad BANCO_* setting in the environment: BANCO_COMP_RATE")


@pytest.mark.slow
def test_banco_build_rates_players_with_the_environments_gap_and_comp_rate(tmp_path):
    write_simulation(
        Simulation(shoes=4, tables=2, shoes_per_day=2, start=dt.date(2026, 11, 1), seed=4), tmp_path / "in"
    )
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "in"])

    def built(**settings: str) -> tuple[int, list[tuple]]:
        env = {**os.environ, **settings}
        done = subprocess.run([str(BANCO), "build", "--db", str(db)], capture_output=True, text=True, env=env,
                              timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        con = read(db)
        try:
            sessions = con.sql("SELECT count(*) FROM marts.player_sessions").fetchall()[0][0]
            return sessions, con.sql("SELECT theo, comp_value FROM marts.players").fetchall()
        finally:
            con.close()

    sessions, players = built(BANCO_COMP_RATE="0.25", BANCO_SESSION_GAP_MINUTES="30")
    assert players and all(comp == (theo * Decimal("0.25")).quantize(Decimal("0.000001")) for theo, comp in players)
    assert any(comp != 0 for _, comp in players)
    # a gap shorter than a coup splits every rating into one per coup wagered on
    fewer, players = built(BANCO_SESSION_GAP_MINUTES="0.001")
    assert fewer > sessions and all(comp == 0 for _, comp in players)
