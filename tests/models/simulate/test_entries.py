"""The compiled pass over a chunk's wagers (models/simulate/entries.py) against its plain twin in
numpy sorts and group-bys, on dealt chunks of every game and on shuffled made-up ones; and the
vectorised chips of the count-room slips against the amount-by-amount rule."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from models.game.games import Game
from models.money_units import CENT_SCALE, MONEY_SCALE, arrow_units
from models.simulate.config import Population, Simulation
from models.simulate.count import TRAY, _codes, _runs, _times, chips
from models.simulate.engine import simulate
from models.simulate.entries import coup_entries, coup_order

GAP = 20 * 60 * 1_000_000


def entries_naively(order, coup_keys, table_day, time, wagers, tables, gap) -> dict[str, np.ndarray]:
    """Each wager's coup by a sorted key, entries by a sort of the wagers on (coup, player), sittings by
    a sort of the entries on (table-day, player, coup)."""
    r_shoe, r_table, r_round = (np.asarray(key, np.int64) for key in coup_keys)
    b_shoe, b_table, b_round, b_player, cents, payout, net = (np.asarray(column, np.int64) for column in wagers)
    n_coups = len(order)
    rank = np.empty(n_coups, np.int64)
    rank[order] = np.arange(n_coups)
    width = int(r_round.max()) + 2 if n_coups else 1
    key = (r_shoe * tables + r_table) * width + r_round
    by_key = np.argsort(key)
    b_rank = rank[by_key[np.searchsorted(key[by_key], (b_shoe * tables + b_table) * width + b_round)]]
    by_bet = np.lexsort((b_player, b_rank))
    starts = _runs(b_rank[by_bet], b_player[by_bet])
    sums = lambda values: np.add.reduceat(values[by_bet], starts) if len(starts) else np.zeros(0, np.int64)  # noqa: E731
    entry_rank, entry_player = b_rank[by_bet][starts], b_player[by_bet][starts]
    entry_net = sums(net)
    coup_entries = np.searchsorted(entry_rank, np.arange(n_coups + 1))
    coup_net = np.zeros(n_coups, np.int64)
    with_bets = np.flatnonzero(np.diff(coup_entries) > 0)
    if len(with_bets):
        coup_net[with_bets] = np.add.reduceat(entry_net, coup_entries[with_bets])
    by_player = np.lexsort((entry_rank, entry_player, table_day[entry_rank]))
    e_time = time[entry_rank[by_player]]
    e_day = table_day[entry_rank[by_player]]
    new = np.ones(len(by_player), bool)
    new[1:] = (
        (entry_player[by_player][1:] != entry_player[by_player][:-1])
        | (e_day[1:] != e_day[:-1])
        | (e_time[1:] - e_time[:-1] > gap)
    )
    first, last = np.zeros(len(by_player), bool), np.zeros(len(by_player), bool)
    first[by_player] = new
    last[by_player] = np.r_[new[1:], True] if len(new) else new
    return {
        "coup_entries": coup_entries,
        "coup_net": coup_net,
        "player": entry_player,
        "wager": sums(cents),
        "payout": sums(payout),
        "first": first,
        "last": last,
    }


def _same(fast, plain: dict[str, np.ndarray]) -> None:
    for name, expected in plain.items():
        got = getattr(fast, name)
        assert got.dtype == (np.bool_ if name in ("first", "last") else np.int64), name
        np.testing.assert_array_equal(got, expected, err_msg=name)


def _inputs(sim: Simulation, chunk, first_day: int):
    rounds, bets = chunk.rounds_table, chunk.bets_table
    r_table, r_shoe, r_round = _codes(rounds["table_id"]), _codes(rounds["shoe_id"]), _codes(rounds["round_no"])
    r_time = _times(rounds["started_at"])
    table_day = (first_day + r_shoe // sim.shoes_per_day) * sim.tables + r_table
    order = coup_order(table_day, r_time)
    assert (order == np.lexsort((r_time, table_day))).all()
    payout = arrow_units(bets["payout"], MONEY_SCALE)
    wagers = (_codes(bets["shoe_id"]), _codes(bets["table_id"]), _codes(bets["round_no"]), _codes(bets["player_id"]),
              arrow_units(bets["amount"], CENT_SCALE), payout, -payout)  # fmt: skip
    return order, (r_shoe, r_table, r_round), table_day[order], r_time[order], wagers


@pytest.mark.parametrize(
    "sim",
    [
        Simulation(shoes=120, tables=6, shoes_per_day=5, games=tuple(Game), seed=4),
        Simulation(shoes=80, tables=3, seed=9, population=Population(advantage_share=0.3, seat_occupancy=0.9)),
    ],
)
def test_the_pass_equals_its_plain_twin_on_dealt_chunks(sim):
    for chunk in simulate(sim, chunk_coups=3_000):
        args = _inputs(sim, chunk, chunk.days[0])
        _same(coup_entries(*args, sim.tables, GAP), entries_naively(*args, sim.tables, GAP))


@pytest.mark.parametrize("seed", range(40))
def test_the_pass_equals_its_plain_twin_on_shuffled_rows(seed):
    rng = np.random.default_rng(seed)
    tables, shoes, rounds = int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 9))
    keys = np.array([(s, t, r) for s in range(shoes) for t in range(tables) for r in range(1, rounds + 1)])
    keys = keys[rng.random(len(keys)) < 0.8]
    keys = keys[rng.permutation(len(keys))]
    table_day = keys[:, 0] // 2 * tables + keys[:, 1]
    time = rng.integers(0, 4, len(keys)) * GAP // 2  # ties, gaps at the limit and past it
    order = coup_order(table_day, time)
    assert (order == np.lexsort((time, table_day))).all()
    n_bets = int(rng.integers(0, 4 * len(keys) + 1))
    picked = keys[rng.integers(0, len(keys), n_bets)] if len(keys) else np.zeros((0, 3), np.int64)
    wagers = (picked[:, 0], picked[:, 1].astype(np.int32), picked[:, 2].astype(np.int16),
              rng.integers(0, 6, n_bets), rng.integers(1, 500, n_bets), rng.integers(-900, 900, n_bets),
              rng.integers(-900, 900, n_bets))  # fmt: skip
    args = (order, tuple(keys.T), table_day[order], time[order], wagers, tables, GAP)
    _same(coup_entries(*args), entries_naively(*args))


def test_a_wager_without_its_coup_is_refused():
    keys = (np.array([0, 0]), np.array([0, 0]), np.array([1, 2]))
    order = np.arange(2)
    wager = lambda round_no: (np.array([0]), np.array([0]), np.array([round_no]), *(np.array([1]),) * 4)  # noqa: E731
    coup_entries(order, keys, np.zeros(2, np.int64), np.arange(2), wager(2), 1, GAP)
    for missing in (3, 0):
        with pytest.raises(ValueError, match="not among the rounds"):
            coup_entries(order, keys, np.zeros(2, np.int64), np.arange(2), wager(missing), 1, GAP)


def chips_naively(cents: int) -> str:
    counts, left = {}, cents
    for value, cap in reversed(TRAY):
        worth = int(Decimal(value) * 100)
        counts[value] = min(cap, left // worth)
        left -= counts[value] * worth
    for value, _ in TRAY:
        worth = int(Decimal(value) * 100)
        more, left = divmod(left, worth)
        counts[value] += more
    counts[Decimal("0.01")] = left
    return " ".join(f"{value}x{counts[value]}" for value in sorted(counts, reverse=True) if counts[value])


def test_the_chips_of_many_amounts_are_the_amount_by_amount_rule():
    rng = np.random.default_rng(3)
    cents = np.r_[0, 1, 25, 100_000_00, 123_456_78, rng.integers(0, 50_000_000, 2_000), rng.integers(0, 3_000, 500)]
    assert chips(cents).to_list() == [chips_naively(int(value)) for value in cents]
