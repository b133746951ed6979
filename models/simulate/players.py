"""The run's pool of players: fixed habits drawn once from the seed, and the ground truth they make.

Each player has a home unit (log-normal across players, within the table limits, rounded to a chip),
a style (Banker, Player and Tie shares drawn around the population's mix), a side-bet rate (many
never, a few often), a mean session length, and a daily chance of coming: a few regulars come most
days, the rest a few times a month. A share `advantage_share` of them are advantage players
(models/simulate/advantage.py), picked from a stream of their own so the others keep their habits, and
`strategy_players` of each strategy kind play the free draws their own way (strategies.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import polars as pl

from models.money_units import CENTS
from models.simulate.advantage import ADVANTAGE_KINDS, KINDS, ORDINARY, STRATEGY_KINDS
from models.simulate.config import Population, Simulation

#: Mixed into the seed so the pool's draws share nothing with the kernels' streams.
POOL_STREAM = 19
#: The stream that picks the advantage players, apart from the habits' draws.
ADVANTAGE_STREAM = 20
#: The stream that picks the strategy players, apart from both.
STRATEGY_STREAM = 21
#: A strategy player's home unit is at least this quantile of the pool's.
STRATEGY_STAKE_QUANTILE = 0.9
#: A strategy player's mean session, in minutes: a regular of the games with a free draw sits long.
STRATEGY_SESSION_MINUTES = 120.0
#: Clips on a player's mean session, in minutes: nobody sits down for less, nobody stays longer.
SESSION_MINUTES = (10.0, 480.0)
#: The shape of the occasional players' monthly visit rates (gamma, mean `occasional_visits`).
OCCASIONAL_SHAPE = 2.0
#: Beta's first parameter for the side-bet rate of players who bet sides at all.
SIDE_RATE_SHAPE = 2.0
DAYS_A_MONTH = 30.0

POOL_SCHEMA = {
    "player_id": pl.String,
    "kind": pl.String,  # ordinary, or the advantage or strategy player's kind (advantage.KINDS)
    "visitor": pl.String,  # regular or occasional
    "home_unit": CENTS,
    "banker_share": pl.Float64,
    "player_share": pl.Float64,
    "tie_share": pl.Float64,
    "side_rate": pl.Float64,
    "session_minutes": pl.Float64,
    "visits_a_month": pl.Float64,
}


def player_label(number: int) -> str:
    """A player's id, as the bets log it (frames.Labels): PL00042."""
    return f"PL{number:05d}"


def mean_daily_chance(people: Population) -> float:
    """The pool's average chance that a player comes on a given day."""
    occasional = people.occasional_visits / DAYS_A_MONTH
    return people.regular_share * people.regular_visit_chance + (1 - people.regular_share) * occasional


def mean_session_minutes(people: Population) -> float:
    """The pool's mean session (a log-normal's mean; a player's own spread keeps their mean)."""
    return people.session_median_minutes * math.exp(people.session_sigma**2 / 2)


def pool_size(sim: Simulation) -> int:
    """The players in the run's pool: as configured, or as many as fill `seat_occupancy` of the seats.

    Seat time a day is tables x seats x the hours a table deals; a visit takes a geometric number
    of sessions (a move to another table with `move_chance`), each of the pool's mean length.
    """
    people = sim.population
    if people.player_pool is not None:
        return people.player_pool
    seat_minutes = sim.tables * people.seats * sim.open_seconds / 60 * people.seat_occupancy
    visit_minutes = mean_session_minutes(people) / (1 - people.move_chance)
    chance = mean_daily_chance(people)
    return max(1, round(seat_minutes / visit_minutes / chance)) if chance > 0 else 1


@dataclass(frozen=True)
class Players:
    """The pool as arrays indexed by player number (the kernels and the seating read these)."""

    regular: np.ndarray  # bool
    unit_cents: np.ndarray  # int64: the home unit
    shares: np.ndarray  # (players, 3): banker, player, tie
    side_rate: np.ndarray  # chance of each side-bet try on a coup they bet
    session_seconds: np.ndarray  # mean session length
    daily_chance: np.ndarray  # chance of coming on a given day
    kind: np.ndarray  # int8 code into advantage.KINDS: 0 ordinary

    def __len__(self) -> int:
        return len(self.regular)

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(home units in cents, per player [banker share, banker + player share, side rate], kind codes)."""
        habits = np.column_stack([self.shares[:, 0], self.shares[:, 0] + self.shares[:, 1], self.side_rate])
        return np.ascontiguousarray(self.unit_cents), np.ascontiguousarray(habits), np.ascontiguousarray(self.kind)

    def frame(self) -> pl.DataFrame:
        """The ground truth: each player's habits, as the marts should find them."""
        return pl.DataFrame(
            {
                "player_id": [player_label(number) for number in range(len(self))],
                "kind": np.array(KINDS)[self.kind],
                "visitor": np.where(self.regular, "regular", "occasional"),
                "home_unit": [Decimal(int(cents)).scaleb(-2) for cents in self.unit_cents],
                "banker_share": self.shares[:, 0],
                "player_share": self.shares[:, 1],
                "tie_share": self.shares[:, 2],
                "side_rate": self.side_rate,
                "session_minutes": self.session_seconds / 60,
                "visits_a_month": self.daily_chance * DAYS_A_MONTH,
            },
            schema=POOL_SCHEMA,
        )


def _chip(units: np.ndarray, minimum: int) -> np.ndarray:
    """Round stakes in cents to what players put down: steps of the minimum, of 4x it past 4x, of 20x past 40x."""
    step = np.where(units < 4 * minimum, minimum, np.where(units < 40 * minimum, 4 * minimum, 20 * minimum))
    return np.maximum(np.round(units / step), 1).astype(np.int64) * step


def _styles(rng: np.random.Generator, people: Population, n: int) -> np.ndarray:
    """Banker, Player and Tie shares per player, Dirichlet around the mix (a bet weighed 0 stays 0)."""
    total = sum(people.main_mix.values())
    mix = np.array([people.main_mix.get(bet, 0.0) / total for bet in ("banker", "player", "tie")])
    draws = np.zeros((n, 3))
    for column in np.flatnonzero(mix > 0):
        draws[:, column] = rng.gamma(people.style_concentration * mix[column], size=n)
    return draws / draws.sum(axis=1, keepdims=True)


def draw_players(sim: Simulation) -> Players:
    """The run's pool, from its seed alone: the same players however the run is split."""
    people = sim.population
    n = pool_size(sim)
    rng = np.random.default_rng([sim.seed, POOL_STREAM])
    regular = rng.random(n) < people.regular_share
    lowest, highest = int(people.min_bet * 100), int(people.max_bet * 100)
    units = float(people.home_bet_median * 100) * np.exp(people.home_bet_sigma * rng.standard_normal(n))
    unit_cents = np.clip(_chip(np.clip(units, lowest, highest), lowest), lowest, highest)
    shares = _styles(rng, people, n)
    # the mean side rate over all players is the side mix's sum, as a bet's chance of a side bet
    side_mean = sum(people.side_mix.values()) / (1 - people.side_never)
    side_rate = np.zeros(n)
    if side_mean > 0:
        beta = SIDE_RATE_SHAPE * (1 - side_mean) / side_mean
        side_rate = np.where(rng.random(n) < people.side_never, 0.0, rng.beta(SIDE_RATE_SHAPE, beta, size=n))
    median = math.log(people.session_median_minutes)
    minutes = np.clip(np.exp(median + people.session_sigma * rng.standard_normal(n)), *SESSION_MINUTES)
    occasional = rng.gamma(OCCASIONAL_SHAPE, people.occasional_visits / OCCASIONAL_SHAPE, size=n) / DAYS_A_MONTH
    kind = _strategy_kinds(sim, _advantage_kinds(sim, n))
    # an advantage player makes a living of it: a regular, on most days; and places no side bet by
    # habit, only by their count (the kernel)
    regular |= kind != ORDINARY
    daily_chance = np.where(regular, people.regular_visit_chance, np.minimum(occasional, 1.0))
    # a strategy player comes every day, for long sessions, to be seen deciding (seating.py: where)
    strategist = kind >= KINDS.index(STRATEGY_KINDS[0])
    daily_chance = np.where(strategist, 1.0, daily_chance)
    minutes = np.where(strategist, STRATEGY_SESSION_MINUTES, minutes)
    # a strategy player stakes high, as one who wants the Player hand does: the largest stake holds it
    if strategist.any():
        high = _chip(np.array([np.quantile(unit_cents, STRATEGY_STAKE_QUANTILE)]), lowest)[0]
        unit_cents = np.where(strategist, np.minimum(np.maximum(unit_cents, high), highest), unit_cents)
    side_rate = np.where(kind == ORDINARY, side_rate, 0.0)
    return Players(regular, unit_cents, shares, side_rate, minutes * 60, daily_chance, kind)


def _advantage_kinds(sim: Simulation, n: int) -> np.ndarray:
    """Each player's kind code: a share `advantage_share` of the pool are advantage players, their
    kinds drawn by `advantage_mix`; none at all (and no draw) when the share is 0."""
    people = sim.population
    kind = np.full(n, ORDINARY, np.int8)
    if people.advantage_share <= 0:
        return kind
    rng = np.random.default_rng([sim.seed, ADVANTAGE_STREAM])
    chosen = rng.random(n) < people.advantage_share
    weights = np.array([people.advantage_mix.get(name, 0.0) for name in ADVANTAGE_KINDS])
    picks = rng.choice(len(ADVANTAGE_KINDS), size=n, p=weights / weights.sum()) + 1
    return np.where(chosen, picks, ORDINARY).astype(np.int8)


def _strategy_kinds(sim: Simulation, kind: np.ndarray) -> np.ndarray:
    """`strategy_players` ordinary players of each strategy kind, picked at random (none, and no
    draw, when it is 0; as many as there are ordinary players when the pool is small)."""
    each = sim.population.strategy_players
    ordinary = np.flatnonzero(kind == ORDINARY)
    if each <= 0 or not len(ordinary):
        return kind
    rng = np.random.default_rng([sim.seed, STRATEGY_STREAM])
    picked = rng.permutation(ordinary)[: each * len(STRATEGY_KINDS)]
    kind = kind.copy()
    kind[picked] = KINDS.index(STRATEGY_KINDS[0]) + np.arange(len(picked)) % len(STRATEGY_KINDS)
    return kind
