"""Run a simulation: deal whole table-days in chunks of bounded size and yield their frames.

A chunk always holds whole table-days, so the output does not depend on how the run is split:
each shoe's cards and bets come from its own random streams, its start time from the shoes its
table dealt earlier that day, and who sits at the table from the day's seating, which depends on
the seed and the day alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property

import numba
import numpy as np
import polars as pl
import pyarrow as pa

from models.game.games import Game
from models.game.paytable import BETS
from models.game.tableau import draw_table
from models.simulate import kernels
from models.simulate.advantage import kernel_counts
from models.simulate.config import Simulation
from models.simulate.dealing import max_coups, new_deck
from models.simulate.frames import Labels, ShoeBatch, as_frame, bets_table, net_units, rounds_table, trim
from models.simulate.memory import keep_freed_memory
from models.simulate.players import Players, draw_players
from models.simulate.seating import DayPlan, plan_day

DEFAULT_CHUNK_COUPS = 500_000
BATCH_SHOES = 512
#: Day plans kept at once: a chunk's days, and its last day again when the next chunk starts in it.
KEPT_PLANS = 4


@dataclass(frozen=True)
class Chunk:
    """The rounds and bets of a run of whole table-days, as Arrow tables and as Polars frames."""

    days: tuple[int, int]  # first and last day index
    shoes: int
    rounds_table: pa.Table
    bets_table: pa.Table | None

    @cached_property
    def rounds(self) -> pl.DataFrame:
        return as_frame(self.rounds_table)

    @cached_property
    def bets(self) -> pl.DataFrame | None:
        return None if self.bets_table is None else as_frame(self.bets_table)


@dataclass
class Slots:
    """The kernel's per-shoe slots, kept for the whole run and grown when a batch needs more."""

    sim: Simulation
    arrays: tuple = field(default=((), ()))

    def take(self, n_shoes: int) -> tuple[tuple, tuple]:
        coups, bets = self.arrays
        if not coups or len(coups[0]) < n_shoes:
            self.arrays = kernels.slots(n_shoes, max_coups(self.sim.decks), self.sim.population.seats)
            coups, bets = self.arrays
        return tuple(array[:n_shoes] for array in coups), tuple(array[:n_shoes] for array in bets)


@dataclass
class Crowd:
    """The run's pool of players and the seating of the days being dealt, each worked out once."""

    sim: Simulation
    plans: dict[int, DayPlan] = field(default_factory=dict)

    @cached_property
    def players(self) -> Players:
        return draw_players(self.sim)

    @cached_property
    def habits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.players.kernel_arrays()

    def plan(self, day: int) -> DayPlan:
        if day not in self.plans:
            if len(self.plans) >= KEPT_PLANS:
                del self.plans[min(self.plans)]
            self.plans[day] = plan_day(self.sim, self.players, day)
        return self.plans[day]

    def sessions(self, batch: ShoeBatch) -> tuple[np.ndarray, np.ndarray, tuple]:
        """The batch's table-days (offsets into its shoes), each seat's sessions and the sessions."""
        new = np.flatnonzero(np.r_[True, (np.diff(batch.day) != 0) | (np.diff(batch.table) != 0)])
        group_first = np.r_[new, len(batch.shoes)].astype(np.int64)
        seats = self.sim.population.seats
        seat_first = np.empty((len(new), seats + 1), np.int64)
        parts, base = [], 0
        for g, first in enumerate(new):
            plan = self.plan(int(batch.day[first]))
            offsets, rows = plan.of_table(int(batch.table[first]))
            seat_first[g] = base + offsets
            parts.append((plan.player[rows], plan.start[rows], plan.end[rows]))
            base += rows.stop - rows.start
        sessions = tuple(np.ascontiguousarray(np.concatenate(column)) for column in zip(*parts, strict=True))
        return group_first, seat_first, sessions


def population_vector(sim: Simulation) -> np.ndarray:
    """The population parameters as the kernel reads them (slots named in kernels)."""
    people = sim.population
    vector = np.zeros(kernels.POPULATION_SIZE)
    side = np.array([people.side_mix.get(bet, 0.0) for bet in BETS[kernels.FIRST_SIDE_BET :]])
    vector[kernels.SEATS] = people.seats
    vector[kernels.BET_PROBABILITY] = people.bet_probability
    vector[kernels.MIN_BET] = int(people.min_bet * 100)
    vector[kernels.MAX_BET] = int(people.max_bet * 100)
    vector[kernels.SIDE_MIN] = int(people.side_min * 100)
    vector[kernels.SIDE_MAX] = int(people.side_max * 100)
    vector[kernels.COUP_SECONDS] = sim.coup_seconds
    vector[kernels.SHUFFLE_SECONDS] = 60 * people.shuffle_minutes
    vector[kernels.INITIAL_BANK] = int(people.chemin_initial_bank * 100)
    vector[kernels.WITHDRAW] = people.chemin_withdraw
    vector[kernels.LEVY_PERCENT] = float(sim.paytable.commission * 100)
    cumulative = np.cumsum(side) / side.sum() if side.sum() > 0 else np.ones_like(side)
    vector[kernels.SIDE_CUMULATIVE :] = cumulative
    return vector


def table_days(sim: Simulation, days: range | None = None) -> Iterator[tuple[int, int, range]]:
    """(day, table, global shoe numbers) for every table-day of the run, in shoe order."""
    for day in days if days is not None else range(sim.days):
        for table in range(sim.tables):
            first = (day * sim.tables + table) * sim.shoes_per_day
            shoes = range(first, min(first + sim.shoes_per_day, sim.shoes))
            if len(shoes):
                yield day, table, shoes


def _chunks(sim: Simulation, days: range | None, chunk_coups: int) -> Iterator[list[tuple[int, int, range]]]:
    per_shoe = (52 * sim.decks) / 4.94
    chunk, coups = [], 0.0
    for table_day in table_days(sim, days):
        chunk.append(table_day)
        coups += len(table_day[2]) * per_shoe
        if coups >= chunk_coups:
            yield chunk
            chunk, coups = [], 0.0
    if chunk:
        yield chunk


def _batch(sim: Simulation, game: Game, table_days: list[range]) -> ShoeBatch:
    shoes = np.concatenate([np.arange(s.start, s.stop) for s in table_days])
    return ShoeBatch(game, shoes, *sim.locate(shoes))


def _batches(sim: Simulation, chunk: list[tuple[int, int, range]]) -> Iterator[ShoeBatch]:
    """The chunk's shoes game by game, in kernel batches of whole table-days of at most BATCH_SHOES shoes.

    Small batches keep the kernel's slots small: touching fresh pages costs more than dealing.
    """
    for game in dict.fromkeys(sim.game_of_table(table) for _, table, _ in chunk):
        group, size = [], 0
        for _, table, shoes in chunk:
            if sim.game_of_table(table) != game:
                continue
            if group and size + len(shoes) > BATCH_SHOES:
                yield _batch(sim, game, group)
                group, size = [], 0
            group.append(shoes)
            size += len(shoes)
        if group:
            yield _batch(sim, game, group)


def deal_batch(sim: Simulation, batch: ShoeBatch, slots: Slots | None = None, crowd: Crowd | None = None):
    """Run the compiled kernel over one batch of shoes of one game (whole table-days, in order)."""
    table = draw_table(batch.game, sim.policy)
    dealing = sim.draws(batch.game)
    coups, bets = (slots or Slots(sim)).take(len(batch.shoes))
    crowd = crowd or Crowd(sim)
    group_first, seat_first, sessions = crowd.sessions(batch)
    n_coups, n_bets = kernels.deal_table_days(
        sim.seed,
        batch.shoes,
        group_first,
        new_deck(sim.decks),
        table.player,
        table.banker,
        dealing.punter,
        dealing.banker,
        int(batch.game.passing),
        batch.game.second_player_hand,
        population_vector(sim),
        net_units(batch.game, sim.paytable)[0],
        *crowd.habits,
        seat_first,
        sessions,
        *kernel_counts(),
        coups,
        bets,
    )
    return trim((coups, n_coups, bets, n_bets))


@contextmanager
def _compiled_threads(count: int | None) -> Iterator[None]:
    """Run the compiled kernels on `count` threads (all when None), as before afterwards."""
    previous = numba.get_num_threads()
    numba.set_num_threads(min(count or previous, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def simulate(
    sim: Simulation, days: range | None = None, chunk_coups: int = DEFAULT_CHUNK_COUPS, threads: int | None = None
) -> Iterator[Chunk]:
    """Deal the run (or the given day indexes) and yield the tables of each chunk of whole table-days.

    `threads` caps the threads the compiled kernels use, leaving cores to whoever writes the chunks.
    """
    keep_freed_memory()
    slots, crowd = Slots(sim), Crowd(sim)
    for chunk in _chunks(sim, days, chunk_coups):
        rounds, bets = [], []
        labels = Labels.of(sim, chunk[0][0], chunk[-1][0])
        for batch in _batches(sim, chunk):
            with _compiled_threads(threads):
                dealt = deal_batch(sim, batch, slots, crowd)
                rounds.append(rounds_table(sim, batch, dealt, labels))
                if sim.bets:
                    bets.append(bets_table(sim, batch, dealt, labels))
        yield Chunk(
            days=(chunk[0][0], chunk[-1][0]),
            shoes=sum(len(shoes) for _, _, shoes in chunk),
            rounds_table=pa.concat_tables(rounds),
            bets_table=pa.concat_tables(bets) if sim.bets else None,
        )
