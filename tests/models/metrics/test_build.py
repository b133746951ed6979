"""`build` over a real warehouse: every mart written, and its numbers equal SQL over the core tables."""

import datetime as dt
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.game.games import Game
from models.metrics.build import build
from models.simulate.config import Population, Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import WarehouseError, read, write


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("build")
    sim = Simulation(
        shoes=60, tables=4, seed=8, games=(Game.PUNTO_BANCO, Game.SUPER6, Game.CHEMIN_DE_FER, Game.BANCO),
        population=Population(advantage_share=0.1),  # advantage players, so that surveillance flags someone
    )  # fmt: skip
    write_simulation(sim, root / "landing", misdeal_rate=0.005)
    db = root / "banco.duckdb"
    ingest(db, [root / "landing"])
    build(db)
    return db


@pytest.mark.slow
def test_every_mart_is_written(warehouse):
    con = read(warehouse)
    tables = {
        name
        for (name,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts'"
        ).fetchall()
    }
    assert {"banker_streaks", "commission", "tie_frequency", "table_day", "shoe_summary"} <= tables
    assert {"table_shift", "count_room", "statistical_report"} <= tables
    if not con.execute("SELECT count(*) FROM core.table_events").fetchone()[0]:  # logs without the count's slips
        tables -= {"table_shift", "count_room", "statistical_report"}
    for table in tables:
        assert con.execute(f"SELECT count(*) FROM marts.{table}").fetchone()[0] > 0, table


def test_marts_agree_with_the_core_tables(warehouse):
    con = read(warehouse)
    ties = con.execute("SELECT sum(ties), sum(coups) FROM marts.tie_frequency").fetchone()
    assert ties == con.execute("SELECT count(*) FILTER (outcome = 'T'), count(*) FROM core.rounds").fetchone()
    money = con.execute("SELECT sum(handle), sum(house_win), sum(theo) FROM marts.table_day").fetchone()
    assert money == con.execute("SELECT sum(amount), sum(house_net), sum(theo) FROM core.bets").fetchone()
    coups = con.execute("SELECT sum(coups) FROM marts.banker_streaks").fetchone()[0]
    assert coups == con.execute("SELECT count(*) FROM core.rounds").fetchone()[0]
    cagnotte = con.execute("SELECT sum(cagnotte) FROM marts.commission").fetchone()[0]
    levy = "SELECT sum(commission) FROM core.bets WHERE game = 'chemin_de_fer' AND bet = 'banker'"
    assert cagnotte == con.execute(levy).fetchone()[0]
    shoes = con.execute("SELECT count(*), sum(banker + player + ties) FROM marts.shoe_summary").fetchone()
    assert shoes == con.execute("SELECT count(DISTINCT (table_id, shoe_id)), count(*) FROM core.rounds").fetchone()


def test_rebuilding_gives_the_same_marts(warehouse):
    con = read(warehouse)
    before = con.execute("SELECT sum(house_win), count(*) FROM marts.table_day").fetchone()
    con.close()
    build(warehouse)
    con = read(warehouse)
    assert con.execute("SELECT sum(house_win), count(*) FROM marts.table_day").fetchone() == before


def test_marts_are_text_typed_and_stored_in_gaming_day_order(warehouse):
    # categoricals are only a computing aid; a day's rows together keep a one-day rebuild local
    con = read(warehouse)
    kinds = con.execute(  # the tables the build writes; a view over core.bets has its types
        "SELECT DISTINCT data_type FROM information_schema.columns JOIN information_schema.tables "
        "USING (table_schema, table_name) WHERE table_schema = 'marts' AND table_type = 'BASE TABLE' "
        "AND column_name IN ('table_id', 'shoe_id', 'dealer_id', 'holder', 'side', 'ended_by')"
    ).fetchall()
    assert kinds == [("VARCHAR",)]
    for table in ("banker_streaks", "decision_runs", "shoe_summary", "table_day"):
        days = con.sql(f"SELECT gaming_day FROM marts.{table}").pl()["gaming_day"]
        assert days.n_unique() > 1 and days.is_sorted(), table


def _marts(db: Path) -> dict[str, pl.DataFrame]:
    con = read(db)
    names = [
        n
        for (n,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts'"
        ).fetchall()
    ]
    frames = {name: con.sql(f"SELECT * FROM marts.{name}").pl() for name in names}
    con.close()
    return {name: frame.sort(frame.columns) for name, frame in frames.items()}


@pytest.mark.slow
def test_a_new_gaming_day_recomputes_that_day_only_and_matches_a_full_rebuild(tmp_path):
    sim = Simulation(shoes=24, tables=2, shoes_per_day=4, seed=31, games=(Game.PUNTO_BANCO, Game.CHEMIN_DE_FER))
    write_simulation(sim, tmp_path / "old", days=range(0, 2))
    write_simulation(sim, tmp_path / "new", days=range(2, 3))
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "old"])
    build(db)
    ingest(db, [tmp_path / "new"])
    rows = build(db, days=[sim.start + dt.timedelta(days=2)])
    assert 0 < rows["marts.table_day"] <= 2  # one row per table of the new day
    incremental = _marts(db)
    build(db)
    full = _marts(db)
    assert incremental.keys() == full.keys()
    for name in full:  # float sums may differ in their last bits with the order of summation
        assert_frame_equal(incremental[name], full[name], check_exact=False, rel_tol=1e-9)


def test_a_day_without_coups_is_named_in_the_error_and_changes_nothing(warehouse):
    before = _marts(warehouse)
    with pytest.raises(WarehouseError, match="no coups of gaming day 2099-01-01"):
        build(warehouse, days=[dt.date(2099, 1, 1)])
    after = _marts(warehouse)
    assert all(after[name].equals(before[name]) for name in before)


@pytest.mark.slow
def test_a_warehouse_built_by_an_older_release_is_rebuilt_whole(tmp_path):
    """A mart missing, or one without a column added since, turns a one-day build into a full one."""
    sim = Simulation(shoes=16, tables=2, shoes_per_day=4, seed=32, games=(Game.PUNTO_BANCO,))
    write_simulation(sim, tmp_path / "landing")
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "landing"])
    build(db)
    full = _marts(db)
    with write(db) as con:  # as an older release left it
        con.execute("ALTER TABLE marts.table_day DROP COLUMN win_variance")
        con.execute("DROP TABLE marts.dealer_day")
    rows = build(db, days=[sim.start])
    assert rows["marts.table_day"] == full["table_day"].height  # every day, not one
    migrated = _marts(db)
    for name in full:
        assert_frame_equal(migrated[name], full[name], check_exact=False, rel_tol=1e-9)


@pytest.mark.slow
def test_large_simulated_warehouse_sits_within_theoretical_bands(tmp_path):
    sim = Simulation(shoes=3000, tables=10, seed=77)  # punto_banco, about 240,000 coups
    write_simulation(sim, tmp_path / "landing")
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "landing"])
    build(db)
    con = read(db)
    ties, coups, expected = con.execute(
        "SELECT sum(ties), sum(coups), any_value(expected_rate) FROM marts.tie_frequency"
    ).fetchall()[0]
    assert abs(ties - coups * expected) / (coups * expected * (1 - expected)) ** 0.5 < 4
    flagged = con.execute("SELECT avg(flagged::INT) FROM marts.tie_frequency").fetchall()[0][0]
    assert flagged < 0.05  # false discoveries stay rare when the tables are fair
    actual, expected_commission = con.execute(
        "SELECT sum(commission), sum(expected_commission) FROM marts.commission"
    ).fetchall()[0]
    p = con.execute("SELECT count(*) FILTER (outcome = 'B') / count(*) FROM core.rounds").fetchall()[0][0]
    squares = con.execute("SELECT sum(amount * amount) FROM core.bets WHERE bet = 'banker'").fetchall()[0][0]
    sd = 0.05 * (float(squares) * p * (1 - p)) ** 0.5
    assert abs(float(actual) - expected_commission) / sd < 4
    z = con.execute("SELECT avg(win_vs_theo_z) FROM marts.table_day").fetchall()[0][0]
    assert abs(z) < 1.0  # table-days' z-scores centre on zero
    fit = con.execute("SELECT min(p_value) FROM marts.tenure_fit").fetchall()[0][0]
    assert fit > 1e-4
