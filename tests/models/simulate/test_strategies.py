"""The simulator plays the solved games: card-indexed draws, strategy players, who the punter is."""

from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from models.game.games import Game
from models.game.tableau import DrawPolicy, draw_table
from models.gametheory.strategy import SHOWN_NATURAL, SHOWN_STOOD, baccarat_banque, chemin_de_fer
from models.simulate import advantage
from models.simulate.config import Population, Simulation
from models.simulate.dealing import B1, CARD_VALUE, NO_CARD, P1, Q1
from models.simulate.engine import deal_batch, simulate
from models.simulate.frames import ShoeBatch
from models.simulate.players import STRATEGY_SESSION_MINUTES, draw_players
from models.simulate.reference import reference_shoe
from models.simulate.seating import plan_day
from models.simulate.strategies import PLAYS_EQUILIBRIUM, TABLE, TablePlay, by_total, draws
from tests.models.simulate.test_dealing import _hands

SOLVED = chemin_de_fer(8, Fraction(1, 20))  # the table's 8 decks and 5% levy on bank wins


def _deal(sim, game, shoes):
    zeros = np.zeros(len(shoes), np.int64)
    return deal_batch(sim, ShoeBatch(game, np.asarray(shoes, np.int64), zeros, zeros, zeros))


def _values(dealt, first):
    return CARD_VALUE[np.maximum(dealt.cards[:, first : first + 3], 0)], dealt.cards[:, first + 2] != NO_CARD


@pytest.mark.parametrize("game", list(Game))
def test_a_fixed_policy_is_the_tableau_filled_out_by_total(game):
    policy = DrawPolicy(punter_on_5=0.5, banker_optional=0.25)
    punter, banker = by_total(game, policy)
    table = draw_table(game, policy)
    for a in range(10):
        for b in range(10):
            assert (punter[:, a, b] == table.player[(a + b) % 10]).all()
            assert (table.banker[(a + b) % 10] == banker[a, b, :SHOWN_NATURAL, :].T).all()
            assert (banker[a, b, SHOWN_NATURAL] == 0).all()  # the larger stake's natural: the banker stands


def test_chemin_de_fer_under_equilibrium_draws_at_every_free_cell_with_the_strategys_chance():
    sim = Simulation(shoes=1, decks=8, games=(Game.CHEMIN_DE_FER,), punter_equilibrium=True, banker_equilibrium=True)
    dealt = _deal(sim, Game.CHEMIN_DE_FER, range(1500))
    player, player_drew = _values(dealt, P1)
    banker, banker_drew = _values(dealt, B1)
    live = ((player[:, 0] + player[:, 1]) % 10 < 8) & ((banker[:, 0] + banker[:, 1]) % 10 < 8)
    chance = SOLVED.punter[player[:, 0], player[:, 1]]
    pure = live & ((chance == 0) | (chance == 1))
    assert (player_drew[pure] == (chance[pure] == 1)).all()
    mixed = live & (chance > 0) & (chance < 1)  # the punter's 1 + 4 (and 4 + 1)
    p = SOLVED.punter[1, 4]
    n, drew = mixed.sum(), player_drew[mixed].sum()
    assert n > 1000 and abs(drew - n * p) < 4 * np.sqrt(n * p * (1 - p)), (n, drew / n, p)
    column = np.where(player_drew, player[:, 2], SHOWN_STOOD)
    wanted = SOLVED.banker[banker[:, 0], banker[:, 1], column]
    assert ((wanted == 0) | (wanted == 1))[live].all()  # B3 at 8 decks: the banker's play is pure
    assert (banker_drew[live] == (wanted[live] == 1)).all()


def test_the_kernel_deals_card_indexed_cells_exactly_as_the_reference():
    sim = Simulation(shoes=1, decks=6, games=(Game.CHEMIN_DE_FER,), punter_equilibrium=True,
                     policy=DrawPolicy(banker_optional=0.5))  # fmt: skip
    table = sim.draws(Game.CHEMIN_DE_FER)
    shoes = [0, 7, 123_456_789]
    dealt = _deal(sim, Game.CHEMIN_DE_FER, shoes)
    offset = 0
    for i, shoe in enumerate(shoes):
        cards = (table.punter[TABLE, 0, 0], table.banker[TABLE, 0])
        reference = reference_shoe(sim.seed, shoe, 6, Game.CHEMIN_DE_FER, cards=cards)
        assert dealt.n_coups[i] == len(reference)
        for k, (player, banker) in enumerate(reference):
            row = dealt.cards[offset + k]
            assert (_hands(row, 0), _hands(row, 3)) == (player, banker)
        offset += len(reference)


@pytest.mark.parametrize("kind", ["nash", "independent", "correlated"])
def test_banque_under_a_solution_holds_its_arrays_at_each_theta(kind):
    table = draws(Game.BACCARAT_BANQUE, TablePlay(banker_equilibrium=True, banque_solution=kind), 8, Fraction(1, 20))
    solved = baccarat_banque(Fraction(7, 10), kind)  # every solution exists at 7/10
    assert table.banker.shape[1] == 5  # theta 1/2, 6/10, ..., 9/10
    assert (table.banker[TABLE, 2, 3, 3] == solved.banker[6]).all()
    assert (table.punter[TABLE, 2, :, 2, 3] == 1.0).all()  # the punters still play the table's fixed draw on 5
    assert (table.punter[PLAYS_EQUILIBRIUM, 2] == solved.punters).all()
    if kind == "independent":  # none at 1/2: the correlated solution in its place
        assert (table.banker[TABLE, 0, 3, 3] == baccarat_banque(Fraction(1, 2), "correlated").banker[6]).all()


def test_banque_under_equilibrium_the_banker_follows_the_solution_where_it_is_pure():
    sim = Simulation(shoes=1, decks=8, games=(Game.BACCARAT_BANQUE,), banker_equilibrium=True)
    dealt = _deal(sim, Game.BACCARAT_BANQUE, range(200))
    banker, banker_drew = _values(dealt, B1)
    total = (banker[:, 0] + banker[:, 1]) % 10
    shown = [np.where(drew, values[:, 2], np.where((values[:, 0] + values[:, 1]) % 10 >= 8, SHOWN_NATURAL,
             SHOWN_STOOD)) for values, drew in (_values(dealt, P1), _values(dealt, Q1))]  # fmt: skip
    # cells every theta's solution plays the same pure way, whichever hand the larger stake is on
    solutions = np.stack([baccarat_banque(Fraction(k, 10)).banker for k in range(5, 10)])
    cell = solutions[:, total, shown[0], shown[1]], solutions[:, total, shown[1], shown[0]]
    agreed = np.all([(c == c[0]) & ((c[0] == 0) | (c[0] == 1)) for c in cell], axis=(0, 1)) & (cell[0][0] == cell[1][0])
    live = agreed & (total < 8)
    assert live.sum() > 5000
    assert (banker_drew[live] == (cell[0][0][live] == 1)).all()


POINTS = dict(zip("A23456789TJQK", [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], strict=True))


def _two_card_total(column: str) -> pl.Expr:
    cards = pl.col(column).str.split(" ").list
    return (cards.get(0).str.head(1).replace_strict(POINTS) + cards.get(1).str.head(1).replace_strict(POINTS)) % 10


def _punters_on_5(sim):
    """Every Chemin de Fer coup where the punter held 5 and could choose: whether he drew, and his kind.

    The punter is the largest Player stake, the first logged of equals, as marts.decisions reads it."""
    chunks = list(simulate(sim))
    kinds = draw_players(sim).frame().select("player_id", "kind")
    punters = (
        pl.concat([chunk.bets for chunk in chunks])
        .with_row_index("order")
        .filter(pl.col("bet") == "player")
        .sort("amount", "order", descending=[True, False])
        .group_by("table_id", "shoe_id", "round_no")
        .first()
        .join(kinds, on="player_id")
    )
    return (
        pl.concat([chunk.rounds for chunk in chunks])
        .join(punters, on=["table_id", "shoe_id", "round_no"])
        .filter(_two_card_total("player_cards") == 5, _two_card_total("banker_cards") < 8)
        .with_columns(drew=pl.col("player_cards").str.split(" ").list.len() == 3)
    )


def test_strategy_players_play_their_own_draw_on_5_when_they_hold_the_player_hand():
    sim = Simulation(shoes=400, seed=8, games=(Game.CHEMIN_DE_FER,), tables=2, shoes_per_day=8,
                     population=Population(strategy_players=2))  # fmt: skip
    pool = draw_players(sim).frame()["kind"].value_counts()
    assert dict(zip(pool["kind"], pool["count"], strict=True)).keys() >= set(advantage.STRATEGY_KINDS)
    assert (pool.filter(pl.col("kind").is_in(advantage.STRATEGY_KINDS))["count"] == 2).all()
    on_5 = _punters_on_5(sim)
    by_kind = {kind: frame["drew"] for (kind,), frame in on_5.group_by("kind")}
    assert by_kind["draws_on_5"].len() >= 5 and by_kind["draws_on_5"].all()
    assert by_kind["stands_on_5"].len() >= 5 and not by_kind["stands_on_5"].any()
    assert by_kind["ordinary"].all()  # the table's fixed play: draw on 5
    assert by_kind["equilibrium_player"].len() >= 5  # on 1 + 4 he mixes, on 0 + 5 draws, on 2 + 3 stands


def test_the_equilibrium_player_plays_the_solved_fives_and_holds_the_bank_by_the_solution():
    sim = Simulation(shoes=400, seed=8, games=(Game.CHEMIN_DE_FER,), tables=2, shoes_per_day=8,
                     population=Population(strategy_players=2))  # fmt: skip
    on_5 = _punters_on_5(sim).filter(pl.col("kind") == "equilibrium_player")
    cards = pl.col("player_cards").str.split(" ").list
    first, second = (cards.get(i).str.head(1).replace_strict(POINTS) for i in range(2))
    chance = on_5.select(first.alias("a"), second.alias("b")).rows()
    wanted = [SOLVED.punter[a, b] for a, b in chance]
    assert all(drew == (p == 1) for drew, p in zip(on_5["drew"], wanted, strict=True) if p in (0, 1))
    # as the bank's holder (his `banker` wager) the solution's cells, anyone else the table's tableau
    chunks = list(simulate(sim))
    kinds = draw_players(sim).frame().select("player_id", "kind")
    holders = pl.concat([c.bets for c in chunks]).filter(pl.col("bet") == "banker").join(kinds, on="player_id")
    coups = pl.concat([c.rounds for c in chunks]).join(holders, on=["table_id", "shoe_id", "round_no"])
    fixed = by_total(Game.CHEMIN_DE_FER)[1]
    checked = {False: 0, True: 0}
    for player, banker, kind in coups.select("player_cards", "banker_cards", "kind").iter_rows():
        p, b = ([POINTS[card[0]] for card in hand.split(" ")] for hand in (player, banker))
        if (p[0] + p[1]) % 10 >= 8 or (b[0] + b[1]) % 10 >= 8:
            continue
        column = p[2] if len(p) == 3 else SHOWN_STOOD
        solved = kind == "equilibrium_player"
        chance = SOLVED.banker[b[0], b[1], column] if solved else fixed[b[0], b[1], column, SHOWN_STOOD]
        assert (len(b) == 3) == (chance == 1), (player, banker, kind)
        checked[solved] += 1
    assert checked[True] >= 50 and checked[False] >= 1000


def test_theta_is_the_larger_hands_share_on_the_grid_and_one_half_when_nobody_bet():
    from models.simulate.kernels import _theta_slot

    assert [_theta_slot(large, small, 5) for large, small in ((0, 0), (50, 50), (66, 34), (100, 0), (84, 16))] == [
        0, 0, 2, 4, 3,
    ]  # fmt: skip
    assert _theta_slot(100, 0, 1) == 0  # one slot: Chemin de Fer, or no solution needed


def test_banque_punters_under_nash_draw_on_5_with_the_solutions_chance():
    sim = Simulation(shoes=600, seed=4, games=(Game.BACCARAT_BANQUE,), tables=2, shoes_per_day=10,
                     punter_equilibrium=True)  # fmt: skip
    chunks = list(simulate(sim))
    stakes = (
        pl.concat([c.bets for c in chunks])
        .group_by("table_id", "shoe_id", "round_no")
        .agg(*(pl.col("amount").filter(pl.col("side") == s).sum().cast(pl.Float64).alias(f"s{s}") for s in (1, 2)))
        .with_columns(theta=pl.max_horizontal("s1", "s2") / (pl.col("s1") + pl.col("s2")))
    )
    coups = pl.concat([c.rounds for c in chunks]).join(stakes, on=["table_id", "shoe_id", "round_no"])
    coups = coups.filter(pl.col("theta") < 0.85, _two_card_total("banker_cards") < 8)  # 9/11 for both up to 8/10
    drew = pl.concat(
        coups.filter(_two_card_total(hand) == 5).select(drew=pl.col(hand).str.split(" ").list.len() == 3)
        for hand in ("player_cards", "player2_cards")
    )["drew"]
    p = baccarat_banque(Fraction(1, 2)).punters[0, 1, 4]
    assert p == pytest.approx(9 / 11)
    n = drew.len()
    assert n > 1200 and abs(drew.sum() - n * p) < 4 * np.sqrt(n * p * (1 - p)), (n, drew.mean(), p)


def test_a_simulation_refuses_an_unknown_solution_and_a_negative_count_of_strategy_players():
    with pytest.raises(ValueError, match="unknown Baccarat Banque solution 'best'"):
        Simulation(shoes=1, banque_solution="best")
    with pytest.raises(ValueError, match="strategy_players must be 0 or more"):
        Population(strategy_players=-1)


#: Five days of three tables: one of a fixed game, then Chemin de Fer and Baccarat Banque.
REGULARS = Simulation(shoes=5 * 3 * 6, seed=11, tables=3, shoes_per_day=6,
                      games=(Game.PUNTO_BANCO, Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE),
                      population=Population(strategy_players=1))  # fmt: skip


def _strategists(sim):
    pool = draw_players(sim)
    return pool, np.flatnonzero(np.isin(pool.frame()["kind"], advantage.STRATEGY_KINDS))


def test_strategy_players_come_every_day_for_long_sessions_only_to_the_free_games_tables():
    pool, strategists = _strategists(REGULARS)
    assert len(strategists) == 3 and (pool.daily_chance[strategists] == 1.0).all()
    assert (pool.session_seconds[strategists] == 60 * STRATEGY_SESSION_MINUTES).all()
    plans = pl.concat([plan_day(REGULARS, pool, day).frame() for day in range(REGULARS.days)])
    theirs = plans.filter(pl.col("player").is_in(strategists))
    assert set(theirs["table"]) == {1, 2}  # Chemin de Fer's and Baccarat Banque's, never Punto Banco's
    assert theirs.group_by("player").agg(pl.col("day").n_unique())["day"].to_list() == [REGULARS.days] * 3
    assert plans.filter(~pl.col("player").is_in(strategists))["table"].n_unique() == 3  # the rest anywhere
    # with no free game in the run they sit where anyone does
    fixed = Simulation(shoes=2 * 8, seed=11, tables=2, shoes_per_day=8, population=Population(strategy_players=1))
    pool, strategists = _strategists(fixed)
    plans = pl.concat([plan_day(fixed, pool, day).frame() for day in range(fixed.days)])
    assert plans.filter(pl.col("player").is_in(strategists))["table"].n_unique() == 2


def test_a_seated_strategy_player_takes_the_hand_with_the_largest_stake():
    chunks = list(simulate(REGULARS))
    kinds = draw_players(REGULARS).frame().select("player_id", "kind")
    wagers = (
        pl.concat([c.bets for c in chunks])
        .filter(pl.col("bet") == "player", pl.col("table_id") != "T01")
        .join(kinds, on="player_id")
        .with_columns(strategist=pl.col("kind").is_in(advantage.STRATEGY_KINDS))
    )
    hands = wagers.group_by("table_id", "shoe_id", "round_no", "side").agg(
        claimed=pl.col("strategist").any(),
        theirs=pl.col("amount").filter(pl.col("strategist")).max(),
        others=pl.col("amount").filter(~pl.col("strategist")).max(),
    )
    claimed = hands.filter("claimed")
    # on a hand a strategy player bets, his stake tops every other: he is its punter
    assert (claimed["others"].is_null() | (claimed["theirs"] > claimed["others"])).all()
    coups = pl.concat([c.rounds for c in chunks]).filter(pl.col("table_id") != "T01")
    keys = ["table_id", "shoe_id", "round_no"]
    held = coups.with_columns(held=pl.struct(keys).is_in(claimed.select(pl.struct(keys)).to_series().implode()))
    share = held.group_by(pl.col("game").cast(pl.String)).agg(pl.col("held").mean())
    # three players, on two tables of seven seats: a tenth of the coups or more in each game
    assert share.height == 2 and (share["held"] > 0.1).all(), share
