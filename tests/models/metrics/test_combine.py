"""Every shard's marts combined are the marts of all the coups, row for row."""

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.game.games import Game
from models.gaming_day import GamingDay, gaming_day
from models.metrics.build import BET_COLUMNS, ROUND_COLUMNS, MartConfig, compute_marts
from models.metrics.combine import combine
from models.simulate.config import Population, Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.shards import Sharding
from models.warehouse.store import read

#: Seven tables of every game (two of punto banco, in different shards) with bets, over three days and
#: a half; dealers change tables every half hour. The gaming day opens at 08:00 while tables open at
#: 06:00, so each day's shoes are the day before's and run on into the day. A few advantage players
#: give the surveillance marts flags to combine.
SIMULATION = Simulation(
    shoes=42, tables=7, shoes_per_day=2, seed=5, games=tuple(Game), shift_hours=0.5,
    population=Population(advantage_share=0.03),
)  # fmt: skip
CONFIG = MartConfig(day=GamingDay(start_hour=8))
CORE = {"rounds": ROUND_COLUMNS, "bets": BET_COLUMNS, "shoes": ("*",)}


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> dict[str, pl.DataFrame]:
    root = tmp_path_factory.mktemp("combine")
    write_simulation(SIMULATION, root / "landing", misdeal_rate=0.01)
    db = root / "banco.duckdb"
    ingest(db, [root / "landing"])
    con = read(db)
    try:
        quoted = {name: ", ".join(c if c == "*" else f'"{c}"' for c in columns) for name, columns in CORE.items()}
        return {name: con.sql(f"SELECT {columns} FROM core.{name}").pl() for name, columns in quoted.items()}
    finally:
        con.close()


def by_shard(core: dict[str, pl.DataFrame], sharding: Sharding) -> list[dict[str, pl.DataFrame]]:
    """compute_marts on each shard's coups alone."""
    on = {
        shard: {name: frame.filter(sharding.column() == shard) for name, frame in core.items()}
        for shard in sharding.names
    }
    return [compute_marts(part["rounds"], part["bets"], part["shoes"], CONFIG) for part in on.values()]


def assert_same_rows(got: pl.DataFrame, expected: pl.DataFrame, name: str) -> None:
    """The same rows whatever their order: all but floats exactly (Decimals, counts, flags), floats within 1e-9."""
    assert got.schema == expected.schema, name
    exact = [column for column, dtype in expected.schema.items() if not dtype.is_float()]
    got, expected = got.sort(exact), expected.sort(exact)
    assert_frame_equal(got.select(exact), expected.select(exact))
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-9, abs_tol=0)


@pytest.mark.parametrize("shards", [1, 2, 3])
@pytest.mark.slow
def test_the_shards_combined_are_the_marts_of_all_coups(core, shards):
    sharding = Sharding(shards)
    whole = compute_marts(core["rounds"], core["bets"], core["shoes"], CONFIG)
    parts = by_shard(core, sharding)
    combined = combine(parts)
    assert combined.keys() == whole.keys()
    for name, expected in whole.items():
        assert expected.height > 0, name
        assert_same_rows(combined[name], expected, name)
        # in gaming-day order, and within a day as compute_marts sorts (store_marts keeps that order)
        in_day_order = expected.sort("gaming_day", maintain_order=True)
        assert_frame_equal(combined[name], in_day_order, check_exact=False, rel_tol=1e-9, abs_tol=0)
    days = whole["marts.tie_frequency"]["gaming_day"].n_unique()
    assert days >= 3
    if shards > 1:  # what the test is for: a dealer's day spread over shards, and each shard's own flags
        dealers = whole["marts.dealer_day"].with_columns(shard=sharding.column())
        assert dealers.group_by("dealer_id", "gaming_day").agg(pl.col("shard").n_unique())["shard"].max() > 1
        ratings = whole["marts.player_sessions"].with_columns(shard=sharding.column())
        assert ratings.group_by("player_id", "gaming_day").agg(pl.col("shard").n_unique())["shard"].max() > 1
        assert (
            sum(part["marts.tie_frequency_by_dealer"].height for part in parts)
            > whole["marts.tie_frequency_by_dealer"].height
        )
    if shards == 3:  # crc32 leaves shard s0 without any of the seven tables
        assert min(part["marts.tie_frequency"].height for part in parts) == 0


def rigged(rounds: pl.DataFrame, day: dt.date, extra: int) -> pl.DataFrame:
    """On `day` T01 and T03 tie every third coup, and T02 (of their shard, of two) `extra` times more."""
    on_day = gaming_day(pl.col("started_at"), CONFIG.day) == day
    nth = pl.int_range(pl.len()).over("table_id", on_day)
    return rounds.with_columns(
        outcome=pl.when(on_day & pl.col("table_id").is_in(["T01", "T03"]) & (nth % 3 == 0))
        .then(pl.lit("T"))
        .when(on_day & (pl.col("table_id") == "T02") & (nth < 4 * extra) & (nth % 4 == 0))
        .then(pl.lit("T"))
        .otherwise(pl.col("outcome"))
    )


@pytest.mark.slow
def test_the_flags_compare_every_table_of_a_day_whatever_its_shard(core):
    """A table flagged among its shard's few is not among the day's many: the flags are taken again."""
    day, sharding, mart = dt.date(2026, 11, 1), Sharding(2), "marts.tie_frequency"
    for extra in range(40):  # the fewest extra ties that flag T02 among its shard's tables only
        rounds = rigged(core["rounds"], day, extra)
        whole = compute_marts(rounds, core["bets"], core["shoes"], CONFIG)
        parts = by_shard({**core, "rounds": rounds}, sharding)
        each_shards_own = pl.concat([part[mart] for part in parts]).sort("gaming_day", "table_id")
        if not each_shards_own["flagged"].equals(whole[mart].sort("gaming_day", "table_id")["flagged"]):
            break
    else:
        pytest.fail("no rig flags a table among its shard's alone")
    flagged = whole[mart].filter(pl.col("gaming_day") == day, pl.col("flagged"))["table_id"]
    assert {"T01", "T03"} <= set(flagged) and "T02" not in flagged
    combined = combine(parts)
    for name in whole:
        assert_same_rows(combined[name], whole[name], name)


def test_a_mart_combine_does_not_know_or_a_shard_without_one_is_refused(core):
    parts = by_shard(core, Sharding(2))
    with pytest.raises(ValueError, match=r"no way to combine the shards' marts\.unknown"):
        combine([{**parts[0], "marts.unknown": pl.DataFrame()}, {**parts[1], "marts.unknown": pl.DataFrame()}])
    without = {name: frame for name, frame in parts[1].items() if name != "marts.table_day"}
    with pytest.raises(ValueError, match=r"some shards have no marts\.table_day"):
        combine([parts[0], without])
    assert combine([]) == {}
