"""A build computes only what can have changed (ledger.py): the days a new file touched or whose
settings changed, a few days at a time, with every coup's edges kept while its shoe is untouched;
what it writes equals the marts computed from every core row at once."""

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.game.games import Game
from models.metrics.build import BET_COLUMNS, ROUND_COLUMNS, MartConfig, build, compute_marts
from models.metrics.loading import SHIFT_COUP_COLUMNS, table_events
from models.metrics.marts import count_marts
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse import schema
from models.warehouse.ingest import ingest
from models.warehouse.store import read, write

SIM = Simulation(shoes=60, tables=2, shoes_per_day=5, seed=41, games=(Game.PUNTO_BANCO, Game.CHEMIN_DE_FER))
#: The marts a build stores again over every day: not a day's rows, compared apart.
TOTALS = {"tenure_fit", "players", "statistical_report", "decision_styles"}


def _marts(db: Path) -> dict[str, pl.DataFrame]:
    con = read(db)
    names = [
        n
        for (n,) in con.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts'").fetchall()
    ]
    frames = {name: con.sql(f"SELECT * FROM marts.{name}").pl() for name in names}
    con.close()
    return {name: frame.sort(frame.columns) for name, frame in frames.items()}


def _same(left: dict[str, pl.DataFrame], right: dict[str, pl.DataFrame]) -> None:
    assert left.keys() == right.keys()
    for name in right:  # float sums may differ in their last bits with the order of summation
        assert_frame_equal(left[name], right[name], check_exact=False, rel_tol=1e-9, check_dtypes=False)


@pytest.fixture(scope="module")
def landed(tmp_path_factory) -> Path:
    """Six gaming days of logs: the first five in `old`, the sixth in `new`."""
    root = tmp_path_factory.mktemp("ledger")
    write_simulation(SIM, root / "old", days=range(0, 5))
    write_simulation(SIM, root / "new", days=range(5, 6))
    return root


@pytest.fixture()
def db(landed, tmp_path) -> Path:
    db = tmp_path / "banco.duckdb"
    ingest(db, [landed / "old"])
    return db


@pytest.mark.slow
def test_a_build_in_small_chunks_equals_the_marts_of_every_row_at_once(db):
    built = build(db, chunk_coups=300)  # a day or two at a time
    assert len(built.computed) == 5 and built.reused == [] and built.why == "no build recorded yet"
    stored = _marts(db)
    con = read(db)
    rounds, bets = (
        con.sql(f"SELECT {', '.join(f'{chr(34)}{c}{chr(34)}' for c in columns)} FROM {table}").pl()
        for columns, table in ((ROUND_COLUMNS, "core.rounds"), (BET_COLUMNS, "core.bets"))
    )
    shoes = con.sql("SELECT * FROM core.shoes").pl()
    events = table_events(con, None, MartConfig())
    con.close()
    whole = compute_marts(rounds, bets, shoes, MartConfig())
    whole |= dict(count_marts(events, rounds.select(SHIFT_COUP_COLUMNS), bets, MartConfig()))
    for name, frame in whole.items():
        mine = _utc(stored[name.removeprefix("marts.")].select(frame.columns))
        assert_frame_equal(
            mine.sort(frame.columns), _utc(frame).sort(frame.columns), check_exact=False, rel_tol=1e-9,
            check_dtypes=False,
        )  # fmt: skip


def _utc(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame's instants in the zone named UTC (DuckDB hands them back as Etc/UTC)."""
    zoned = [name for name, dtype in frame.schema.items() if isinstance(dtype, pl.Datetime) and dtype.time_zone]
    return frame.with_columns(pl.col(zoned).dt.convert_time_zone("UTC"))


@pytest.mark.slow
def test_a_build_with_nothing_new_computes_nothing_and_keeps_every_mart(db):
    build(db)
    before = _marts(db)
    again = build(db)
    assert again.computed == [] and len(again.reused) == 5 and dict(again) == {}
    _same(_marts(db), before)


@pytest.mark.slow
def test_a_new_day_is_all_a_build_computes_and_it_matches_every_day_computed(db, landed):
    build(db)
    ingest(db, [landed / "new"])
    built = build(db)
    sixth = SIM.start + dt.timedelta(days=5)
    # a shoe dealt across the turn of the day touches the day before too
    assert sixth in built.computed and len(built.computed) <= 2 and len(built.reused) >= 4
    assert built.kept_edges > 0 or built.computed == [sixth]
    nightly = _marts(db)
    everything = build(db, every_day=True)
    assert len(everything.computed) == 6 and everything.why == "asked to compute every day"
    _same(nightly, _marts(db))


@pytest.mark.slow
def test_a_changed_setting_computes_every_day_again_but_keeps_every_edge(db):
    build(db)
    con = read(db)
    edges = con.sql(f"SELECT count(*) FROM {schema.MARTS_COUP_EDGES}").fetchall()[0][0]
    con.close()
    generous = replace(MartConfig(), comp_rate=Decimal("0.4"))
    built = build(db, generous)
    assert len(built.computed) == 5 and built.why == "the settings or the release changed since the last build"
    assert built.kept_edges == edges > 0  # the edges depend on the cards, the pay table and the day only
    comps = read(db).sql("SELECT sum(comp_value) FROM marts.player_day").fetchall()[0][0]
    assert comps > 0
    # and back: the days built with the generous rate are computed again
    assert len(build(db).computed) == 5


@pytest.mark.slow
def test_a_mart_dropped_since_the_last_build_makes_every_day_new(db):
    build(db)
    with write(db) as con:
        con.execute(f"DROP TABLE {schema.MARTS_DEALER_PACE}")
    built = build(db)
    assert len(built.computed) == 5 and built.why == f"{schema.MARTS_DEALER_PACE} is missing"
    assert read(db).sql(f"SELECT count(*) FROM {schema.MARTS_DEALER_PACE}").fetchall()[0][0] > 0
