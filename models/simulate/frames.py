"""Kernel arrays to round-log frames in the data contract (data.md): rounds and bets."""

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
from models.simulate.config import Simulation
from models.simulate.dealing import B1, P1, Q1
from models.simulate.kernels import decimal128_words, hand_text, pack

OUTCOMES = pl.Series("outcome", ["B", "P", "T"])
BET_NAMES = pl.Series("bet", list(BETS))
PLAYER_PAIR, BANKER_PAIR = BETS.index("player_pair"), BETS.index("banker_pair")
SEAT_LABELS = pl.Series("seat", [str(seat) for seat in range(1, 15)])


@lru_cache(maxsize=4)
def _player_labels(pool: int) -> pl.Series:
    return pl.Series("player_id", [f"PL{number:05d}" for number in range(pool)])


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
    cards: np.ndarray  # (coups, CARD_SLOTS)
    outcomes: np.ndarray  # Banker, Player or Tie against the (first) Player hand
    seconds: np.ndarray
    holder: np.ndarray
    bet_shoe: np.ndarray
    bet_round: np.ndarray
    bet_seat: np.ndarray
    bet_code: np.ndarray
    bet_cents: np.ndarray
    bet_player: np.ndarray
    bet_side: np.ndarray
    bet_payout: np.ndarray  # cents x the settlement grid's units


def _used(arrays: tuple[np.ndarray, ...], counts: np.ndarray) -> list[np.ndarray]:
    """The first counts[i] slots of every shoe i, packed: reads only the slots in use."""
    starts = np.cumsum(counts) - counts
    packed = [pack(array.reshape(*array.shape[:2], -1), counts, starts) for array in arrays]
    return [dense if array.ndim == 3 else dense[:, 0] for dense, array in zip(packed, arrays, strict=True)]


def trim(raw: tuple) -> Dealt:
    """Keep the used part of the kernel's fixed per-shoe slots."""
    coups, n_coups, bets, n_bets = raw
    cards, outcomes, seconds, holder = _used(coups, n_coups)
    bet_round, bet_seat, bet_code, bet_cents, bet_player, bet_side, bet_payout = _used(bets, n_bets)
    return Dealt(
        n_coups=n_coups,
        cards=cards,
        outcomes=outcomes,
        seconds=seconds,
        holder=holder,
        bet_shoe=np.repeat(np.arange(len(n_bets)), n_bets),
        bet_round=bet_round,
        bet_seat=bet_seat,
        bet_code=bet_code,
        bet_cents=bet_cents,
        bet_player=bet_player,
        bet_side=bet_side,
        bet_payout=bet_payout,
    )


def day_opening(sim: Simulation, day: int) -> int:
    """Epoch seconds at which gaming day `day` of the run opens, in the run's time zone."""
    date = sim.start + dt.timedelta(days=day)
    opening = dt.datetime.combine(date, dt.time(sim.day_start_hour), tzinfo=ZoneInfo(sim.timezone))
    return int(opening.timestamp())


def _nullable(values: np.ndarray, missing: int) -> pl.Series:
    """Integers with `missing` turned into nulls."""
    series = pl.Series(values.astype(np.int64))
    return pl.select(pl.when(series != missing).then(series)).to_series()


def _hand(cards: np.ndarray, first: int) -> pl.Series:
    """The hands in cards[:, first:first + 3] as logged text, built straight into Arrow buffers."""
    offsets, data = hand_text(cards, first)
    array = pa.StringArray.from_buffers(len(cards), pa.py_buffer(offsets), pa.py_buffer(data))
    return pl.from_arrow(array)


def _labels(prefix: str, numbers: np.ndarray, width: int) -> pl.Series:
    """Identifiers like T01 or PL00042 from numbers."""
    digits = pl.Series(numbers.astype(np.int64)).cast(pl.String).str.zfill(width)
    return pl.select(pl.lit(prefix) + digits).to_series()


def _decimal(units: np.ndarray, scale: int, precision: int = 18) -> pl.Series:
    """Exact decimals from integers counted in 10**-scale currency units (built as Arrow decimal128)."""
    words = decimal128_words(np.ascontiguousarray(units, dtype=np.int64))
    array = pa.Array.from_buffers(pa.decimal128(precision, scale), len(units), [None, pa.py_buffer(words)])
    return pl.from_arrow(array)


@lru_cache(maxsize=64)
def net_units(game: Game, table: PayTable) -> tuple[np.ndarray, int]:
    """The settlement grid's net results as integers in 10**-places units, and `places`."""
    net, _ = settlement_grid(game, table)
    places = max(0, *(-value.as_tuple().exponent for value in net.ravel()))
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


def rounds_frame(sim: Simulation, batch: ShoeBatch, dealt: Dealt) -> pl.DataFrame:
    """One row per coup, columns as data.md's rounds."""
    n = dealt.n_coups
    shoe = np.repeat(np.arange(len(n)), n)
    round_no = np.arange(len(shoe)) - np.repeat(np.cumsum(n) - n, n) + 1
    micros = np.round(dealt.seconds * 1e6).astype(np.int64)
    shoe_start, opening = _shoe_starts(sim, batch, micros[np.cumsum(n) - 1])
    started = shoe_start[shoe] + micros
    shifts_per_day = int(np.ceil(24 / sim.shift_hours))
    shift = (started - opening[shoe]) // round(sim.shift_hours * 3600 * 1e6)
    pool = sim.tables * sim.dealers_per_table
    dealer = (batch.table[shoe] * sim.dealers_per_table + batch.day[shoe] * shifts_per_day + shift) % pool
    dates = [sim.start + dt.timedelta(days=int(day)) for day in batch.day]
    shoe_ids = pl.Series([f"{date:%Y%m%d}-{k + 1:02d}" for date, k in zip(dates, batch.k, strict=True)])
    table_ids = _labels("T", batch.table + 1, 2)
    shoe_index = pl.Series(shoe, dtype=pl.Int64)
    three_hands = batch.game is Game.BACCARAT_BANQUE
    return pl.DataFrame(
        {
            "table_id": table_ids.gather(shoe_index),
            "shoe_id": shoe_ids.gather(shoe_index),
            "round_no": pl.Series(round_no, dtype=pl.Int32),
            "started_at": pl.Series(started).cast(pl.Datetime("us", "UTC")).dt.convert_time_zone(sim.timezone),
            "player_cards": _hand(dealt.cards, P1),
            "banker_cards": _hand(dealt.cards, B1),
            "game": pl.repeat(batch.game.value, len(shoe), eager=True),
            "decks": pl.repeat(sim.decks, len(shoe), dtype=pl.Int8, eager=True),
            "dealer_id": _labels("D", np.arange(1, pool + 1), 3).gather(pl.Series(dealer, dtype=pl.Int64)),
            "bank_holder": SEAT_LABELS.gather(pl.Series(dealt.holder, dtype=pl.Int64)),
            "player2_cards": _hand(dealt.cards, Q1)
            if three_hands
            else pl.repeat(None, len(shoe), dtype=pl.String, eager=True),
            "outcome": OUTCOMES.gather(pl.Series(dealt.outcomes, dtype=pl.Int64)),
        }
    )


def bets_frame(sim: Simulation, batch: ShoeBatch, dealt: Dealt, rounds: pl.DataFrame) -> pl.DataFrame:
    """One row per wager, columns as data.md's bets, with the payout the table made."""
    n = dealt.n_coups
    coup = pl.Series((np.cumsum(n) - n)[dealt.bet_shoe] + dealt.bet_round, dtype=pl.Int64)
    _, places = net_units(batch.game, sim.paytable)
    return pl.DataFrame(
        {
            "table_id": rounds["table_id"].gather(coup),
            "shoe_id": rounds["shoe_id"].gather(coup),
            "round_no": rounds["round_no"].gather(coup),
            "seat": SEAT_LABELS.gather(pl.Series(dealt.bet_seat, dtype=pl.Int64)),
            "bet": BET_NAMES.gather(pl.Series(dealt.bet_code, dtype=pl.Int64)),
            "amount": _decimal(dealt.bet_cents, 2),
            "player_id": _player_labels(sim.population.player_pool).gather(pl.Series(dealt.bet_player, dtype=pl.Int64)),
            "payout": _decimal(dealt.bet_payout, 2 + places),
            "side": _nullable(dealt.bet_side, 0).cast(pl.Int8),
        }
    )
