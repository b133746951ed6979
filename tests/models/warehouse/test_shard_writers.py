"""Writers on different shards at once: both commit into the same Iceberg tables, and the warehouse
holds exactly what one writer ingesting every file would; the tables' own commits stay optimistic
and retried, so no commit is lost when writers race for one table."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse import files, schema
from models.warehouse.columns import frame_schema
from models.warehouse.iceberg import Tables
from models.warehouse.ingest import ingest
from models.warehouse.shards import Sharding
from models.warehouse.store import read, writer

SHARDING = Sharding(2)
TABLES = 4  # T01..T04: T04 falls in s0, the others in s1
FACTS = (
    "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets), "
    "(SELECT count(*) FROM core.shoes), (SELECT count(*) FROM quarantine.rounds), "
    "(SELECT count(*) FROM meta.ingest_log WHERE status = 'ok'), "
    "(SELECT sum(house_net) FROM core.bets), (SELECT sum(rounds) FROM core.shoes)"
)
ACCOUNTED = (
    "SELECT count(*) FROM meta.ingest_log "
    "WHERE rows_read <> rows_accepted + rows_quarantined + rows_duplicate OR status <> 'ok'"
)


def shard_files(tmp_path: Path) -> dict[str, list[Path]]:
    """A few days of four tables, each simulated file split into one per shard (as the simulator's
    own split writes them), with misdeals so quarantine and the shoes' reconciliation have work."""
    whole = tmp_path / "whole"
    sim = Simulation(shoes=16, tables=TABLES, shoes_per_day=2, seed=31)  # two days
    write_simulation(sim, whole, misdeal_rate=0.02)
    split: dict[str, list[Path]] = {shard: [] for shard in SHARDING.names}
    for path in sorted(whole.glob("*.parquet")):
        rows = pl.read_parquet(path).with_columns(shard=SHARDING.column("table_id"))
        for shard in SHARDING.names:
            part = rows.filter(pl.col("shard") == shard).drop("shard")
            if part.height:
                target = tmp_path / "landing" / shard / path.name
                target.parent.mkdir(parents=True, exist_ok=True)
                part.write_parquet(target)
                split[shard].append(target)
    assert all(split.values()), "every shard has files"
    return split


def _ingest_shard(db: str, shard: str, paths: list[str], start, env: dict) -> None:
    os.environ.update(env)
    start.wait()
    ingest(Path(db), [Path(p) for p in paths], shard=shard)


def side_by_side(db: Path, split: dict[str, list[Path]] | list[tuple[str, list[Path]]], env: dict) -> None:
    """Each (shard, files) ingested by a process of its own, all started at once."""
    context = multiprocessing.get_context("spawn")
    jobs = list(split.items()) if isinstance(split, dict) else split
    start = context.Barrier(len(jobs))
    workers = [
        context.Process(target=_ingest_shard, args=(str(db), shard, [str(p) for p in paths], start, env))
        for shard, paths in jobs
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(300)
        assert worker.exitcode == 0
    with writer(db):  # the serving writer publishes what the shards committed
        pass


def facts(db: Path) -> tuple:
    con = read(db)
    try:
        assert con.sql(ACCOUNTED).fetchall()[0][0] == 0
        return con.sql(FACTS).fetchall()[0]
    finally:
        con.close()


@pytest.mark.slow
def test_two_shard_writers_at_once_lose_nothing(tmp_path):
    split = shard_files(tmp_path)
    db = tmp_path / "sharded" / "banco.duckdb"
    side_by_side(db, split, {})
    serial = tmp_path / "serial" / "banco.duckdb"
    ingest(serial, [tmp_path / "landing"])
    assert facts(db) == facts(serial)
    # a second pass over the same files finds every one of them in
    again = ingest(db, [tmp_path / "landing" / "s0"], shard="s0")
    assert {result.status for result in again} == {"skipped"}


@pytest.mark.slow
def test_two_writers_of_one_shard_take_turns_and_count_nothing_twice(tmp_path):
    split = shard_files(tmp_path)
    db = tmp_path / "twice" / "banco.duckdb"
    side_by_side(db, [("s1", split["s1"]), ("s1", split["s1"])], {})
    once = tmp_path / "once" / "banco.duckdb"
    ingest(once, split["s1"])
    assert facts(db) == facts(once)


HOLDER = """
import sys, time
from pathlib import Path
from models.warehouse.store import writer
with writer(Path(sys.argv[1])):
    print("holding", flush=True)
    time.sleep(60)
"""


@pytest.mark.slow
def test_a_shard_writer_works_while_the_serving_writer_holds_its_file(tmp_path):
    """A marts run holding the serving file does not stop another run's shard writers."""
    split = shard_files(tmp_path)
    db = tmp_path / "held" / "banco.duckdb"
    ingest(db, split["s0"])
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], cwd=Path(__file__).parents[3], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        results = ingest(db, split["s1"], shard="s1")
    finally:
        holder.kill()
        holder.wait()
    assert {result.status for result in results} == {"ok"}


@pytest.mark.slow
def test_shard_writers_on_a_postgres_catalog_take_its_advisory_lock(tmp_path, postgres_url):
    split = shard_files(tmp_path)
    db = tmp_path / "pg" / "banco.duckdb"
    env = {"BANCO_CATALOG_URI": postgres_url}
    os.environ.update(env)
    try:
        side_by_side(db, split, env)
        on_postgres = facts(db)
    finally:
        del os.environ["BANCO_CATALOG_URI"]
    serial = tmp_path / "serial" / "banco.duckdb"
    ingest(serial, [tmp_path / "landing"])
    assert on_postgres == facts(serial)


APPENDS = 8
RACER = """
import sys
from pathlib import Path
from tests.models.warehouse.test_shard_writers import append_log_rows
append_log_rows(Path(sys.argv[1]), sys.argv[2])
"""


def append_log_rows(db: Path, who: str) -> None:
    """Append `APPENDS` one-row files to the log straight through the table (no commit lock)."""
    tables = Tables.open(db)
    now = dt.datetime.now(dt.UTC)
    for index in range(APPENDS):
        row = {
            "path": f"{who}-{index}", "sha256": "", "kind": None, "rows_read": 0, "rows_accepted": 0,
            "rows_quarantined": 0, "rows_duplicate": 0, "status": "failed", "error": "race",
            "started_at": now, "finished_at": now,
        }  # fmt: skip
        frame = pl.DataFrame([row], schema=frame_schema(schema.INGEST_LOG))
        written = files.write(tables.io, tables.location(schema.INGEST_LOG, who), schema.INGEST_LOG, frame)
        tables.add(schema.INGEST_LOG, [written], f"{who}-{index}")


@pytest.mark.slow
def test_racing_appends_to_one_table_are_retried_not_lost(tmp_path):
    db = tmp_path / "race" / "banco.duckdb"
    Tables.open(db)  # the tables made before the race
    racers = [
        subprocess.Popen([sys.executable, "-c", RACER, str(db), who], cwd=Path(__file__).parents[3])
        for who in ("left", "right")
    ]
    assert [racer.wait(120) for racer in racers] == [0, 0]
    tables = Tables.open(db)
    listed = tables.files(schema.INGEST_LOG, tables.snapshot_id(schema.INGEST_LOG))
    assert len(listed) == 2 * APPENDS
    rows = files.read(tables.io, [location for location, _ in listed], schema.INGEST_LOG)
    assert sorted(rows["path"]) == sorted(f"{who}-{i}" for who in ("left", "right") for i in range(APPENDS))
