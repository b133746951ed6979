"""A table-day whose accepted rows overflow a mart's decimal is held back, noted and said; every other
table-day is built; a build that fails as a whole publishes nothing and is noted until one succeeds."""

import datetime as dt

import pytest

from models.metrics import staleness
from models.metrics.build import build
from models.metrics.ledger import HeldBack
from models.warehouse.store import read, serving_path
from tests import overflow


def rows(db, sql: str) -> list[tuple]:
    con = read(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def overflowed(tmp_path_factory):
    root = tmp_path_factory.mktemp("held-back")
    db = overflow.built(root)
    overflow.overflow(db, root)
    return db


@pytest.mark.slow
def test_the_overflowing_table_day_is_held_back_and_every_other_one_built(overflowed):
    db, day = overflowed, overflow.DAY
    built = build(db)
    assert day in built.computed
    ((held_day, table, why),) = built.held_back
    assert (held_day, table) == (day, "T01") and why.startswith("InvalidOperationError: conversion from")
    # T02's rows of that day and T01's of the next are there; T01's of that day are not
    for mart in ("marts.table_day", "marts.count_room", "marts.commission", "marts.tie_frequency"):
        kept = set(rows(db, f"SELECT table_id, gaming_day FROM {mart}"))
        assert ("T02", day) in kept and ("T01", day + dt.timedelta(days=1)) in kept, mart
        assert ("T01", day) not in kept, mart
    assert rows(db, "SELECT gaming_day, table_id FROM meta.held_back") == [(day, "T01")]
    assert staleness.failure(db) is None
    # a build with nothing new still carries what the marts lack; a build of another day keeps its note
    assert build(db).held_back == built.held_back
    assert build(db, days=[day + dt.timedelta(days=1)]).held_back == built.held_back
    words = staleness.warning(None, built.held_back)
    assert words.startswith("The marts leave out 1 table-day whose rows the build could not compute: T01 on 2026-11-01")


def test_a_day_computed_again_replaces_its_held_back_table_days(tmp_path):
    from models.metrics import ledger
    from models.warehouse.store import write

    db = tmp_path / "banco.duckdb"
    first, second = dt.date(2026, 11, 1), dt.date(2026, 11, 2)
    with write(db) as con:
        ledger.record_held_back(con, [first, second], [HeldBack(first, "T01", "a"), HeldBack(second, "T02", "b")])
        ledger.record_held_back(con, [first], [HeldBack(first, "T03", "c")])
        assert ledger.held_back(con) == [HeldBack(first, "T03", "c"), HeldBack(second, "T02", "b")]
        ledger.record_held_back(con, [second], [])
        assert ledger.held_back(con) == [HeldBack(first, "T03", "c")]


@pytest.mark.slow
def test_a_build_that_fails_whole_publishes_nothing_and_is_noted_until_one_succeeds(tmp_path):
    db = overflow.built(tmp_path)
    serving = serving_path(db)
    before, published = rows(db, "SELECT * FROM marts.table_day ORDER BY ALL"), serving.stat().st_mtime_ns
    (added, *_) = overflow.later_day(db, tmp_path)
    published = serving.stat().st_mtime_ns  # the ingest published its rows, with the marts as they were
    held = overflow.corrupted(added)
    with pytest.raises(Exception) as raised:
        build(db)
    assert serving.stat().st_mtime_ns == published
    assert rows(db, "SELECT * FROM marts.table_day ORDER BY ALL") == before
    failed = staleness.failure(db)
    assert failed is not None and failed.reason == staleness.reason(raised.value)
    assert staleness.warning(failed, []).startswith("The marts are stale: the last build, at ")
    added.write_bytes(held)
    built = build(db)
    assert dt.date(2026, 11, 5) in built.computed and staleness.failure(db) is None
    assert not staleness.note_path(db).exists()


@pytest.mark.slow
def test_a_sharded_build_holds_the_same_table_day_back(tmp_path):
    from models.metrics.build import DEFAULT_CONFIG, build_from_partials, build_shard
    from models.warehouse.shards import Sharding

    db, day = overflow.built(tmp_path), overflow.DAY
    overflow.overflow(db, tmp_path)
    sharding = Sharding(2)
    for shard in sharding.names:
        build_shard(db, DEFAULT_CONFIG, [day], shard, sharding, "run-1")
    built = build_from_partials(db, DEFAULT_CONFIG, [day], sharding)
    assert [(held.gaming_day, held.table_id) for held in built.held_back] == [(day, "T01")]
    kept = set(rows(db, "SELECT table_id, gaming_day FROM marts.count_room"))
    assert ("T02", day) in kept and ("T01", day) not in kept
