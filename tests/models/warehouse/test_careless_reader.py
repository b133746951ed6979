"""One careless reader stops no one: while another process holds the newest serving snapshot open
read-write, `banco sql` and the project's reader read the previous one and say so in one line naming
that process and the fix, a publish still succeeds, and maintenance keeps the files the previous
snapshot's views read."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from models.warehouse import iceberg, serving, store
from models.warehouse.ingest import ingest
from models.warehouse.store import SnapshotHeld, publish, read, serving_path
from tests.careless import holding, two_snapshots
from tests.pipelines.test_cli_ingest import SAMPLES, banco

PLAYERS = "SELECT count(*) FROM marts.players"
DROPPED = 5


@pytest.fixture
def db(built_warehouse, tmp_path) -> Path:
    return two_snapshots(built_warehouse, tmp_path, DROPPED)


def players(db: Path) -> int:
    con = read(db)
    try:
        return con.sql(PLAYERS).fetchall()[0][0]
    finally:
        con.close()


def test_banco_sql_reads_the_previous_snapshot_and_names_the_holder(db, capsys):
    previous, newest = serving.published(db)[1], serving.published(db)[0]
    everyone = players(db) + DROPPED
    with holding(serving_path(db)) as pid:  # the stable name: what a notebook opens
        done = banco("sql", "--db", str(db), PLAYERS, "--format", "csv")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[1] == str(everyone)  # the previous snapshot's players, all of them
        said = done.stderr.strip().splitlines()
        assert len(said) == 1 and said[0].startswith("banco sql: warning: "), said
        assert f"process {pid} holds {newest.name} open read-write" in said[0]
        assert previous.name in said[0] and "read_only=True" in said[0]

        capsys.readouterr()
        assert players(db) == everyone  # the project's own reader too, and it says so on stderr
        line = capsys.readouterr().err.strip()
        assert "\n" not in line and f"process {pid}" in line and "read_only=True" in line
        assert store.passed_over(db) is not None
    assert players(db) == everyone - DROPPED and store.passed_over(db) is None  # let go: the newest again


def test_a_publish_while_the_newest_is_held_succeeds_and_keeps_it_as_the_previous(db):
    held, fewer = serving.published(db)[0], players(db)
    with holding(held) as pid:
        published = publish(db)
        assert serving.published(db) == [published, held]  # the oldest removed, the held one kept
        assert serving_path(db).resolve() == published
        assert players(db) == fewer  # the new one, no notice needed
        assert store.passed_over(db) is None
        with holding(published) as other:  # both held now: one line naming both and the fix, no build
            with pytest.raises(SnapshotHeld) as refused:
                read(db)
            done = banco("sql", "--db", str(db), "SELECT 1")
    message = str(refused.value)
    assert f"process {other} holds {published.name}" in message and f"process {pid} holds {held.name}" in message
    assert "read_only=True" in message and "banco build" not in message
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"process {pid}" in done.stderr and "read_only=True" in done.stderr and "banco build" not in done.stderr


def test_an_earlier_releases_snapshot_is_read_then_numbered(built_warehouse, tmp_path):
    db = tmp_path / "banco.duckdb"
    (tmp_path / "banco.duckdb").write_bytes(built_warehouse.read_bytes())
    serving_path(db).write_bytes(serving.published(built_warehouse)[0].read_bytes())  # a plain file
    assert serving.published(db) == [serving_path(db)] and players(db) > 0
    kept = store.published_snapshots(db)
    publish(db)
    assert [path.name for path in serving.published(db)] == ["banco.serving.1.duckdb", "banco.serving.0.duckdb"]
    assert serving_path(db).is_symlink() and store.published_snapshots(db) == kept


def test_maintenance_keeps_the_files_of_the_held_previous_snapshot(tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    ingest(db, [SAMPLES / "01_rounds_suited.csv"])
    first = set(viewed(serving.published(db)[0]))
    ingest(db, [SAMPLES / "03_rounds_value_only.jsonl"])  # core.shoes rewritten: another file
    newest = serving.published(db)[0]
    named = viewed(newest)
    assert first - set(named), "the two snapshots should read different files"
    monkeypatch.setenv("BANCO_SNAPSHOT_RETENTION_HOURS", "0")  # every replaced snapshot is past retention
    with holding(newest) as pid:
        ingest(db, [SAMPLES / "04_rounds_chemin_super6.jsonl.zst"])  # maintains, then publishes beside it
        assert serving.published(db)[1] == newest
        with store.writer(db) as w:  # and again, the held snapshot now the previous one
            w.maintain()
        assert all(Path(iceberg.local_path(location)).exists() for location in named), pid
    gone = first - set(named) - set(viewed(serving.published(db)[0]))
    assert gone and not any(Path(iceberg.local_path(location)).exists() for location in gone)


def viewed(snapshot: Path) -> list[str]:
    """The data files the views of `snapshot` read."""
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        return [row[0] for row in con.sql("SELECT DISTINCT unnest(locations) FROM meta.snapshots").fetchall()]
    finally:
        con.close()
