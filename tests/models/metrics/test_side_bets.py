"""marts.side_bets and the ratings over a small simulated warehouse, against the core rows joined plainly."""

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.game.paytable import DEFAULT_PAYTABLE
from models.gaming_day import gaming_day
from models.metrics.build import BET_COLUMNS, ROUND_COLUMNS, MartConfig, compute_marts
from models.metrics.coups import number
from models.metrics.ratings import MAIN_HANDS, coup_rows, joined_coup_rows
from models.warehouse import settlement
from models.warehouse.store import read

CONFIG = MartConfig()


@pytest.fixture(scope="module")
def warehouse(built_warehouse):
    """The run's shared warehouse of every game (tests/conftest.py), built with the default MartConfig."""
    con = read(built_warehouse)
    try:
        tables = (
            "core.rounds",
            "core.bets",
            "core.shoes",
            "marts.side_bets",
            "marts.player_sessions",
            "marts.table_day",
        )
        yield {name: con.sql(f"SELECT * FROM {name}").pl() for name in tables}
    finally:
        con.close()


def placed(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Every wager with its coup's gaming day and decks, joined the plain way."""
    coups = tables["core.rounds"].select(
        "table_id", "shoe_id", "round_no", "decks", gaming_day(pl.col("started_at"), CONFIG.day)
    )
    return tables["core.bets"].join(coups, on=["table_id", "shoe_id", "round_no"])


def test_side_bets_are_every_side_wagers_sums_and_theo_the_exact_edge(warehouse):
    wagers = placed(warehouse).filter(~pl.col("bet").is_in(MAIN_HANDS))
    assert wagers["player_id"].null_count() < wagers.height  # rated and (maybe) unrated alike
    by = ["gaming_day", "table_id", "game", "bet"]
    expected = (
        wagers.group_by(by)
        .agg(
            wagers=pl.len().cast(pl.Int64),
            handle=pl.col("amount").sum(),
            house_win=pl.col("house_net").sum(),
            theo=pl.col("theo").sum(),
        )
        .sort(by)
    )
    got = warehouse["marts.side_bets"]
    assert set(got["bet"]) >= {"tie", "player_pair", "banker_pair"}
    assert_frame_equal(got.select(expected.columns), expected, check_dtypes=False)
    # each wager's theo is its amount times the bet's exact edge, from the settlement module
    edges = settlement.house_expectation(DEFAULT_PAYTABLE).select("game", "decks", "bet", "edge")
    exact = wagers.join(edges.cast({"decks": pl.Int8}), on=["game", "decks", "bet"])
    assert exact.height == wagers.height
    off = (exact["theo"].cast(pl.Float64) - exact["amount"].cast(pl.Float64) * exact["edge"]).abs().max()
    assert off <= 5e-7  # theo is kept to six places
    held = got.filter(pl.col("handle") > 0)
    assert (
        held["hold_pct"] - held["house_win"].cast(pl.Float64) / held["handle"].cast(pl.Float64) * 100
    ).abs().max() < 1e-9


def test_the_ratings_hold_every_rated_wager_once(warehouse):
    wagers = placed(warehouse)
    rated = wagers.filter(pl.col("player_id").is_not_null())
    sessions = warehouse["marts.player_sessions"]
    assert sessions["wagers"].sum() == rated.height
    assert sessions["handle"].sum() == rated["amount"].sum()
    assert sessions["house_win"].sum() == rated["house_net"].sum()
    assert sessions["theo"].sum() == rated["theo"].sum()
    assert sessions["handle_main"].sum() == rated.filter(pl.col("bet").is_in(MAIN_HANDS))["amount"].sum()
    # decisions: the coups each player wagered on at each table that day, a push counted like any other
    decisions = rated.select("player_id", "table_id", "shoe_id", "round_no").unique().height
    assert sessions["decisions"].sum() == decisions
    assert (sessions["ended_at"] >= sessions["started_at"]).all()
    assert (sessions["minutes"] > 0).mean() > 0.9


def test_wagers_find_their_coups_by_number_as_by_the_join(warehouse):
    rounds, bets = warehouse["core.rounds"], warehouse["core.bets"]
    coups = number(rounds, CONFIG.day)
    assert coups is not None
    half = bets.height // 2
    # in two pieces, as a scan hands them over; a wager of a round no coup has, and of a shoe no coup has
    pieces = pl.concat([bets[:half], bets[half:]], rechunk=False)
    strays = bets[:2].with_columns(round_no=pl.Series([10_000, 1], dtype=pl.Int32), shoe_id=pl.Series(["S1", "nope"]))
    pieces = pl.concat([pieces, strays], rechunk=False)
    assert pieces["table_id"].n_chunks() > 1
    fast = coup_rows(pieces, coups)
    np.testing.assert_array_equal(fast, joined_coup_rows(pieces, coups.rows))
    assert (fast[:-2] >= 0).all() and list(fast[-2:]) == [-1, -1]


def test_the_ratings_do_not_depend_on_the_order_rows_come_in(warehouse):
    rounds, bets = warehouse["core.rounds"].select(ROUND_COLUMNS), warehouse["core.bets"].select(BET_COLUMNS)
    marts = compute_marts(rounds, bets, warehouse["core.shoes"], CONFIG)
    shuffled = compute_marts(
        rounds.sample(fraction=1.0, shuffle=True, seed=1),
        bets.sample(fraction=1.0, shuffle=True, seed=2),
        warehouse["core.shoes"],
        CONFIG,
    )
    names = ["marts.player_sessions", "marts.player_day", "marts.player_bets", "marts.side_bets"]
    for name in names:
        assert marts[name].height > 0, name
        assert_frame_equal(shuffled[name], marts[name], check_exact=False, rel_tol=1e-9, abs_tol=0)
    stored = warehouse["marts.player_sessions"]
    assert_frame_equal(stored, marts["marts.player_sessions"], check_exact=False, rel_tol=1e-9, abs_tol=0)
