"""A sharded build (each shard's marts apart, then the day's shards combined) stores what `build` does."""

import datetime as dt
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.metrics import ledger
from models.metrics.build import build, build_from_partials, build_shard
from models.metrics.days import days_with_coups
from models.simulate.run import write_simulation
from models.warehouse import partials
from models.warehouse.ingest import ingest
from models.warehouse.shards import Sharding
from models.warehouse.store import WarehouseError, read, write
from tests.models.metrics.test_combine import CONFIG, SIMULATION

MARTS = {
    "banker_streaks", "commission", "commission_by_dealer", "commission_per_unit", "dealer_day", "decision_runs",
    "shoe_summary", "table_day", "tenure_fit", "tie_frequency", "tie_frequency_by_dealer", "tie_frequency_by_shoe",
    "ties_by_total", "player_sessions", "player_day", "player_bets", "players", "side_bets", "dealer_pace",
    "decisions", "decision_summary", "decision_styles", "coup_edges", "surveillance_sessions",
    "surveillance_player_day", "surveillance_flags", "table_shift", "count_room", "statistical_report",
}  # fmt: skip
#: The marts not kept by gaming day: the tenure fit (by month), the players and their decision styles (all time).
UNDATED = {"tenure_fit", "players", "decision_styles"}
ROOT = Path(__file__).parents[3]
#: Two days whose coups include those of shoes begun the day before; November's tenures are refitted.
DAYS = [dt.date(2026, 11, 1), dt.date(2026, 11, 2)]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shard_build")
    write_simulation(SIMULATION, root / "landing", misdeal_rate=0.01)
    db = root / "banco.duckdb"
    ingest(db, [root / "landing"])
    return db


def stored(db: Path) -> dict[str, pl.DataFrame]:
    con = read(db)
    try:
        names = con.sql(  # the tables; the view of wagers with their edges reads core.bets (and S3 for it)
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'marts' AND table_type = 'BASE TABLE'"
        ).fetchall()
        return {name: con.sql(f"SELECT * FROM marts.{name}").pl() for (name,) in names}
    finally:
        con.close()


def assert_same_marts(got: dict[str, pl.DataFrame], expected: dict[str, pl.DataFrame]) -> None:
    assert got.keys() == expected.keys() == MARTS
    for name, frame in expected.items():
        assert got[name].schema == frame.schema, name
        exact = [column for column, dtype in frame.schema.items() if not dtype.is_float()]
        left, right = got[name].sort(exact), frame.sort(exact)
        assert_frame_equal(left.select(exact), right.select(exact))  # Decimals, counts and flags exactly
        assert_frame_equal(left, right, check_exact=False, rel_tol=1e-9, abs_tol=0)


def forget(db: Path, days: list[dt.date]) -> None:
    """Remove the days' rows from every mart, their months' tenure fit and the totals of every player
    who played on them: the sharded build must put them back."""
    listed = ", ".join(f"DATE '{day}'" for day in days)
    months = ", ".join(sorted({f"DATE '{day.replace(day=1)}'" for day in days}))
    played = f"SELECT player_id FROM marts.player_sessions WHERE gaming_day IN ({listed})"
    with write(db) as con:
        con.execute(f"DELETE FROM marts.players WHERE player_id IN ({played})")
        for name in MARTS - UNDATED:
            con.execute(f"DELETE FROM marts.{name} WHERE gaming_day IN ({listed})")
        con.execute(f"DELETE FROM marts.tenure_fit WHERE period IN ({months})")


def sharded(db: Path, days: list[dt.date], sharding: Sharding, run_id: str = "run-1") -> dict[str, int]:
    for shard in sharding.names:
        build_shard(db, CONFIG, days, shard, sharding, run_id)
    return build_from_partials(db, CONFIG, days, sharding)


@pytest.mark.parametrize("shards", [1, 2, 3])
@pytest.mark.slow
def test_every_shard_then_the_day_combined_stores_what_build_does(warehouse, shards):
    build(warehouse, CONFIG)
    rows = build(warehouse, CONFIG, DAYS)
    expected = stored(warehouse)
    forget(warehouse, DAYS)
    assert stored(warehouse)["tie_frequency"].height < expected["tie_frequency"].height
    assert sharded(warehouse, DAYS, Sharding(shards)) == rows
    assert_same_marts(stored(warehouse), expected)


@pytest.mark.slow
def test_every_day_built_alone_stores_what_the_full_rebuild_does(warehouse):
    """A day's rows of every mart (the players' too) are complete when that day alone is built."""
    build(warehouse, CONFIG)
    expected = stored(warehouse)
    con = read(warehouse)
    try:
        every = days_with_coups(con, CONFIG.day)
    finally:
        con.close()
    assert len(every) >= 4 and expected["player_sessions"].height > 0
    forget(warehouse, every)
    assert stored(warehouse)["players"].height == 0  # every player played on one of the days
    for day in every:
        build(warehouse, CONFIG, [day])
    assert_same_marts(stored(warehouse), expected)
    players = expected["players"]
    assert players["visits"].max() > 1 and players["tables"].max() > 1  # regulars: several days, several tables


@pytest.mark.slow
def test_a_day_rebuilt_retotals_the_players_who_played_on_it_before_as_after(warehouse):
    """A rating that is no longer there (its wagers re-read) leaves its player's totals with it; the
    players of other days keep the totals stored."""
    build(warehouse, CONFIG)
    expected = stored(warehouse)
    played = set(expected["player_sessions"].filter(pl.col("gaming_day") == DAYS[0])["player_id"])
    elsewhere = sorted(set(expected["players"]["player_id"]) - played)[0]
    with write(warehouse) as con:  # a rating of a player no coup of the day knows, and their totals
        con.execute(
            "INSERT INTO marts.player_sessions SELECT * REPLACE ('GHOST' AS player_id) FROM marts.player_sessions "
            f"WHERE gaming_day = DATE '{DAYS[0]}' LIMIT 1"
        )
        con.execute("INSERT INTO marts.players SELECT * REPLACE ('GHOST' AS player_id) FROM marts.players LIMIT 1")
        con.execute(f"UPDATE marts.players SET theo = 0 WHERE player_id = '{elsewhere}'")
    build(warehouse, CONFIG, DAYS[:1])
    after = stored(warehouse)
    assert "GHOST" not in after["players"]["player_id"].to_list()
    assert after["players"].filter(player_id=elsewhere)["theo"].item() == 0
    others = pl.col("player_id") != elsewhere
    got, want = (frame["players"].filter(others).sort("player_id") for frame in (after, expected))
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-9, abs_tol=0)


@pytest.mark.slow
def test_a_shard_without_coups_stores_empty_marts_and_its_rows_add_up(warehouse):
    build(warehouse, CONFIG)
    sharding = Sharding(3)  # no table falls in s0
    rows = {shard: build_shard(warehouse, CONFIG, DAYS, shard, sharding, "run-2") for shard in sharding.names}
    assert set(rows["s0"].values()) == {0}
    for day in DAYS:
        empty, full = (partials.read(warehouse, day, shard, 3) for shard in ("s0", "s1"))
        assert {name: frame.schema for name, frame in empty.items()} == {n: f.schema for n, f in full.items()}
        assert all(frame.height == 0 for frame in empty.values())
    totals = build_from_partials(warehouse, CONFIG, DAYS, sharding)
    local = {"marts.table_day", "marts.dealer_day", "marts.tie_frequency", "marts.banker_streaks"}
    assert all(totals[name] == sum(per_shard[name] for per_shard in rows.values()) for name in local)
    # the days are noted as this release built them with these settings (`banco up` rebuilds the others)
    con = read(warehouse)
    try:
        assert ledger.reckoned_otherwise(con, CONFIG, DAYS) == []
        assert ledger.reckoned_otherwise(con, replace(CONFIG, session_gap=CONFIG.session_gap + 1), DAYS) == DAYS
    finally:
        con.close()


@pytest.mark.slow
def test_a_warehouse_without_marts_starts_them_with_the_days_combined(tmp_path):
    """The first sharded build of a new warehouse stores the combined shards' days, not a rebuild."""
    write_simulation(SIMULATION, tmp_path / "landing", misdeal_rate=0.01)
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "landing"])
    assert stored(db) == {}  # no marts yet
    con = read(db)
    try:
        every = days_with_coups(con, CONFIG.day)
    finally:
        con.close()
    sharding = Sharding(2)
    sharded(db, DAYS, sharding, "first")
    first = stored(db)
    assert {day for (day,) in first["table_day"].select("gaming_day").unique().iter_rows()} == set(DAYS)
    sharded(db, every, sharding, "all")
    combined = stored(db)
    build(db, CONFIG)
    assert_same_marts(combined, stored(db))


@pytest.mark.slow
def test_a_warehouse_with_older_marts_is_rebuilt_whole_from_the_core_tables(warehouse):
    build(warehouse, CONFIG)
    expected = stored(warehouse)
    sharding = Sharding(2)
    for shard in sharding.names:
        build_shard(warehouse, CONFIG, DAYS, shard, sharding, "run-3")
    with write(warehouse) as con:  # as an older release left it
        con.execute("ALTER TABLE marts.table_day DROP COLUMN win_variance")
        con.execute("DROP TABLE marts.dealer_day")
        con.execute("DELETE FROM marts.decision_runs WHERE gaming_day = DATE '2026-10-31'")
    rows = build_from_partials(warehouse, CONFIG, DAYS, sharding)
    assert rows["marts.table_day"] == expected["table_day"].height  # every day's, not two
    assert_same_marts(stored(warehouse), expected)


@pytest.mark.slow
def test_a_day_not_built_for_these_shards_is_named_and_nothing_changes(warehouse):
    build(warehouse, CONFIG)
    before = stored(warehouse)
    sharding = Sharding(2)
    for shard in sharding.names:
        build_shard(warehouse, CONFIG, DAYS[:1], shard, sharding, "run-4")
    with pytest.raises(WarehouseError, match=r"^rebuild the shard marts of 2026-11-01: shard s0's marts were"):
        build_from_partials(warehouse, CONFIG, DAYS[:1], Sharding(3))
    with pytest.raises(WarehouseError, match=r"^rebuild the shard marts of 2099-01-01: shard s0 has no marts"):
        build_from_partials(warehouse, CONFIG, [*DAYS[:1], dt.date(2099, 1, 1)], sharding)
    for shard in sharding.names:
        build_shard(warehouse, CONFIG, [dt.date(2099, 1, 1)], shard, sharding, "run-4")
    with pytest.raises(WarehouseError, match="holds no coups of gaming day 2099-01-01: nothing to build"):
        build_from_partials(warehouse, CONFIG, [dt.date(2099, 1, 1)], sharding)
    with pytest.raises(ValueError, match="no shard 's2' among 2 shards"):
        build_shard(warehouse, CONFIG, DAYS, "s2", sharding, "run-4")
    after = stored(warehouse)
    assert all(after[name].equals(before[name]) for name in before)


def python(code: str, env: dict[str, str]) -> None:
    """Run `code` in a process of its own (pyiceberg reads its settings once, as it is imported)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow  # about 40 s: five processes, each importing the Iceberg library, and moto's S3
def test_on_s3_workers_share_only_the_catalog_and_the_bucket_with_the_serving_host(tmp_path, s3_store):
    """Each shard built by a process of its own, in a folder of its own, from the tables in the bucket;
    the serving host combines what they left there."""
    write_simulation(SIMULATION, tmp_path / "landing", misdeal_rate=0.01)
    db = tmp_path / "serving" / "banco.duckdb"
    imports = (
        "from pathlib import Path; from models.metrics.build import build, build_from_partials, build_shard; "
        "from models.warehouse.ingest import ingest; from models.warehouse.shards import Sharding; "
        "from tests.models.metrics.test_combine import CONFIG; "
        "from tests.models.metrics.test_shard_build import DAYS, forget; "
    )
    env = {**os.environ, **s3_store, "BANCO_CATALOG_URI": f"sqlite:///{tmp_path / 'catalog.db'}"}
    python(
        imports + f"db = Path({str(db)!r}); ingest(db, [Path({str(tmp_path / 'landing')!r})]); build(db, CONFIG)",
        env,
    )
    expected = stored(db)
    python(imports + f"forget(Path({str(db)!r}), DAYS)", env)
    for shard in ("s0", "s1"):
        worker = tmp_path / f"worker-{shard}" / "banco.duckdb"
        python(imports + f"build_shard(Path({str(worker)!r}), CONFIG, DAYS, {shard!r}, Sharding(2), 'run-1')", env)
        assert not worker.parent.exists()  # nothing on the worker's disk
    python(imports + f"build_from_partials(Path({str(db)!r}), CONFIG, DAYS, Sharding(2))", env)
    assert_same_marts(stored(db), expected)
    assert not (tmp_path / "serving" / "banco.iceberg").exists()  # tables and partial marts in the bucket
