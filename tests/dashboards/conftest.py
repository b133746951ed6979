"""A small real warehouse for the dashboard tests: a few days of every game, with bets, misdeals and advantage
players."""

from __future__ import annotations

import datetime as dt

import pytest

from models.game.games import Game
from models.metrics.build import build
from models.simulate.config import Population, Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory):
    """Ingested and built: the serving snapshot beside it is what the dashboard reads."""
    work = tmp_path_factory.mktemp("dashboard")
    sim = Simulation(
        shoes=36, tables=6, shoes_per_day=2, games=tuple(Game), start=dt.date(2026, 11, 1), seed=11,
        population=Population(advantage_share=0.1),  # advantage players, for the Surveillance page's flags
    )  # fmt: skip
    write_simulation(sim, work / "landing", misdeal_rate=0.01)
    db = work / "banco.duckdb"
    ingest(db, [work / "landing"])
    build(db)
    return db


@pytest.fixture(scope="session")
def rounds_only(tmp_path_factory):
    """A warehouse of round logs without bets, as third-party exports usually are."""
    work = tmp_path_factory.mktemp("rounds-only")
    sim = Simulation(shoes=4, tables=2, shoes_per_day=2, start=dt.date(2026, 11, 1), seed=12, bets=False)
    write_simulation(sim, work / "landing")
    db = work / "banco.duckdb"
    ingest(db, [work / "landing"])
    build(db)
    return db
