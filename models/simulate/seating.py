"""A gaming day's seating for every table at once: who comes, when, at which seat, for how long.

The plan depends on (seed, day) alone, so it is the same however the run is split into chunks. Each
player of the pool comes with their daily chance, arrives at a uniform moment of the day shifted
back by a visit's length (those who would have come before the doors opened arrive in its first
minutes, so the tables are full from the opening and empty towards the close), takes a free seat at
a random table (a strategy player only at a table of a game with a free draw on 5, when the run has
one) and plays one session; leaving, they move to another table after a break or go home. A player
finding every seat taken waits for the first to free, for a while, then goes. Players are seated one
request at a time in time order, so nobody is ever at two tables at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from numba import njit

from models.simulate.advantage import DRAWS_ON_5
from models.simulate.config import Simulation
from models.simulate.players import Players, mean_session_minutes
from models.simulate.rng import SEATING, bounded, exponential, normal, seed_stream, uniform

#: Slots of the seating parameters array.
SPREAD, MOVE_CHANCE, BREAK_SECONDS, GAP_SECONDS, WAIT_SECONDS, RAMP_SECONDS, DOORS_SECONDS = range(7)
#: Nobody plays a session shorter than this (seconds).
SHORTEST_SESSION = 300.0
#: Those who would have come before the doors opened come within this many seconds of the opening.
DOORS_SECONDS_DEFAULT = 900.0


@njit(cache=True)
def _seat_day(seed, day, tables, seats, horizon, daily_chance, session_seconds, params, bound, free_table):
    """Sessions of one day as (seat number = table x seats + seat, player, start, end), in time order.

    A `bound` player sits only at the tables `free_table` marks."""
    state = np.empty(4, np.uint64)
    seed_stream(state, seed, day, SEATING)
    n = daily_chance.shape[0]
    arrival = np.empty(n)
    who = np.empty(n, np.int64)
    visitors = 0
    for p in range(n):
        if uniform(state) < daily_chance[p]:
            at = uniform(state) * (horizon + params[RAMP_SECONDS] / 2) - params[RAMP_SECONDS]
            if at < 0.0:
                at = uniform(state) * params[DOORS_SECONDS]
            arrival[visitors] = at
            who[visitors] = p
            visitors += 1
    order = np.argsort(arrival[:visitors], kind="mergesort")

    free_at = np.zeros(tables * seats)
    free_tables = np.flatnonzero(free_table)
    # players on a break between tables: when they look for a seat, and the table they left
    moving_at = np.empty(visitors)
    moving_player = np.empty(visitors, np.int64)
    moving_from = np.empty(visitors, np.int64)
    moving = 0
    size = max(16, 2 * visitors)
    seat_no = np.empty(size, np.int64)
    player = np.empty(size, np.int32)
    start = np.empty(size)
    end = np.empty(size)
    m = 0
    a = 0
    while a < visitors or moving > 0:
        soonest, q = np.inf, -1
        for j in range(moving):
            if moving_at[j] < soonest:
                soonest, q = moving_at[j], j
        if a < visitors and arrival[order[a]] <= soonest:
            t, p, left = arrival[order[a]], who[order[a]], -1
            a += 1
        else:
            t, p, left = soonest, moving_player[q], moving_from[q]
            moving -= 1
            moving_at[q], moving_player[q] = moving_at[moving], moving_player[moving]
            moving_from[q] = moving_from[moving]
        if t >= horizon:
            continue
        # a free seat at a random table other than the one just left, else the first to free
        chosen, first_free, first_free_at = -1, -1, np.inf
        if bound[p]:  # a random table of those he sits at, not the first of them after a random one
            first_table, first_seat = free_tables[bounded(state, free_tables.shape[0])], bounded(state, seats)
        else:
            first_table, first_seat = bounded(state, tables), bounded(state, seats)
        for jt in range(tables):
            table = (first_table + jt) % tables
            # a bound player may come back to the table he left: his games may have no other
            if (table == left and not bound[p]) or (bound[p] and not free_table[table]):
                continue
            for js in range(seats):
                candidate = table * seats + (first_seat + js) % seats
                if free_at[candidate] <= t:
                    chosen = candidate
                    break
                if free_at[candidate] < first_free_at:
                    first_free, first_free_at = candidate, free_at[candidate]
            if chosen >= 0:
                break
        begins = t
        if chosen < 0:
            if first_free < 0 or first_free_at - t > params[WAIT_SECONDS] or first_free_at >= horizon:
                continue  # goes home
            chosen, begins = first_free, first_free_at
        spread = params[SPREAD]
        length = max(session_seconds[p] * np.exp(spread * normal(state) - spread * spread / 2), SHORTEST_SESSION)
        if m == size:
            size *= 2
            seat_no, player = _grown(seat_no, size), _grown(player, size)
            start, end = _grown(start, size), _grown(end, size)
        seat_no[m], player[m], start[m], end[m] = chosen, p, begins, begins + length
        m += 1
        free_at[chosen] = begins + length + params[GAP_SECONDS] * exponential(state)
        if uniform(state) < params[MOVE_CHANCE]:
            moving_at[moving] = begins + length + params[BREAK_SECONDS] * exponential(state)
            moving_player[moving], moving_from[moving] = p, chosen // seats
            moving += 1
    return seat_no[:m].copy(), player[:m].copy(), start[:m].copy(), end[:m].copy()


@njit(cache=True)
def _grown(array, size):
    bigger = np.empty(size, array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@dataclass(frozen=True)
class DayPlan:
    """One gaming day's sessions sorted by table, seat and start; times in seconds from the opening."""

    day: int
    seats: int
    seat_first: np.ndarray  # where each (table x seats + seat)'s sessions start, and the end
    player: np.ndarray
    start: np.ndarray
    end: np.ndarray

    def of_table(self, table: int) -> tuple[np.ndarray, slice]:
        """The table's per-seat offsets (from 0) into the slice of the session arrays that holds it."""
        offsets = self.seat_first[table * self.seats : (table + 1) * self.seats + 1]
        return offsets - offsets[0], slice(int(offsets[0]), int(offsets[-1]))

    def frame(self) -> pl.DataFrame:
        """The sessions as rows: table and seat numbers from 0, player number, start and end seconds."""
        seat_no = np.repeat(np.arange(len(self.seat_first) - 1), np.diff(self.seat_first))
        return pl.DataFrame(
            {
                "day": np.full(len(self.player), self.day, np.int32),
                "table": (seat_no // self.seats).astype(np.int32),
                "seat": (seat_no % self.seats).astype(np.int8),
                "player": self.player,
                "start": self.start,
                "end": self.end,
            }
        )


def seating_parameters(sim: Simulation) -> np.ndarray:
    """The seating parameters as `_seat_day` reads them (slots named above)."""
    people = sim.population
    params = np.zeros(7)
    params[SPREAD] = people.session_spread
    params[MOVE_CHANCE] = people.move_chance
    params[BREAK_SECONDS] = 60 * people.break_minutes
    params[GAP_SECONDS] = 60 * people.seat_gap_minutes
    params[WAIT_SECONDS] = 60 * people.max_wait_minutes
    # arrivals from a visit before the opening to half a visit before the close
    params[RAMP_SECONDS] = min(60 * mean_session_minutes(people) / (1 - people.move_chance), sim.open_seconds / 2)
    params[DOORS_SECONDS] = DOORS_SECONDS_DEFAULT
    return params


def plan_day(sim: Simulation, players: Players, day: int) -> DayPlan:
    """The seating of gaming day `day` for all the run's tables."""
    seats = sim.population.seats
    free_table = np.array([sim.game_of_table(table).punter_has_choice for table in range(sim.tables)])
    # a strategy player is a regular of the games with a free draw: their tables only, if there are any
    bound = players.kind >= DRAWS_ON_5 if free_table.any() else np.zeros(len(players), np.bool_)
    seat_no, player, start, end = _seat_day(
        sim.seed,
        day,
        sim.tables,
        seats,
        sim.open_seconds,
        players.daily_chance,
        players.session_seconds,
        seating_parameters(sim),
        bound,
        free_table,
    )
    order = np.lexsort((start, seat_no))
    seat_first = np.searchsorted(seat_no[order], np.arange(sim.tables * seats + 1)).astype(np.int64)
    return DayPlan(day, seats, seat_first, player[order], start[order], end[order])
