"""The same warehouse code on other storage: the tables' catalog in PostgreSQL, their files in S3."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import expand

COUNTS = (
    "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets), "
    "(SELECT count(*) FROM quarantine.rounds), (SELECT count(*) FROM meta.ingest_log)"
)
MARTS = "SELECT sum(wagers), sum(handle), sum(house_win), sum(theo) FROM marts.table_day"
LOCATIONS = (
    "SELECT bool_and(starts_with(location, 's3://')) FROM (SELECT unnest(locations) AS location FROM meta.snapshots)"
)


def banco(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipelines.cli", *args], capture_output=True, text=True, env=env)


@pytest.mark.slow
def test_a_postgres_catalog_holds_the_tables_as_sqlite_does(tmp_path, postgres_url):
    landing = tmp_path / "landing"
    write_simulation(Simulation(shoes=12, tables=2, seed=21), landing, misdeal_rate=0.02)
    on_postgres = {**os.environ, "BANCO_CATALOG_URI": postgres_url}
    db = tmp_path / "pg-warehouse" / "banco.duckdb"
    first = banco("ingest", "--db", str(db), str(landing), env=on_postgres)
    assert first.returncode == 0, first.stderr
    again = banco("ingest", "--db", str(db), str(landing), env=on_postgres)
    assert f"{len(expand([landing]))} already ingested" in again.stdout  # rounds, bets, events
    counts = banco("sql", "--db", str(db), "--format", "csv", COUNTS, env=on_postgres)
    assert counts.returncode == 0, counts.stderr
    assert not (db.parent / "banco.catalog.db").exists()  # the catalog is the server's
    clean = tmp_path / "sqlite" / "banco.duckdb"
    assert banco("ingest", "--db", str(clean), str(landing), env=dict(os.environ)).returncode == 0
    expected = banco("sql", "--db", str(clean), "--format", "csv", COUNTS, env=dict(os.environ))
    assert counts.stdout.splitlines()[1] == expected.stdout.splitlines()[1]


@pytest.mark.slow
def test_an_s3_warehouse_with_a_postgres_catalog_reads_and_builds_as_a_local_one(tmp_path, postgres_url, s3_store):
    """The operators' storage: the tables' files in object storage, their catalog in PostgreSQL."""
    landing = tmp_path / "landing"
    write_simulation(Simulation(shoes=12, tables=2, seed=22), landing, misdeal_rate=0.02)
    remote = {**os.environ, **s3_store, "BANCO_CATALOG_URI": postgres_url}
    db = tmp_path / "remote" / "banco.duckdb"
    assert banco("ingest", "--db", str(db), str(landing), env=remote).returncode == 0
    # maintenance on the bucket: nothing kept past its commit, only what no snapshot names goes
    expiring = {**remote, "BANCO_SNAPSHOT_RETENTION_HOURS": "0"}
    again = banco("ingest", "--db", str(db), str(landing), env=expiring)
    assert again.returncode == 0 and f"{len(expand([landing]))} already ingested" in again.stdout, again.stderr
    built = banco("build", "--db", str(db), env=remote)
    assert built.returncode == 0, built.stderr
    counts = banco("sql", "--db", str(db), "--format", "csv", COUNTS, env=remote)
    assert counts.returncode == 0, counts.stderr
    marts = banco("sql", "--db", str(db), "--format", "csv", MARTS, env=remote)
    assert not (db.parent / "banco.iceberg").exists()  # the files are in the bucket
    located = banco("sql", "--db", str(db), "--format", "csv", LOCATIONS, env=remote)
    assert located.stdout.splitlines()[1] == "true"
    local = tmp_path / "local" / "banco.duckdb"
    assert banco("ingest", "--db", str(local), str(landing), env=dict(os.environ)).returncode == 0
    assert banco("build", "--db", str(local), env=dict(os.environ)).returncode == 0
    assert counts.stdout == banco("sql", "--db", str(local), "--format", "csv", COUNTS, env=dict(os.environ)).stdout
    assert marts.stdout == banco("sql", "--db", str(local), "--format", "csv", MARTS, env=dict(os.environ)).stdout
