"""Kernel arrays to round-log tables in the data contract (docs/round-log-format.md): rounds and bets, as Arrow.

Identifier columns (tables, shoes, dealers, seats, bets, players, outcomes) are dictionary-encoded
over labels known in advance, so neither building nor writing them formats or hashes a string per
row; `as_frame` decodes them to the contract's plain text.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np
import polars as pl
import pyarrow as pa

from models.game.games import Game
from models.game.paytable import BETS, PayTable, settlement_grid
from models.money_units import CENT_SCALE, MONEY_SCALE, decimal64
from models.simulate.config import MAX_SEATS, Simulation
from models.simulate.dealing import B1, P1, Q1
from models.simulate.kernels import dense_bets, dense_coups, hand_text
from models.simulate.players import pool_size

OUTCOME_LABELS = pa.array(["B", "P", "T"])
BET_LABELS = pa.array(BETS)
SEAT_LABELS = pa.array([str(seat) for seat in range(1, MAX_SEATS + 1)])
GAME_LABELS = pa.array([game.value for game in Game])
GAME_INDEX = {game: index for index, game in enumerate(Game)}


@lru_cache(maxsize=16)
def _labels(prefix: str, first: int, stop: int, width: int) -> pa.Array:
    """Identifiers like T01 or PL00042 for the numbers first..stop - 1."""
    return pa.array([f"{prefix}{number:0{width}d}" for number in range(first, stop)])


@dataclass(frozen=True)
class Labels:
    """The dictionaries of one chunk's identifier columns, shared by its batches."""

    tables: pa.Array
    dealers: pa.Array
    players: pa.Array
    shoes: pa.Array  # shoe ids of the chunk's days, shoes_per_day per day
    first_day: int
    shoes_per_day: int

    def shoe_index(self, batch: ShoeBatch) -> np.ndarray:
        """Each shoe's place in `shoes`."""
        return ((batch.day - self.first_day) * self.shoes_per_day + batch.k).astype(np.int32)

    @classmethod
    def of(cls, sim: Simulation, first_day: int, last_day: int) -> Labels:
        dates = [sim.start + dt.timedelta(days=day) for day in range(first_day, last_day + 1)]
        shoes = pa.array([f"{date:%Y%m%d}-{k + 1:02d}" for date in dates for k in range(sim.shoes_per_day)])
        return cls(
            tables=_labels("T", 1, sim.tables + 1, 2),
            dealers=_labels("D", 1, sim.tables * sim.dealers_per_table + 1, 3),
            players=_labels("PL", 0, pool_size(sim), 5),
            shoes=shoes,
            first_day=first_day,
            shoes_per_day=sim.shoes_per_day,
        )


@dataclass(frozen=True)
class ShoeBatch:
    """The shoes of one kernel call (one game), in shoe order, and where each was dealt."""

    game: Game
    shoes: np.ndarray
    day: np.ndarray
    table: np.ndarray
    k: np.ndarray  # shoe of the table's day, from 0


@dataclass(frozen=True)
class Dealt:
    """What the kernel dealt for a batch, trimmed to the coups and bets that happened."""

    n_coups: np.ndarray
    shoe: np.ndarray  # index of each coup's shoe in the batch
    round_no: np.ndarray
    cards: np.ndarray  # (coups, CARD_SLOTS)
    outcomes: np.ndarray  # Banker, Player or Tie against the (first) Player hand
    seconds: np.ndarray
    holder: np.ndarray
    bet_shoe: np.ndarray
    bet_round_no: np.ndarray
    bet_seat: np.ndarray
    bet_code: np.ndarray
    bet_cents: np.ndarray
    bet_player: np.ndarray
    bet_side: np.ndarray
    bet_payout: np.ndarray  # cents x the settlement grid's units


def trim(raw: tuple) -> Dealt:
    """Keep the used part of the kernel's fixed per-shoe slots, packed (reads only the slots in use)."""
    coups, n_coups, bets, n_bets = raw
    shoe, round_no, seconds, outcomes, holder, cards = dense_coups(*coups, n_coups, np.cumsum(n_coups) - n_coups)
    bet_shoe, bet_round_no, seat, code, cents, player, side, payout = dense_bets(
        bets, n_bets, np.cumsum(n_bets) - n_bets
    )
    return Dealt(
        n_coups=n_coups,
        shoe=shoe,
        round_no=round_no,
        cards=cards,
        outcomes=outcomes,
        seconds=seconds,
        holder=holder,
        bet_shoe=bet_shoe,
        bet_round_no=bet_round_no,
        bet_seat=seat,
        bet_code=code,
        bet_cents=cents,
        bet_player=player,
        bet_side=side,
        bet_payout=payout,
    )


def day_opening(sim: Simulation, day: int) -> int:
    """Epoch seconds at which gaming day `day` of the run opens, in the run's time zone."""
    date = sim.start + dt.timedelta(days=day)
    opening = dt.datetime.combine(date, dt.time(sim.day_start_hour), tzinfo=ZoneInfo(sim.timezone))
    return int(opening.timestamp())


def _dictionary(labels: pa.Array, indices: np.ndarray) -> pa.DictionaryArray:
    """Text column as indices into labels known in advance: no string is built or hashed per row.

    The indices are not checked against the labels (a tenth of the table's cost): they come from the
    kernel's bounded codes, and the tests compare every column with labels built row by row.
    """
    return pa.DictionaryArray.from_arrays(pa.array(indices), labels, safe=False)


def _hand(cards: np.ndarray, first: int) -> pa.StringArray:
    """The hands in cards[:, first:first + 3] as logged text, built straight into Arrow buffers."""
    offsets, data = hand_text(cards, first)
    return pa.StringArray.from_buffers(len(cards), pa.py_buffer(offsets), pa.py_buffer(data))


@lru_cache(maxsize=64)
def net_units(game: Game, table: PayTable) -> tuple[np.ndarray, int]:
    """The settlement grid's net results as integers in 10**-places units, and `places`."""
    net, _ = settlement_grid(game, table)
    places = max(0, *(-value.as_tuple().exponent for value in net.ravel()))
    if CENT_SCALE + places > MONEY_SCALE:
        raise ValueError(
            f"the pay table's results need {places} decimal places per unit staked, at most {MONEY_SCALE - CENT_SCALE}"
        )
    scaled = np.vectorize(lambda value: int(value.scaleb(places)), otypes=[np.int64])(net)
    return scaled.reshape(len(BETS), -1, 2), places


def _shoe_starts(sim: Simulation, batch: ShoeBatch, last_micros: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Epoch microseconds each shoe starts: its day's opening plus the shoes its table dealt before it.

    Whole microseconds keep the sums exact, so a shoe's start does not depend on its batch.
    """
    duration = last_micros + round(sim.coup_seconds * 1e6)
    before = np.cumsum(duration) - duration
    first_of_day = np.r_[True, (batch.day[1:] != batch.day[:-1]) | (batch.table[1:] != batch.table[:-1])]
    group_start = np.maximum.accumulate(np.where(first_of_day, np.arange(len(duration)), 0))
    days, day_of_shoe = np.unique(batch.day, return_inverse=True)  # a time-zone lookup per day, not per shoe
    openings = np.array([day_opening(sim, int(day)) * 1_000_000 for day in days], dtype=np.int64)[day_of_shoe]
    return openings + before - before[group_start], openings


def rounds_table(sim: Simulation, batch: ShoeBatch, dealt: Dealt, labels: Labels) -> pa.Table:
    """One row per coup, columns as docs/round-log-format.md's rounds (identifiers dictionary-encoded)."""
    n, shoe = dealt.n_coups, dealt.shoe
    micros = np.round(dealt.seconds * 1e6).astype(np.int64)
    shoe_start, opening = _shoe_starts(sim, batch, micros[np.cumsum(n) - 1])
    into_day = np.take(shoe_start - opening, shoe) + micros
    started = np.take(opening, shoe) + into_day
    # dealers rotate at every shift: per shoe the table's first dealer of its day, per coup the shift
    shifts_per_day = int(np.ceil(24 / sim.shift_hours))
    first_dealer = batch.table * sim.dealers_per_table + batch.day * shifts_per_day
    shift = into_day // round(sim.shift_hours * 3600 * 1e6)
    dealer = (np.take(first_dealer, shoe) + shift) % (sim.tables * sim.dealers_per_table)
    rows = len(shoe)
    three_hands = batch.game.second_player_hand
    return pa.table(
        {
            "table_id": _dictionary(labels.tables, np.take(batch.table.astype(np.int32), shoe)),
            "shoe_id": _dictionary(labels.shoes, np.take(labels.shoe_index(batch), shoe)),
            "round_no": dealt.round_no,
            "started_at": pa.Array.from_buffers(pa.timestamp("us", sim.timezone), rows, [None, pa.py_buffer(started)]),
            "player_cards": _hand(dealt.cards, P1),
            "banker_cards": _hand(dealt.cards, B1),
            "game": _dictionary(GAME_LABELS, np.full(rows, GAME_INDEX[batch.game], np.int8)),
            "decks": np.full(rows, sim.decks, np.int8),
            "dealer_id": _dictionary(labels.dealers, dealer.astype(np.int32)),
            "bank_holder": _dictionary(SEAT_LABELS, dealt.holder),
            "player2_cards": _hand(dealt.cards, Q1) if three_hands else pa.nulls(rows, pa.string()),
            "outcome": _dictionary(OUTCOME_LABELS, dealt.outcomes),
        }
    )


def bets_table(sim: Simulation, batch: ShoeBatch, dealt: Dealt, labels: Labels) -> pa.Table:
    """One row per wager, columns as docs/round-log-format.md's bets, with the payout the table made."""
    _, places = net_units(batch.game, sim.paytable)
    to_money = 10 ** (MONEY_SCALE - CENT_SCALE - places)  # cents x grid units to the contract's money scale
    return pa.table(
        {
            "table_id": _dictionary(labels.tables, np.take(batch.table.astype(np.int32), dealt.bet_shoe)),
            "shoe_id": _dictionary(labels.shoes, np.take(labels.shoe_index(batch), dealt.bet_shoe)),
            "round_no": dealt.bet_round_no,
            "seat": _dictionary(SEAT_LABELS, dealt.bet_seat),
            "bet": _dictionary(BET_LABELS, dealt.bet_code),
            "amount": decimal64(dealt.bet_cents, CENT_SCALE),
            "player_id": _dictionary(labels.players, dealt.bet_player),
            "payout": decimal64(dealt.bet_payout * to_money, MONEY_SCALE),
            "side": pa.array(dealt.bet_side, mask=dealt.bet_side == 0),
        }
    )


def as_frame(table: pa.Table) -> pl.DataFrame:
    """A rounds or bets table with the contract's types: identifiers as text, money as Decimal(18, s)."""
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        if pa.types.is_dictionary(field.type):
            column = column.cast(field.type.value_type)
        elif pa.types.is_decimal(field.type):
            column = column.cast(pa.decimal128(field.type.precision, field.type.scale))
        columns.append(column)
    return pl.from_arrow(pa.table(columns, names=table.column_names))
