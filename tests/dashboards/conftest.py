"""The dashboard tests' warehouses: the run's shared one (every game, with bets, misdeals and advantage
players) and one of round logs alone; the dashboard served on the shared one, and a headless Chromium."""

from __future__ import annotations

import datetime as dt

import pytest

from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from tests.dashboards.servers import chromium, dashboard


@pytest.fixture(scope="session")
def warehouse(built_warehouse):
    """The run's shared warehouse (tests/conftest.py): the serving snapshot beside it is what the
    dashboard reads."""
    return built_warehouse


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


@pytest.fixture(scope="module")
def open_server(warehouse, tmp_path_factory):
    """No sign-in configured: the dashboard as a developer runs it on their own machine (its URL and port)."""
    with dashboard(warehouse, tmp_path_factory.mktemp("streamlit")) as started:
        yield started


@pytest.fixture(scope="module")
def server(open_server):
    return open_server[0]


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched
