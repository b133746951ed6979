"""The count room's rules of play at a simulated table: the tray's par and marks, buy-ins, markers.

Each player's buy-in size and whether they play on credit come from a hash of (seed, player), never
from the dealing streams, so the cards, bets and times of a seed stay as they were.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from models.settings import DEFAULTS
from models.simulate.players import Players

#: Mixed into the player hash, one salt per attribute.
CREDIT_SALT, REPAY_SALT, BUY_IN_SALT = 101, 102, 103
#: A buy-in is this many home units (the player's pick among them).
BUY_IN_UNITS = (10, 20, 40)


@dataclass(frozen=True)
class Cage:
    """The tray and the players' money (docs/simulator.md, "Count-room events")."""

    par: Decimal = Decimal(100_000)  # the tray's imprest: every gaming day opens and closes at it
    low_share: float = 0.25  # a fill brings the tray back to par when play would take it below this share
    high_share: float = 2.0  # a credit takes it back to par when it climbs above this share
    slip_step: Decimal = Decimal(1000)  # fills and credits in whole steps
    chip: Decimal = Decimal(25)  # buy-ins and marker payments in whole chips of this value
    marker_unit: Decimal = Decimal(500)  # players with this home unit or more (or regulars) may play on credit
    credit_share: float = 0.5  # of those, the share who do: every buy-in of theirs is a marker
    repay_share: float = 0.5  # of those, the share who repay markers at the table from their chips
    session_gap_minutes: float = DEFAULTS.session_gap_minutes  # a player's bets this far apart are two sittings


DEFAULT_CAGE = Cage()


def uniforms(seed: int, numbers: np.ndarray, salt: int) -> np.ndarray:
    """Uniform floats in [0, 1) from SplitMix64 of (seed, number, salt): reproducible, no stream drawn."""
    with np.errstate(over="ignore"):
        x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) ^ numbers.astype(np.uint64) * np.uint64(0xD1B54A32D192ED03)
        x = x + np.uint64(salt) * np.uint64(0x94D049BB133111EB)
        for _ in range(2):
            x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / 2.0**53


@dataclass(frozen=True)
class Purses:
    """Per player: the buy-in in cents, whether they play on markers, whether they repay at the table."""

    buy_in_cents: np.ndarray
    credit: np.ndarray
    repays: np.ndarray

    @classmethod
    def of(cls, players: Players, seed: int, cage: Cage = DEFAULT_CAGE) -> Purses:
        numbers = np.arange(len(players))
        pick = (uniforms(seed, numbers, BUY_IN_SALT) * len(BUY_IN_UNITS)).astype(np.int64)
        buy_in = players.unit_cents * np.array(BUY_IN_UNITS, np.int64)[pick]
        eligible = players.regular | (players.unit_cents >= int(cage.marker_unit * 100))
        credit = eligible & (uniforms(seed, numbers, CREDIT_SALT) < cage.credit_share)
        repays = credit & (uniforms(seed, numbers, REPAY_SALT) < cage.repay_share)
        return cls(buy_in.astype(np.int64), credit, repays)
