"""The exact engine over many compositions at once, against exact_odds and the pure-Python oracle."""

import random
from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from models.game.cards import Card
from models.game.cells import CELLS
from models.game.coup import Coup
from models.game.games import Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PAIR_BETS, PayTable, bet_result
from models.game.shoe import MIN_CARDS_FOR_A_COUP, Composition
from models.game.tableau import DrawPolicy, draw_table
from models.metrics.coup_edges import compositions
from models.odds.batch import BET_COLUMN, UNKNOWN_RANKS, house_edges
from models.odds.exact import _payoffs, exact_odds
from models.odds.kernel import outcome_weights
from models.odds.lanes import LANES, lane_weights
from models.odds.oracle import oracle_weights
from models.simulate.config import Simulation
from models.simulate.engine import simulate

HOUSE_GAMES = (Game.PUNTO_BANCO, Game.SUPER6, Game.EZ_BACCARAT)


def _part_dealt(decks: int, dealt: int, seed: int, ranks: bool = True) -> Composition:
    deck = [Card.of(rank, suit) for rank in range(1, 14) for suit in "CDHS"] * decks
    random.Random(seed).shuffle(deck)
    left = Composition.full(decks).remove(deck[:dealt])
    return left if ranks else Composition.from_values(left.values)


SHOES = [
    Composition.full(8),
    _part_dealt(8, 60, seed=1),
    _part_dealt(8, 250, seed=2, ranks=False),
    _part_dealt(8, 400, seed=3),
    _part_dealt(6, 200, seed=4),
    _part_dealt(1, 30, seed=5),
    _part_dealt(1, 44, seed=6, ranks=False),
    Composition(values=(2, 0, 1, 0, 1, 0, 1, 0, 1, 0), ranks=(0, 1, 0, 1, 0, 1, 0, 1, 0, 2, 0, 0, 0)),
]


def _arrays(compositions):
    values = np.array([c.values for c in compositions])
    ranks = np.array([c.ranks if c.ranks is not None else (UNKNOWN_RANKS,) * 13 for c in compositions])
    return values, ranks


def _expected(composition: Composition, game: Game, table: PayTable = DEFAULT_PAYTABLE) -> list[float]:
    bets = exact_odds(composition, game).bets(table)
    return [bets[bet].edge if bet in bets else np.nan for bet in BETS]


@pytest.mark.parametrize("game", HOUSE_GAMES)
def test_every_row_equals_exact_odds(game):
    values, ranks = _arrays(SHOES)
    table = PayTable(commission="0.04", pair=12, dragon7=30)
    edges = house_edges(values, ranks, game, table)
    assert edges.shape == (len(SHOES), len(BETS))
    expected = np.array([_expected(composition, game, table) for composition in SHOES])
    np.testing.assert_allclose(edges, expected, rtol=0, atol=1e-13)  # NaN where expected is NaN
    assert np.isnan(edges[2, [BETS.index(bet) for bet in PAIR_BETS]]).all()


def _oracle_edges(composition: Composition, game: Game) -> dict[str, Fraction]:
    """Every bet's house edge from the oracle's exact weights, settled cell by cell by `bet_result`."""
    weights = oracle_weights(composition, game)
    total = sum(weights.values())
    edges = {}
    for bet in BETS:
        if bet in PAIR_BETS:
            continue
        mean = sum(
            w * Fraction(bet_result(game, DEFAULT_PAYTABLE, bet, Coup(pt, bt, 2 + p3, 2 + b3)).net)
            for (pt, bt, p3, b3), w in weights.items()
        )
        edges[bet] = -mean / total
    if composition.ranks is not None:
        n = composition.cards
        pair = Fraction(sum(r * (r - 1) for r in composition.ranks), n * (n - 1))
        edges.update(dict.fromkeys(PAIR_BETS, 1 - pair * (int(DEFAULT_PAYTABLE.pair) + 1)))
    return edges


@pytest.mark.parametrize(
    ("composition", "game"),
    [
        (_part_dealt(8, 120, seed=7), Game.PUNTO_BANCO),
        (_part_dealt(8, 330, seed=8, ranks=False), Game.PUNTO_BANCO),
        (_part_dealt(6, 150, seed=9), Game.SUPER6),
        (_part_dealt(1, 35, seed=10), Game.EZ_BACCARAT),
    ],
)
def test_rows_equal_the_oracle(composition, game):
    values, ranks = _arrays([composition])
    edges = house_edges(values, ranks, game)[0]
    exact = _oracle_edges(composition, game)
    for i, bet in enumerate(BETS):
        if bet in exact:
            assert edges[i] == pytest.approx(float(exact[bet]), abs=1e-13), bet
        else:
            assert np.isnan(edges[i]), bet


def test_ranks_none_leaves_pairs_unknown_and_rows_that_recur_agree():
    values, _ = _arrays([SHOES[1], SHOES[0], SHOES[1], SHOES[0]])
    edges = house_edges(values, None, Game.PUNTO_BANCO)
    pairs = [BETS.index(bet) for bet in PAIR_BETS]
    assert np.isnan(edges[:, pairs]).all()
    np.testing.assert_array_equal(edges[0], edges[2])
    np.testing.assert_allclose(edges[1], _expected(Composition.from_values(SHOES[0].values), Game.PUNTO_BANCO))


def test_too_few_cards_for_a_coup_is_nan():
    few = Composition(values=(1, 1, 1, 0, 0, 0, 0, 1, 1, 0), ranks=(1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1))
    values, ranks = _arrays([few, SHOES[0]])
    edges = house_edges(values, ranks, Game.SUPER6)
    assert np.isnan(edges[0]).all()
    assert not np.isnan(edges[1]).any()


def test_no_rows_and_bad_arrays():
    assert house_edges(np.zeros((0, 10), np.int64), None, Game.PUNTO_BANCO).shape == (0, len(BETS))
    with pytest.raises(ValueError, match=r"values must be an int array of shape \(n, 10\)"):
        house_edges(np.zeros((2, 9), np.int64), None, Game.PUNTO_BANCO)
    with pytest.raises(ValueError, match="values counts must be 0 or more"):
        house_edges(np.array([[-1] + [4] * 9]), None, Game.PUNTO_BANCO)
    values, ranks = _arrays([SHOES[0]])
    with pytest.raises(ValueError, match="as many cards"):
        house_edges(values, ranks - 1, Game.PUNTO_BANCO)


def _plain_edges(values: np.ndarray, game: Game, table: PayTable = DEFAULT_PAYTABLE) -> np.ndarray:
    """The naive twin of `house_edges` without the pair bets: each row enumerated alone by
    `outcome_weights`, each bet's mean summed cell by cell in cell order (the engine before lanes)."""
    names, payoffs = _payoffs(game, table)
    draw = draw_table(game)
    out = np.full((len(values), len(BETS)), np.nan)
    for i, row in enumerate(values):
        if row.sum() < MIN_CARDS_FOR_A_COUP:
            continue
        weights = outcome_weights(row.astype(np.int64), draw.player, draw.banker).ravel()
        cells = (weights / weights.sum()).tolist()
        for name, pays in zip(names, payoffs.tolist(), strict=True):
            mean = 0.0
            for pay, cell in zip(pays, cells, strict=True):
                mean += pay * cell
            out[i, BET_COLUMN[name]] = -mean
    return out


def _simulated_values(game: Game, decks: int, value_only: bool) -> np.ndarray:
    """Every coup's cards left (by value) over three simulated shoes, the tens logged as `0` if `value_only`."""
    sim = Simulation(shoes=3, tables=1, shoes_per_day=3, games=(game,), decks=decks, bets=False, seed=decks)
    rounds = pl.concat([chunk.rounds for chunk in simulate(sim)]).sort("shoe_id", "round_no")
    if value_only:
        rounds = rounds.with_columns(pl.col("player_cards", "banker_cards").str.replace_all(r"[TJQK][CDHS]", "0"))
    kept, values, ranks = compositions(rounds.with_columns(shoe_day=pl.lit(None, pl.Date)))
    assert kept.all() and (ranks[-1] == UNKNOWN_RANKS).all() == value_only
    return values


@pytest.mark.parametrize(
    ("game", "decks", "value_only"),
    [(Game.PUNTO_BANCO, 8, False), (Game.PUNTO_BANCO, 8, True), (Game.SUPER6, 6, True), (Game.EZ_BACCARAT, 6, False)],
)
def test_simulated_shoes_equal_the_plain_twin_bit_for_bit(game, decks, value_only):
    values = _simulated_values(game, decks, value_only)
    assert len(values) > LANES  # blocks of lanes, the last one part full
    values = np.concatenate([values, [[1, 1, 1, 0, 0, 0, 0, 1, 1, 0]]])  # too few cards for a coup: NaN
    edges = house_edges(values, None, game)
    np.testing.assert_array_equal(edges, _plain_edges(values, game))


def _lane_compositions() -> np.ndarray:
    """Cards left (by value) of many sizes: full 8, 6 and 1 decks, shoes dealt deep, values run out."""
    rows = [Composition.full(decks).values for decks in (8, 6, 1)]
    rows += [_part_dealt(decks, dealt, seed=dealt).values for decks, dealt in ((8, 380), (6, 290), (1, 40), (1, 46))]
    rows += [(2, 0, 1, 0, 1, 0, 1, 0, 1, 0), (0, 0, 0, 0, 0, 0, 0, 0, 6, 0), (3, 3, 0, 0, 0, 0, 0, 0, 0, 0)]
    return np.array(rows, np.int64)


@pytest.mark.parametrize(
    ("game", "policy"),
    [
        (Game.PUNTO_BANCO, DrawPolicy()),
        (Game.EZ_BACCARAT, DrawPolicy()),
        (Game.CHEMIN_DE_FER, DrawPolicy(punter_on_5=0.5)),
        (Game.BACCARAT_BANQUE, DrawPolicy(punter_on_5=0.25, banker_optional=0.75)),
    ],
)
def test_lane_weights_equal_outcome_weights_bit_for_bit(game, policy):
    table = draw_table(game, policy)
    values = _lane_compositions()
    counts = np.ascontiguousarray(values.T, dtype=float)
    out = np.zeros((CELLS, len(values)))
    lane_weights(counts, table.player, table.banker, out)
    assert (counts == values.T).all()  # left as given
    for lane, row in enumerate(values):
        np.testing.assert_array_equal(out[:, lane], outcome_weights(row, table.player, table.banker).ravel())
