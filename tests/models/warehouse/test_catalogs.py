"""The same warehouse code on another catalog: the Iceberg tables' catalog in PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from tests.postgres import postgres

COUNTS = (
    "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets), "
    "(SELECT count(*) FROM quarantine.rounds), (SELECT count(*) FROM meta.ingest_log)"
)


def banco(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipelines.cli", *args], capture_output=True, text=True, env=env)


@pytest.mark.slow
def test_a_postgres_catalog_holds_the_tables_as_sqlite_does(tmp_path):
    landing = tmp_path / "landing"
    write_simulation(Simulation(shoes=12, tables=2, seed=21), landing, misdeal_rate=0.02)
    with postgres() as url:
        on_postgres = {**os.environ, "BANCO_CATALOG_URI": url}
        db = tmp_path / "pg-warehouse" / "banco.duckdb"
        first = banco("ingest", "--db", str(db), str(landing), env=on_postgres)
        assert first.returncode == 0, first.stderr
        again = banco("ingest", "--db", str(db), str(landing), env=on_postgres)
        assert "2 already ingested" in again.stdout
        counts = banco("sql", "--db", str(db), "--format", "csv", COUNTS, env=on_postgres)
        assert counts.returncode == 0, counts.stderr
        assert not (db.parent / "banco.catalog.db").exists()  # the catalog is the server's
    clean = tmp_path / "sqlite" / "banco.duckdb"
    assert banco("ingest", "--db", str(clean), str(landing), env=dict(os.environ)).returncode == 0
    expected = banco("sql", "--db", str(clean), "--format", "csv", COUNTS, env=dict(os.environ))
    assert counts.stdout.splitlines()[1] == expected.stdout.splitlines()[1]
