"""Every bet's exact edge before every coup: hand-counted shoes, the stops, and simulated shoes."""

import datetime as dt

import numpy as np
import polars as pl
import pytest

from models.game.cards import RANKS, parse_hand
from models.game.games import Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PAIR_BETS, PayTable
from models.game.shoe import Composition
from models.gaming_day import gaming_day
from models.metrics.coup_edges import COLUMNS, EDGE_COLUMNS, coup_edges
from models.odds.exact import exact_odds
from models.simulate.config import Simulation
from models.simulate.engine import simulate

START = dt.datetime(2026, 11, 1, 5, 50, tzinfo=dt.UTC)  # ten minutes before gaming day 2026-11-01 opens


def _rounds(hands, table="T1", shoe="S1", game="punto_banco", decks=8, rounds=None, start=START):
    """Rows of one shoe: (player, banker) per coup, None for a coup without cards."""
    rounds = rounds or list(range(1, len(hands) + 1))
    return pl.DataFrame(
        {
            "table_id": table,
            "shoe_id": shoe,
            "round_no": pl.Series(rounds, dtype=pl.Int32),
            "started_at": [start + dt.timedelta(minutes=i) for i in range(len(hands))],
            "game": game,
            "decks": pl.Series([decks] * len(hands), dtype=pl.Int8),
            "player_cards": [None if hand is None else hand[0] for hand in hands],
            "banker_cards": [None if hand is None else hand[1] for hand in hands],
        }
    )


def _edges_of(composition: Composition, game: Game, table: PayTable) -> list:
    bets = exact_odds(composition, game).bets(table)
    return [bets[bet].edge if bet in bets else None for bet in BETS]


def _assert_edges(row: dict, composition: Composition, game: Game = Game.PUNTO_BANCO, table=DEFAULT_PAYTABLE) -> None:
    for name, expected in zip(EDGE_COLUMNS, _edges_of(composition, game, table), strict=True):
        if expected is None:
            assert row[name] is None, name
        else:
            assert row[name] == pytest.approx(expected, abs=1e-13), name


HANDS = [("9H 3S 4D", "KC 7D"), ("TS 5D", "QD 9C"), ("AH AS", "2C 2D 5H"), ("6S 8S", "JH 3H")]


def test_a_hand_counted_shoe():
    edges = coup_edges(_rounds(HANDS))
    assert edges.columns == list(COLUMNS)
    assert edges["cards_seen"].to_list() == [0, 5, 9, 14]
    assert edges["cards_left"].to_list() == [416, 411, 407, 402]
    assert edges["gaming_day"].to_list() == [dt.date(2026, 10, 31)] * 4  # the shoe's first coup's day
    # before the third coup, counted by hand: 9 3 4 K 7 and T 5 Q 9 are out
    values = [128 - 3, 32, 32, 31, 31, 31, 32, 31, 32, 30]
    by_rank = dict.fromkeys(RANKS, 32) | {"3": 31, "4": 31, "5": 31, "7": 31, "9": 30, "T": 31, "Q": 31, "K": 31}
    third = Composition(values=tuple(values), ranks=tuple(by_rank[rank] for rank in RANKS))
    assert third == Composition.full(8).remove(parse_hand(" ".join(HANDS[0] + HANDS[1])))
    table = PayTable(commission="0.04", dragon7=30)
    edges = coup_edges(_rounds(HANDS), table)
    _assert_edges(edges.row(2, named=True), third, table=table)
    _assert_edges(edges.row(0, named=True), Composition.full(8), table=table)
    assert edges.schema["decks"] == pl.Int8 and edges.schema["cards_seen"] == pl.Int16
    assert edges.schema["cards_left"] == pl.Int16 and edges.schema["edge_panda8"] == pl.Float64


def test_value_only_cards_leave_the_pairs_unknown_once_a_ten_is_seen():
    hands = [("3 4", "2 5"), ("0 9", "7 1"), ("6 6", "8 0")]
    edges = coup_edges(_rounds(hands, game="super6", decks=6))
    # 3 4 2 5 are ranks too: the pairs are known until the first value-only ten-value card (`0`)
    assert edges["edge_player_pair"].is_null().to_list() == [False, False, True]
    assert edges["edge_banker_pair"].is_null().to_list() == [False, False, True]
    seen = parse_hand("3 4 2 5 0 9 7 1")
    left = Composition.full(6).remove(seen)
    assert left.ranks is None
    _assert_edges(edges.row(2, named=True), left, Game.SUPER6)
    assert edges["best_bet"].to_list()[2] not in PAIR_BETS


def test_a_shoe_stops_at_a_coup_without_cards_or_a_gap():
    cardless = coup_edges(_rounds([HANDS[0], HANDS[1], None, HANDS[2], HANDS[3]]))
    assert cardless["round_no"].to_list() == [1, 2, 3]  # the coup without cards: its shoe is known before it
    gap = coup_edges(_rounds(HANDS, rounds=[1, 2, 4, 5]))
    assert gap["round_no"].to_list() == [1, 2]
    late = coup_edges(_rounds(HANDS, rounds=[2, 3, 4, 5]))  # round 1 never logged
    assert late.height == 0
    both = pl.concat([_rounds(HANDS, rounds=[1, 2, 4, 5]), _rounds(HANDS, shoe="S2")])
    assert coup_edges(both.reverse()).select("shoe_id", "round_no").rows() == [
        ("S1", 1), ("S1", 2), ("S2", 1), ("S2", 2), ("S2", 3), ("S2", 4),
    ]  # fmt: skip


def test_a_shoe_stops_where_its_cards_cannot_exist():
    eleven_aces = [("AH AS", "AD AC"), ("AH AS", "AD AC"), ("AH AS", "AD AC"), ("2H 2S", "2D 2C")]
    edges = coup_edges(_rounds(eleven_aces, decks=1))
    assert edges["round_no"].to_list() == [1, 2]  # before coup 3, eight aces are out of a four-ace shoe


def test_best_bet_is_the_lowest_house_edge_and_best_edge_the_players():
    # a single deck dealt down to its jacks, queens and kings: every coup left is a tie on 0
    ranks = [rank for rank in RANKS if rank not in "JQK"]
    cards = [rank + suit for rank in ranks for suit in "CDHS"]
    hands = [(f"{a} {b}", f"{c} {d}") for a, b, c, d in zip(*[iter(cards)] * 4, strict=True)]
    edges = coup_edges(_rounds([*hands, ("JH JS", "QH QS")], decks=1))
    last = edges.row(-1, named=True)
    assert last["cards_left"] == 12
    assert (last["edge_banker"], last["edge_player"], last["edge_tie"]) == pytest.approx((0, 0, -8))
    assert last["edge_egalite_0"] == pytest.approx(-150) and last["edge_egalite_5"] == pytest.approx(1)
    assert last["edge_player_pair"] == pytest.approx(1 - 12 * (3 * 4 * 3) / (12 * 11))  # 3 ranks of 4 cards
    assert last["best_bet"] == "egalite_0" and last["best_edge"] == pytest.approx(150)
    matrix = edges.select(EDGE_COLUMNS).to_numpy()
    assert edges["best_bet"].to_list() == [BETS[i] for i in np.nanargmin(matrix, axis=1)]
    np.testing.assert_allclose(edges["best_edge"].to_numpy(), -np.nanmin(matrix, axis=1))
    assert edges["best_bet"][0] == "banker" and edges["best_edge"][0] == pytest.approx(-0.0101, abs=1e-4)


def test_other_games_no_rows_and_bad_cards():
    assert coup_edges(_rounds(HANDS, game="chemin_de_fer")).height == 0
    empty = coup_edges(_rounds(HANDS).head(0))
    assert empty.height == 0 and empty.columns == list(COLUMNS)
    with pytest.raises(ValueError, match="cannot read the card 'XX'"):
        coup_edges(_rounds([("9H XX", "KC 7D")]))


def test_every_coup_of_simulated_shoes_equals_exact_odds_by_hand():
    games = (Game.PUNTO_BANCO, Game.SUPER6, Game.EZ_BACCARAT, Game.CHEMIN_DE_FER)
    sim = Simulation(shoes=8, tables=4, shoes_per_day=2, games=games, decks=6, bets=False, seed=3)
    rounds = pl.concat([chunk.rounds for chunk in simulate(sim)])
    edges = coup_edges(rounds.sample(fraction=1.0, shuffle=True, seed=1))
    assert edges.equals(coup_edges(rounds, batch_rows=100))  # whole shoes a hundred rows or so at a time
    assert set(edges["game"]) == {"punto_banco", "super6", "ez_baccarat"}
    house = rounds.filter(pl.col("game") != "chemin_de_fer")
    assert edges.height == house.height  # every coup of a fully logged shoe
    days = house.group_by("table_id", "shoe_id").agg(gaming_day(pl.col("started_at")).min())
    joined = edges.join(days, on=["table_id", "shoe_id"])
    assert (joined["gaming_day"] == joined["gaming_day_right"]).all()
    assert edges.select("gaming_day", "table_id", "shoe_id", "round_no").rows() == sorted(
        edges.select("gaming_day", "table_id", "shoe_id", "round_no").rows()
    )
    for (table, shoe), coups in house.sort("round_no").group_by("table_id", "shoe_id", maintain_order=True):
        game = Game(coups["game"][0])
        composition = Composition.full(6)
        mine = edges.filter((pl.col("table_id") == table) & (pl.col("shoe_id") == shoe))
        hands = coups.select("player_cards", "banker_cards").rows()
        for row, (player, banker) in zip(mine.iter_rows(named=True), hands, strict=True):
            assert row["cards_seen"] == 312 - composition.cards
            _assert_edges(row, composition, game)
            composition = composition.remove(parse_hand(player) + parse_hand(banker))
