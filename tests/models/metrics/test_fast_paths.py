"""The build's fast paths against the general ones they stand in for: coups numbered by shoe against
a sort on text, the compiled wager sums against the join and grouping of money.py, the bank columns
of tenures without chemin de fer against the join."""

import datetime as dt
from decimal import Decimal

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE
from models.gaming_day import GamingDay, gaming_day, shoe_day
from models.metrics.build import BET_COLUMNS, ROUND_COLUMNS, MartConfig, compute_marts
from models.metrics.coups import changes, number
from models.metrics.money import (
    Rounding,
    commission_sums,
    commission_totals,
    table_day_sums,
    table_day_totals,
    wagers,
)
from models.metrics.streaks import bank_tenures, chemin_bank, with_banks
from models.metrics.wager_sums import STINT, stint_sums
from models.warehouse import settlement
from models.warehouse.store import read


@pytest.fixture(scope="module")
def core(built_warehouse) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Every game's coups and wagers (the run's shared warehouse, tests/conftest.py), in an order that
    cuts shoes into stretches: whole days of tables in turn, each day's rows in blocks of 25 that are
    shuffled."""
    con = read(built_warehouse)
    rounds, bets = (
        con.sql(f"SELECT {', '.join(_quoted(c) for c in columns)} FROM {table}").pl()
        for columns, table in ((ROUND_COLUMNS, "core.rounds"), (BET_COLUMNS, "core.bets"))
    )
    shoes = con.sql("SELECT * FROM core.shoes").pl()
    con.close()
    # one table's dealer unknown: a null key of a stint
    rounds = rounds.with_columns(dealer_id=pl.when(pl.col("table_id") != "T02").then(pl.col("dealer_id")))
    return _blocks(rounds, 25), _blocks(bets, 70), shoes


def _quoted(name: str) -> str:
    return f'"{name}"'


def _blocks(frame: pl.DataFrame, size: int) -> pl.DataFrame:
    """The rows in blocks of `size`, the blocks shuffled."""
    order = np.random.default_rng(3).permutation(-(-frame.height // size))
    place = pl.Series(order[np.arange(frame.height) // size])
    return frame.with_columns(_place=place).sort("_place", maintain_order=True).drop("_place")


def _sorted(rounds: pl.DataFrame) -> pl.DataFrame:
    return (
        rounds.with_columns(gaming_day(pl.col("started_at")))
        .with_columns(shoe_day())
        .sort("shoe_day", "table_id", "shoe_id", "round_no")
    )


@pytest.mark.parametrize("shuffle", ["blocks", "every row"])
def test_coups_in_number_order_are_the_sort_by_shoe_day_table_shoe_and_round(core, shuffle):
    rounds = core[0] if shuffle == "blocks" else core[0].sample(fraction=1.0, shuffle=True, seed=4)
    coups = number(rounds, GamingDay())
    assert coups is not None
    assert_frame_equal(coups.rows.gather(coups.order()), _sorted(rounds))
    assert (coups.at[coups.key] == np.arange(rounds.height)).all()


def test_a_coup_key_twice_takes_the_general_path(core):
    rounds, bets, shoes = core
    twice = pl.concat([rounds, rounds.tail(1)])
    assert number(twice, GamingDay()) is None
    # the marts still come, sorted and joined on text as before
    marts, fast = compute_marts(twice, bets, shoes, MartConfig()), compute_marts(rounds, bets, shoes, MartConfig())
    assert marts.keys() == fast.keys()
    assert marts["marts.tie_frequency"]["coups"].sum() == rounds.height + 1
    assert_frame_equal(marts["marts.decision_runs"].head(100), fast["marts.decision_runs"].head(100))


def _naive_changes(*columns: pl.Series) -> np.ndarray:
    rows = list(zip(*(column.to_list() for column in columns), strict=True))
    return np.array([i == 0 or rows[i] != rows[i - 1] for i in range(len(rows))], np.bool_)


def test_changes_mark_every_row_that_differs_from_the_one_before():
    short = pl.Series(["a", "a", None, None, "b", "a", "a", ""])
    number_ = pl.Series([1, 1, 1, None, None, 2, 2, 2])
    day = pl.Series([dt.date(2026, 11, 1)] * 7 + [dt.date(2026, 11, 2)])
    assert (changes(short, number_, day) == _naive_changes(short, number_, day)).all()
    # text past 12 bytes: equal text at two places in the buffers, and text that differs past byte 4
    long = pl.concat([pl.Series(["a long dealer name"] * 3), pl.Series(["a long dealer name", "a long dealer nam3"])])
    assert (changes(long, short.head(5)) == _naive_changes(long, short.head(5))).all()


def _money(bets, rounds, rounding):
    """The marts both ways: stint_sums over numbered coups, and money.py's join and grouping."""
    variance = settlement.house_expectation(DEFAULT_PAYTABLE).select("game", "decks", "bet", "house_variance")
    variance = variance.with_columns(pl.col("decks").cast(pl.Int8))
    fast = stint_sums(bets, number(rounds, GamingDay()), variance, rounding, DEFAULT_PAYTABLE)
    placed = wagers(bets.lazy(), _sorted(rounds).lazy()).collect().lazy()
    general = (
        commission_sums(placed, STINT, rounding, DEFAULT_PAYTABLE),
        table_day_sums(placed, variance, STINT),
    )
    return fast, general


def _marts(sums):
    fees, money = sums
    return [
        *(commission_totals(fees, by) for by in (("table_id", "gaming_day"), ("dealer_id", "gaming_day"))),
        *(table_day_totals(money, by) for by in (("table_id", "gaming_day"), tuple(STINT))),
    ]


@pytest.mark.parametrize("rounding", [Rounding(), Rounding("down", Decimal("0.25")), Rounding("up", Decimal(1))])
def test_stint_sums_give_the_marts_the_joined_wagers_give(core, rounding):
    rounds, bets, _ = core
    # wagers no coup has (an unknown shoe, a round past the shoe's last) are left out, as by the join
    orphans = bets.head(2).with_columns(shoe_id=pl.lit("no such shoe"), round_no=pl.Series([1, 999], dtype=pl.Int32))
    fast, general = _money(pl.concat([bets, orphans]), rounds, rounding)
    assert fast is not None
    for mine, theirs in zip(_marts(fast), _marts(general), strict=True):
        # exact money; float sums may differ in their last bits with the order of summation
        assert_frame_equal(mine, theirs, check_exact=False, rel_tol=1e-12)
        exact = [name for name, dtype in theirs.schema.items() if dtype != pl.Float64]
        assert_frame_equal(mine.select(exact), theirs.select(exact), check_exact=True)
    assert set(rounds["game"]) == {game.value for game in Game}


def test_stint_sums_decline_wagers_they_cannot_vouch_for(core):
    rounds, bets, _ = core
    coups = number(rounds, GamingDay())
    variance = settlement.house_expectation(DEFAULT_PAYTABLE).select("game", "decks", "bet", "house_variance")
    variance = variance.with_columns(pl.col("decks").cast(pl.Int8))
    first = pl.int_range(pl.len()) == 0
    declined = {
        "a null amount": bets.with_columns(amount=pl.when(~first).then(pl.col("amount"))),
        "a bet no pay table names": bets.with_columns(bet=pl.when(first).then(pl.lit("lucky7")).otherwise("bet")),
        "another game than its coup's": bets.with_columns(
            game=pl.when(first).then(pl.lit("banco" if bets["game"][0] != "banco" else "super6")).otherwise("game")
        ),
    }
    for reason, frame in declined.items():
        assert stint_sums(frame, coups, variance, Rounding(), DEFAULT_PAYTABLE) is None, reason


def test_tenures_without_chemin_de_fer_get_the_bank_columns_the_join_gives(core):
    rounds, bets, _ = core
    ordered = _sorted(rounds).lazy()
    for games in (["punto_banco", "banco"], ["chemin_de_fer", "super6"]):
        tenures = bank_tenures(ordered.filter(pl.col("game").is_in(games)), in_order=True).collect()
        joined = tenures.join(
            chemin_bank(tenures.lazy(), bets.lazy()).collect(), on=["table_id", "shoe_id", "tenure"], how="left"
        )
        assert_frame_equal(with_banks(tenures, bets), joined)
