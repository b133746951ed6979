"""The serving snapshot opens in DuckDB 1.x: the pinned 1.5.6 CLI (the dev extra `duckdb-cli`), read-only,
runs every table and view of the built warehouse's snapshot and gets the counts and sums our own reader gets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb

from models.warehouse import serving
from models.warehouse.store import read, readable_by_1x, writer

CLI = Path(sys.executable).parent / "duckdb"
#: Counts and sums, as text (decimals and all), of the core tables and a few marts.
FIGURES = [
    "SELECT count(*)::VARCHAR, count(DISTINCT shoe_id)::VARCHAR FROM core.rounds",
    "SELECT count(*)::VARCHAR, sum(amount)::VARCHAR, sum(house_net)::VARCHAR, sum(theo)::VARCHAR FROM core.bets",
    "SELECT count(*)::VARCHAR, sum(rounds)::VARCHAR FROM core.shoes",
    "SELECT count(*)::VARCHAR, sum(amount)::VARCHAR FROM core.table_events",
    "SELECT count(*)::VARCHAR, sum(rows_accepted)::VARCHAR FROM meta.ingest_log",
    "SELECT count(*)::VARCHAR, sum(handle)::VARCHAR, sum(house_win)::VARCHAR FROM marts.table_day",
    "SELECT count(*)::VARCHAR, sum(visits)::VARCHAR FROM marts.players",
    "SELECT count(*)::VARCHAR, count(player_edge)::VARCHAR FROM marts.wager_edges",
    'SELECT count(*)::VARCHAR, sum("drop")::VARCHAR, sum(win)::VARCHAR FROM marts.statistical_report',
]


def cli(snapshot: Path, sql: str) -> list[tuple[str, ...]]:
    """The rows the DuckDB CLI prints for `sql` on `snapshot` opened read-only, as CSV without a header."""
    done = subprocess.run(
        [str(CLI), "-readonly", "-csv", "-noheader", str(snapshot), "-c", sql],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return [tuple(line.split(",")) for line in done.stdout.splitlines()]


def ours(db: Path, sql: str) -> list[tuple[str, ...]]:
    con = read(db)
    try:
        return [tuple("" if value is None else str(value) for value in row) for row in con.sql(sql).fetchall()]
    finally:
        con.close()


def test_the_pinned_cli_is_duckdb_1x():
    version = subprocess.run([str(CLI), "-version"], capture_output=True, text=True, timeout=60).stdout
    assert version.startswith("v1."), version


def test_the_1x_cli_reads_the_snapshot_as_our_reader_does(built_warehouse):
    link = serving.serving_path(built_warehouse)
    assert link.is_symlink() and link.resolve() == serving.published(built_warehouse)[0]
    for sql in FIGURES:
        assert cli(link, sql) == ours(built_warehouse, sql), sql


def test_every_table_and_view_of_the_snapshot_runs_in_the_1x_cli(built_warehouse):
    names = [row[0] for row in ours(built_warehouse, "SELECT DISTINCT table_schema || '.' || table_name "
                                                     "FROM information_schema.tables ORDER BY 1")]  # fmt: skip
    assert {"core.rounds", "marts.wager_edges", "meta.snapshots"} <= set(names)
    counts = " UNION ALL ".join(f"SELECT '{name}', count(*)::VARCHAR FROM {name}" for name in names)
    assert cli(serving.serving_path(built_warehouse), counts) == ours(built_warehouse, counts)


def test_the_cli_opens_the_numbered_file_the_link_names(built_warehouse):
    assert cli(serving.published(built_warehouse)[0], "SELECT 1 FROM core.rounds LIMIT 1") == [("1",)]


def test_a_warehouse_file_in_2x_format_is_rewritten_once_and_then_published_as_a_copy(tmp_path, monkeypatch):
    for name in [n for n in os.environ if n.startswith("BANCO_")]:
        monkeypatch.delenv(name)
    db = tmp_path / "banco.duckdb"
    duckdb.connect(str(db)).close()  # as DuckDB 2 makes a file by default, and an earlier release did
    assert not readable_by_1x(db)
    with writer(db) as w:
        w.con.execute("CREATE TABLE marts.kept AS SELECT 7 AS figure")
    snapshot = serving.published(db)[0]
    assert readable_by_1x(db) and snapshot.read_bytes() == db.read_bytes()
    assert cli(snapshot, "SELECT figure FROM marts.kept") == [("7",)]
