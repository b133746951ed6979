"""What many test modules share, built or started once: a small real warehouse, built once for the
whole run and read by every worker, and the servers on loopback, started once per worker, on which
each test still gets data of its own (a database, a bucket). Before
pytest-xdist hands its workers any test, the numba kernels are compiled once into numba's cache
(tests/warm.py), while the workers collect."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from tests.mail import Servers, self_signed
from tests.postgres import database, postgres
from tests.s3 import bucket, s3_server
from tests.warm import PARTS

ROOT = Path(__file__).resolve().parent.parent

# The code location's partitions begin at the first gaming day of the warehouse BANCO_DB names, and the
# tests that load it in-process deal days of their own: so they do not begin at a developer's demo month.
os.environ.setdefault("BANCO_FIRST_GAMING_DAY", "2020-01-01")


#: The processes filling numba's cache, started with the session and awaited before any test runs.
_warming: dict[str, subprocess.Popen] = {}


def pytest_configure(config: pytest.Config) -> None:
    """In the process that controls xdist's workers, start filling numba's cache, both parts side by side;
    the workers start and collect meanwhile (collecting compiles nothing)."""
    controls_workers = bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")
    if not controls_workers or config.option.collectonly:
        return
    for part in PARTS:
        _warming[part] = subprocess.Popen(
            [sys.executable, "-m", "tests.warm", part],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids) -> None:
    """Hold the tests back until the cache is full (called before xdist schedules them)."""
    while _warming:
        part, process = _warming.popitem()
        output, _ = process.communicate()
        if process.returncode:  # the tests that use these kernels will say what is wrong
            print(f"tests/warm.py {part} failed ({process.returncode}):\n{output[-3000:]}", file=sys.stderr)


def pytest_unconfigure(config: pytest.Config) -> None:
    """A session ended early (an error, Ctrl-C) leaves no warming process behind."""
    while _warming:
        _warming.popitem()[1].kill()


#: The longest single tests (minutes each, mostly waiting on servers and subprocesses), started first.
LONGEST = ("tests/scale_out/test_cluster.py", "tests/pipelines/test_cli_up.py", "tests/pipelines/test_dagster.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest modules first, then the others holding slow tests: xdist hands modules out in this
    order (`dev.py test` turns off its own reordering), so the long ones run beside the rest instead of
    trailing alone at the end."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    longest = {ROOT / name: rank for rank, name in enumerate(LONGEST)}
    items.sort(key=lambda item: (longest.get(item.path, len(LONGEST)), item.path not in slow))  # stable


@pytest.fixture(scope="session")
def built_warehouse(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A small real warehouse, ingested and built (its serving snapshot beside it): a few days of every
    game, with bets, misdeals and advantage players. Built once for the whole run, by the first worker
    to ask while the others wait for it; tests only read it (copy it to change it)."""
    from models.game.games import Game
    from models.metrics.build import build
    from models.simulate.config import Population, Simulation
    from models.simulate.run import write_simulation
    from models.warehouse.ingest import ingest

    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    folder, db = shared / "built-warehouse", shared / "built-warehouse" / "banco.duckdb"
    with FileLock(shared / "built-warehouse.lock"):
        if not (folder / "built").exists():
            sim = Simulation(
                shoes=36, tables=6, shoes_per_day=2, games=tuple(Game), start=dt.date(2026, 11, 1), seed=11,
                population=Population(advantage_share=0.1),  # advantage players, for surveillance's flags
            )  # fmt: skip
            write_simulation(sim, folder / "landing", misdeal_rate=0.01)
            ingest(db, [folder / "landing"])
            build(db)
            (folder / "built").touch()
    return db


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """One PostgreSQL server for the session; tests take databases of their own on it."""
    with postgres() as url:
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh database on the session's PostgreSQL server, as a SQLAlchemy URL."""
    return database(postgres_server)


@pytest.fixture
def smtp_server() -> Iterator[Servers]:
    """Start aiosmtpd servers on 127.0.0.1 (`inbox, port = smtp_server(**kwargs)`); stopped after the test."""
    servers = Servers()
    yield servers
    servers.stop()


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory):
    """A self-signed certificate for 127.0.0.1: the server's SSL context, and a client's that trusts it."""
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """One S3 endpoint (moto's server) for the session; tests take buckets of their own on it."""
    with s3_server() as endpoint:
        yield endpoint


@pytest.fixture
def s3_store(s3_endpoint: str) -> dict[str, str]:
    """A fresh bucket on the session's S3 endpoint: the environment a warehouse there needs."""
    return bucket(s3_endpoint)
