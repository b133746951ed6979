"""The exact distribution of a session's result for a betting system on independent coups.

A Markov chain over (system state, session result): each coup moves every live state by every event
of one coup (its outcome, its probability, each bet's net per unit from the one pay table), and a
session is absorbed when it reaches its goal, its stop-loss or ruin, or plays its last coup. Money is
exact (integer ticks, reported as Decimal); probabilities are floats, or exact integers over a power
of the coup's denominator with `exact=True`. The code checks E[result] = -edge x E[wagered].

Pattern followers back a side that depends on the shoe's history, but each coup is independent of it,
so the chain needs only what decides the next side: the big road's last few columns
(`PatternFollower.key`), not the whole shoe. (If Banker and Player bets paid alike it would need only
the result, as for flat staking; they do not, so the side is tracked.)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import gcd, lcm

import numpy as np

from models.game.cells import CELL_OUTCOMES
from models.game.coup import Coup
from models.game.games import Game
from models.game.paytable import BETS, DEFAULT_PAYTABLE, PayTable, bet_result, settlement_grid
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.progress import Progress, quiet
from models.systems import kernel
from models.systems.rules import BET_NAMES, Limits, System, Table, settle, side_letter, system_of

DEFAULT_LIMITS = Limits()
ENDS = ("goal", "stop-loss", "ruin", "horizon")
#: One representative coup of each outcome, for probabilities given without the cards (nets by outcome).
_REPRESENTATIVE = {"B": Coup(0, 7, 2, 2), "P": Coup(7, 0, 2, 2), "T": Coup(5, 5, 2, 2)}


#: The fast walk's guards on its time, beside its cap on live pairs (`max_states`), which bounds its memory.
#: A system state met for the first time is worked out in Python (about 15 us: Labouchere meets millions),
#: a live pair costs 30 to 70 ns a coup; both chosen so a walk ends within a minute on two busy cores
#: (docs/systems.md#ceilings).
MAX_SYSTEM_STATES = 1_000_000
MAX_PAIR_COUPS = 400_000_000
#: Money is whole ticks in int64: every amount, times the largest net and the coups, stays below this.
MAX_TICKS = 2**62
#: The stage progress is told of.
WALKING = "walking the exact chain"


class TooLarge(ValueError):
    """The chain outgrew one of its caps (`reason` says which): the question needs a back-test."""

    def __init__(self, system: str, reason: str):
        self.system, self.reason = system, reason
        super().__init__(f"{system}: {reason}; too large for an exact chain: back-test it on shoes instead")

    @classmethod
    def past(cls, system: str, limit: int, what: str, coup: int) -> TooLarge:
        return cls(system, f"passes {limit:,} {what} by coup {coup}")


@dataclass(frozen=True)
class CoupOdds:
    """One coup's events: (outcome, weight, net per unit staked on B, P, T); weights sum to `total`
    (integers for exact arithmetic, or floats)."""

    events: tuple[tuple[str, int | float, tuple[Fraction, Fraction, Fraction]], ...]

    @property
    def total(self) -> int | float:
        return sum(weight for _, weight, _ in self.events)

    @property
    def integral(self) -> bool:
        return all(isinstance(weight, int) for _, weight, _ in self.events)

    @classmethod
    def exact(cls, game: Game = Game.PUNTO_BANCO, decks: int = 8, table: PayTable = DEFAULT_PAYTABLE) -> CoupOdds:
        """A full shoe's exact odds (models/odds) with every cell's nets from the settlement grid."""
        weights = exact_odds(Composition.full(decks), game).weights.ravel()
        net, _ = settlement_grid(game, table)
        rows = [BETS.index(BET_NAMES[side]) for side in "BPT"]
        grouped: dict[tuple, int] = defaultdict(int)
        for cell, weight in enumerate(weights.tolist()):
            if weight:
                nets = tuple(Fraction(net[row, cell, 0]) for row in rows)
                grouped[(CELL_OUTCOMES[cell], nets)] += int(weight)  # float64 holding exact integers
        divisor = gcd(*grouped.values())
        return cls(tuple((outcome, w // divisor, nets) for (outcome, nets), w in sorted(grouped.items())))

    @classmethod
    def of(
        cls,
        p: tuple,
        payout: dict[str, object] | None = None,
        game: Game = Game.PUNTO_BANCO,
        table: PayTable = DEFAULT_PAYTABLE,
    ) -> CoupOdds:
        """From (p_banker, p_player, p_tie) and what a winning B, P, T bet pays per unit (by default
        the pay table's, for a coup of that outcome under `game`). Exact when p are Fractions/ints/str."""
        if len(p) != 3:
            raise ValueError("give three probabilities: banker, player, tie")
        pays = {side: bet_result(game, table, BET_NAMES[side], _REPRESENTATIVE[side]).net for side in "BPT"}
        pays.update({side_letter(k): v for k, v in (payout or {}).items()})
        pays = {side: Fraction(str(value)) for side, value in pays.items()}
        exact = all(not isinstance(x, float) for x in p)
        probabilities = [Fraction(str(x)) for x in p]
        if sum(probabilities) != 1 and exact:
            raise ValueError(f"the probabilities must sum to 1, got {sum(probabilities)}")
        if exact:
            denominator = lcm(*(x.denominator for x in probabilities))
            weights = [int(x * denominator) for x in probabilities]
        else:
            weights = [float(x) for x in p]
        events = []
        for outcome, weight in zip("BPT", weights, strict=True):
            nets = tuple(
                pays[side] if side == outcome else (Fraction(0) if outcome == "T" and side != "T" else Fraction(-1))
                for side in "BPT"
            )
            if weight:
                events.append((outcome, weight, nets))
        return cls(tuple(events))

    @classmethod
    def even_money(cls, p_win, p_lose, p_push=0, payout=1) -> CoupOdds:
        """Any game's bet: wins `payout` per unit with p_win, loses with p_lose, pushes otherwise.
        Back it as bet 'B' (a win is outcome B, a loss P, a push T)."""
        return cls.of((p_win, p_lose, p_push), {"B": payout})

    def edge(self, side: str) -> Fraction | float:
        """House edge per unit staked on `side`, pushes counted as bets (as models/odds defines it)."""
        i = "BPT".index(side)
        mean = sum(weight * nets[i] for _, weight, nets in self.events)
        return -Fraction(mean) / self.total if self.integral else -float(mean) / self.total


@dataclass(frozen=True)
class Exact:
    """A session's exact distribution and what follows from it; money in currency units."""

    system: str
    bet: str
    limits: Limits
    coups: int
    distribution: dict[Decimal, float | Fraction]  # result -> probability
    ends: dict[str, float | Fraction]  # why sessions stopped: goal, stop-loss, ruin, horizon
    expected_result: float
    expected_bets: float
    expected_wagered: float
    edge: float  # -E[result] / E[wagered]: the house edge of the bets the system made
    edges: dict[str, float]  # each side's house edge per unit staked

    @property
    def p_goal(self) -> float | Fraction:
        return self.ends["goal"]

    @property
    def risk_of_ruin(self) -> float | Fraction:
        """P(the bankroll is gone or the stop-loss is hit)."""
        return self.ends["ruin"] + self.ends["stop-loss"]

    def probability(self, predicate) -> float | Fraction:
        return sum(p for value, p in self.distribution.items() if predicate(value))


def _as_decimal(value: Fraction) -> Decimal:
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact if Fraction(exact) == value else exact.quantize(Decimal("1e-10"))


def _tick(limits: Limits, odds: CoupOdds) -> Fraction:
    """The money unit every limit, and every stake times every net, is a whole number of: the gcd
    of the limits' sizes over the lcm of the nets' denominators."""
    names = ("unit", "max_bet", "min_bet", "bankroll", "goal", "stop_loss")
    sizes = [Fraction(getattr(limits, n)) for n in names if getattr(limits, n) is not None]
    common = lcm(*(x.denominator for x in sizes))
    g = Fraction(gcd(*(int(x * common) for x in sizes)), common)
    return g / lcm(*(net.denominator for _, _, nets in odds.events for net in nets))


def _merge(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Results and weights with equal results summed, results sorted."""
    results = np.concatenate([r for r, _ in parts])
    weights = np.concatenate([w for _, w in parts])
    unique, inverse = np.unique(results, return_inverse=True)
    if weights.dtype == object:  # exact integers
        summed = np.zeros(len(unique), dtype=object)
        np.add.at(summed, inverse, weights)
        return unique, summed
    return unique, np.bincount(inverse, weights, minlength=len(unique))


class _Chain:
    """The chain's walk, coup by coup: live sessions grouped by system state, each an array of
    results (ticks) and their weights."""

    def __init__(self, system: System, bet: str, table: Table, odds: CoupOdds, max_states: int):
        self.system, self.bet, self.table, self.max_states = system, bet, table, max_states
        self.key = getattr(system, "key", lambda state: state)
        self.dtype = object if odds.integral else float
        self.by_side = {}
        for i, side in enumerate("BPT"):
            merged: dict[tuple, int | float] = defaultdict(int)
            for outcome, weight, nets in odds.events:
                merged[(outcome, nets[i])] += weight
            self.by_side[side] = [(o, w, net.numerator, net.denominator) for (o, net), w in merged.items()]
        idle: dict[str, int | float] = defaultdict(int)
        for outcome, weight, _ in odds.events:
            idle[outcome] += weight
        self.idle = list(idle.items())
        self.moves: dict[tuple, object] = {}
        self.plays: dict[object, tuple] = {}

    def _next(self, state, outcome: str, net, capped: bool):
        memo = (state, outcome, None if net is None else (net > 0) - (net < 0), capped)
        if memo not in self.moves:
            self.moves[memo] = self.key(settle(self.system, state, outcome, net, capped))
        return self.moves[memo]

    def _play(self, state):
        if state not in self.plays:
            units = self.system.stake(state)
            side = self.system.side(state, self.bet) if units > 0 else None
            self.plays[state] = (units, side)
        return self.plays[state]

    def walk(self, coups: int):
        """Yield before each coup n (and after the last): n, the live sessions {state: (results,
        weights)}, the absorbed {end: [(results, weights)]} of each step, and per step the weight of
        sessions betting and their weight x wagered by side."""
        table = self.table
        zero, one = np.zeros(1, np.int64), np.ones(1, self.dtype)
        first: dict[str, list] = defaultdict(list)
        end = table.ended(0)
        live = {} if end else {self.key(self.system.start()): (zero, one)}
        if end:
            first[end].append((zero, one))
        done, bets, wagered = [first], [], []
        for n in range(coups):
            yield n, live, done, bets, wagered
            parts: dict[object, list] = defaultdict(list)
            absorbed: dict[str, list] = defaultdict(list)
            step_bets, step_wagered = 0, defaultdict(int)
            for state, (results, weights) in live.items():
                units, side = self._play(state)
                if side is None:
                    for outcome, w in self.idle:
                        parts[self._next(state, outcome, None, False)].append((results, weights * w))
                    continue
                amount, capped = table.wager(units, results)
                step_bets += weights.sum()
                step_wagered[side] += (weights * amount).sum()
                for outcome, w, num, den in self.by_side[side]:
                    after, moved = results + amount * num // den, weights * w
                    goal, stop, ruin = table.stops(after)
                    for name, hit in (("goal", goal), ("stop-loss", stop & ~goal), ("ruin", ruin & ~goal & ~stop)):
                        if hit.any():
                            absorbed[name].append((after[hit], moved[hit]))
                    on = ~(goal | stop | ruin)
                    for was_capped in (False, True):
                        keep = on & (capped == was_capped)
                        if keep.any():
                            parts[self._next(state, outcome, num, was_capped)].append((after[keep], moved[keep]))
            live = {state: _merge(chunks) for state, chunks in parts.items()}
            if sum(len(r) for r, _ in live.values()) > self.max_states:
                raise TooLarge.past(self.system.name, self.max_states, "states", n + 1)
            done.append(absorbed)
            bets.append(step_bets)
            wagered.append(step_wagered)
        yield coups, live, done, bets, wagered


class _Interned:
    """The system states met so far, numbered: each one's stake and side, and (filled as states are met)
    the state after each event of a coup, uncapped and capped."""

    def __init__(self, system: System, bet: str, events: int, most: int = MAX_SYSTEM_STATES):
        self.system, self.bet, self.events, self.most = system, bet, events, most
        self.key = getattr(system, "key", lambda state: state)
        self.states: list = []
        self.number: dict = {}
        self.units = np.zeros(0, np.int64)
        self.side = np.zeros(0, np.int8)  # 0, 1, 2: B, P, T; -1: sits out
        self.next = np.zeros((0, events, 2), np.int64)  # -1: not worked out yet

    def of(self, state) -> int:
        if state not in self.number:
            self.number[state] = len(self.states)
            self.states.append(state)
        return self.number[state]

    def grow(self) -> None:
        """Stakes and sides of the states numbered since the last call."""
        old = len(self.units)
        if old == len(self.states):
            return
        plays = []
        for state in self.states[old:]:
            units = self.system.stake(state)
            side = self.system.side(state, self.bet) if units > 0 else None
            plays.append((units, -1 if side is None else "BPT".index(side)))
        new = np.array(plays, np.int64).reshape(-1, 2)
        self.units = np.concatenate([self.units, new[:, 0]])
        self.side = np.concatenate([self.side, new[:, 1].astype(np.int8)])
        self.next = np.concatenate([self.next, np.full((len(new), self.events, 2), -1, np.int64)])

    def moves(self, present: np.ndarray, events: list, coup: int) -> None:
        """Work out the next states of the `present` states (numbers) wherever not done yet; `TooLarge`
        once more than `most` states are met (checked as they come: one coup can meet millions)."""
        todo = present[self.next[present, 0, 0] < 0]
        for s in todo.tolist():
            if len(self.states) > self.most:
                raise TooLarge.past(self.system.name, self.most, "system states", coup)
            state, side = self.states[s], int(self.side[s])
            for e, (outcome, nets) in enumerate(events):
                net = None if side < 0 else nets[side]
                for capped in (False, True):
                    self.next[s, e, int(capped)] = self.of(self.key(settle(self.system, state, outcome, net, capped)))
        self.grow()


class _FastChain:
    """The chain's walk with float probabilities, every live session at once: numpy arrays of the system
    state (a number into `_Interned`), the result in ticks and the probability, equal (state, result)
    pairs merged after each coup. The same walk as `_Chain` (its exact twin), at array speed."""

    def __init__(
        self,
        system: System,
        bet: str,
        table: Table,
        odds: CoupOdds,
        max_states: int,
        max_system_states: int = MAX_SYSTEM_STATES,
        max_pair_coups: int = MAX_PAIR_COUPS,
    ):
        self.system, self.table, self.max_states, self.max_pair_coups = system, table, max_states, max_pair_coups
        self.events = [(outcome, nets) for outcome, _, nets in odds.events]
        self.weights = [float(weight) for _, weight, _ in odds.events]
        # each event's net per unit on B, P, T, and 0 for sitting out (side -1: the last column)
        nets = [[*nets, Fraction(0)] for _, nets in self.events]
        self.num = np.array([[net.numerator for net in row] for row in nets], np.int64)
        self.den = np.array([[net.denominator for net in row] for row in nets], np.int64)
        self.interned = _Interned(system, bet, len(self.events), max_system_states)

    def walk(self, coups: int):
        """Yield before each coup n (and after the last): n, the live sessions (states, results,
        probabilities), the absorbed {end: (results, probabilities)} so far, and the expected bets and
        the expected amount wagered (ticks) by side so far."""
        table, interned = self.table, self.interned
        money = np.array([0 if x is None else x for x in (table.unit, table.max_bet, table.min_bet, table.bankroll,
                                                           table.goal, table.stop_loss)], np.int64)  # fmt: skip
        has = np.array([x is not None for x in (table.bankroll, table.goal, table.stop_loss)])
        weights_of_events = np.array(self.weights)
        absorbed = {end: (np.zeros(0, np.int64), np.zeros(0)) for end in ENDS[:3]}
        states, results, weights = np.zeros(1, np.int64), np.zeros(1, np.int64), np.ones(1)
        end = table.ended(0)
        if end:
            absorbed[end] = (results, weights)
            states, results, weights = states[:0], results[:0], weights[:0]
        interned.of(interned.key(self.system.start()))
        interned.grow()
        bets, wagered, walked = 0.0, np.zeros(3), 0
        for n in range(coups):
            yield n, (states, results, weights), absorbed, bets, wagered
            present = states[np.flatnonzero(np.diff(states, prepend=-1))]  # sorted: each state once
            interned.moves(present, self.events, n + 1)
            states, results, weights, codes, ended, moved, betting, staked = kernel.step(
                states, results, weights, interned.units, interned.side, interned.next,
                weights_of_events, self.num, self.den, money, has,
            )  # fmt: skip
            bets, wagered = bets + betting, wagered + staked
            for code, name in enumerate(ENDS[:3]):
                hit = codes == code
                if hit.any():
                    absorbed = {**absorbed, name: _merge([absorbed[name], (ended[hit], moved[hit])])}
            if len(states) > self.max_states:
                raise TooLarge.past(self.system.name, self.max_states, "states", n + 1)
            walked += len(states)
            if walked > self.max_pair_coups:
                raise TooLarge.past(
                    self.system.name, self.max_pair_coups, "states walked (live states summed over the coups)", n + 1
                )
        yield coups, (states, results, weights), absorbed, bets, wagered


def _fits(system: System, table: Table, odds: CoupOdds, scale: Fraction, coups: int) -> None:
    """`TooLarge` when a result could pass the walk's int64 ticks: the largest amount, times the largest
    net plus one, times the coups plus one."""
    amounts = (table.unit, table.max_bet, table.min_bet, table.bankroll, table.goal, table.stop_loss)
    largest = max(abs(amount) for amount in amounts if amount is not None)
    net = max(abs(value) for _, _, nets in odds.events for value in nets)
    if largest * (net + 1) * (coups + 1) >= MAX_TICKS:
        raise TooLarge(
            system.name,
            f"counts money in ticks of {_as_decimal(scale)}, and these amounts over {coups:,} coups pass "
            "64-bit whole numbers of them (use fewer decimal places or smaller amounts)",
        )


def _coup_odds(p, payout, game: Game, decks: int, table: PayTable) -> CoupOdds:
    if isinstance(p, CoupOdds):
        return p
    if p is None:
        if payout is not None:
            raise ValueError("a payout needs its probabilities: give p as well")
        return CoupOdds.exact(game, decks, table)
    return CoupOdds.of(tuple(p), payout, game, table)


def _decimals(values: list[int], scale: Fraction) -> list[Decimal]:
    """Results in ticks as Decimal currency, as `_as_decimal` gives them; directly when the tick is a
    whole number of decimal places (Decimal division is then exact)."""
    den = scale.denominator
    while den % 10 == 0:
        den //= 10
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den != 1:
        return [_as_decimal(r * scale) for r in values]
    divisor = Decimal(scale.denominator)
    return [Decimal(r * scale.numerator) / divisor for r in values]


def _identity(expected_ticks, by_side: dict, edges: dict, exact: bool) -> float:
    """Check E[result] = -sum of edge x E[wagered] by side (ticks); the amount wagered."""
    identity = -sum(edges[s] * by_side[s] for s in "BPT")
    wagered_ticks = sum(by_side.values())
    tolerance = 0 if exact else 1e-9 * max(abs(expected_ticks), abs(identity)) + 1e-12 * wagered_ticks
    if abs(expected_ticks - identity) > tolerance:
        raise AssertionError(f"E[result] {expected_ticks} != -edge x E[wagered] {identity} (ticks)")
    return wagered_ticks


def _summarise_fast(system, bet, limits, odds, scale, n, live, absorbed, bets, wagered) -> Exact:
    """`_summarise` of the fast walk's arrays."""
    parts = [absorbed[end] for end in ENDS[:3]] + [live[1:]]
    ends = {end: float(w.sum()) for end, (_, w) in zip(ENDS, parts, strict=True)}
    values, probabilities = _merge(parts)
    kept = probabilities != 0
    values, probabilities = values[kept], probabilities[kept]
    expected_ticks = float(np.dot(values.astype(float), probabilities))
    edges = {side: odds.edge(side) for side in "BPT"}
    by_side = dict(zip("BPT", wagered.tolist(), strict=True))
    wagered_ticks = _identity(expected_ticks, by_side, edges, exact=False)
    money = float(scale)
    return Exact(
        system=system.name,
        bet=bet,
        limits=limits,
        coups=n,
        distribution=dict(zip(_decimals(values.tolist(), scale), probabilities.tolist(), strict=True)),
        ends=ends,
        expected_result=expected_ticks * money,
        expected_bets=float(bets),
        expected_wagered=float(wagered_ticks) * money,
        edge=float(-expected_ticks / wagered_ticks) if wagered_ticks else 0.0,
        edges={side: float(edge) for side, edge in edges.items()},
    )


def _summarise(system, bet, limits, odds, scale, exact, n, live, done, bets, wagered) -> Exact:
    D = odds.total

    def prob(weight, step):  # float weights are probabilities already
        return Fraction(int(weight), D**step) if exact else float(weight)

    distribution: dict[int, float | Fraction] = defaultdict(int)
    ends: dict[str, float | Fraction] = dict.fromkeys(ENDS, 0)
    groups = [
        (step, end, part)
        for step, absorbed in enumerate(done[: n + 1])
        for end, parts in absorbed.items()
        for part in parts
    ]
    groups += [(n, "horizon", part) for part in live.values()]
    for step, end, (results, weights) in groups:
        for result, weight in zip(results.tolist(), weights.tolist(), strict=True):
            p = prob(weight, step)
            distribution[result] += p
            ends[end] += p
    expected_bets = sum(prob(w, step) for step, w in enumerate(bets[:n]))
    by_side = {s: sum(prob(w[s], step) for step, w in enumerate(wagered[:n]) if s in w) for s in "BPT"}
    expected_ticks = sum(p * result for result, p in distribution.items())
    edges = {side: odds.edge(side) for side in "BPT"}
    wagered_ticks = _identity(expected_ticks, by_side, edges, exact)
    money = float(scale)
    return Exact(
        system=system.name,
        bet=bet,
        limits=limits,
        coups=n,
        distribution={_as_decimal(r * scale): p for r, p in sorted(distribution.items()) if p},
        ends=ends,
        expected_result=float(expected_ticks) * money,
        expected_bets=float(expected_bets),
        expected_wagered=float(wagered_ticks) * money,
        edge=float(-expected_ticks / wagered_ticks) if wagered_ticks else 0.0,
        edges={side: float(edge) for side, edge in edges.items()},
    )


def session_distributions(
    system: str | System,
    bet: str,
    limits: Limits = DEFAULT_LIMITS,
    p=None,
    payout: dict | None = None,
    *,
    horizons: Iterable[int] | None = None,
    game: Game = Game.PUNTO_BANCO,
    decks: int = 8,
    table: PayTable = DEFAULT_PAYTABLE,
    exact: bool = False,
    max_states: int = 4_000_000,
    max_system_states: int = MAX_SYSTEM_STATES,
    max_pair_coups: int = MAX_PAIR_COUPS,
    progress: Progress = quiet,
) -> dict[int, Exact]:
    """`session_distribution` at several session lengths from one walk of the chain: {coups: Exact}.
    The fast walk stops (`TooLarge`) past `max_states` live pairs, `max_system_states` system states or
    `max_pair_coups` live pairs summed over the coups. `progress` is told the coups walked."""
    system = system_of(system)
    side = side_letter(bet)
    odds = _coup_odds(p, payout, game, decks, table)
    if exact and not odds.integral:
        raise ValueError("exact arithmetic needs exact probabilities: give Fractions, or p=None")
    if not exact and odds.integral:
        total = odds.total
        odds = CoupOdds(tuple((o, w / total, nets) for o, w, nets in odds.events))
    wanted = sorted(set(horizons or [limits.coups]))
    if wanted[0] < 0:
        raise ValueError("a session length is a number of coups, 0 or more")
    scale = _tick(limits, odds)
    _fits(system, Table.of(limits, scale), odds, scale, wanted[-1])
    out = {}
    if not exact:  # the fast walk; `_Chain` with exact=True is its reference twin
        fast = _FastChain(system, side, Table.of(limits, scale), odds, max_states, max_system_states, max_pair_coups)
        for n, live, absorbed, bets, wagered in fast.walk(wanted[-1]):
            progress(WALKING, n, wanted[-1], f"{len(live[0]):,} live states")
            if n in wanted:
                out[n] = _summarise_fast(system, side, limits, odds, scale, n, live, absorbed, bets, wagered)
        return out
    chain = _Chain(system, side, Table.of(limits, scale), odds, max_states)
    for n, live, done, bets, wagered in chain.walk(wanted[-1]):
        if n in wanted:
            out[n] = _summarise(system, side, limits, odds, scale, exact, n, live, done, bets, wagered)
    return out


def session_distribution(
    system: str | System,
    bet: str,
    limits: Limits = DEFAULT_LIMITS,
    p=None,
    payout: dict | None = None,
    *,
    game: Game = Game.PUNTO_BANCO,
    decks: int = 8,
    table: PayTable = DEFAULT_PAYTABLE,
    exact: bool = False,
    max_states: int = 4_000_000,
    max_system_states: int = MAX_SYSTEM_STATES,
    max_pair_coups: int = MAX_PAIR_COUPS,
) -> Exact:
    """The exact distribution of one session's result: `system` backing `bet` for `limits.coups`
    coups or until its goal, stop-loss or ruin. `p` is (p_banker, p_player, p_tie) with `payout`
    {side: net per unit on a win}, or a CoupOdds; by default the exact odds of a full `decks` shoe.
    The caps: as `session_distributions`."""
    return session_distributions(
        system, bet, limits, p, payout, game=game, decks=decks, table=table, exact=exact, max_states=max_states,
        max_system_states=max_system_states, max_pair_coups=max_pair_coups,
    )[limits.coups]  # fmt: skip


def cumulative(exact: Exact) -> tuple[np.ndarray, np.ndarray]:
    """Result values (float) and P(result <= value), for plots and KS-type comparisons."""
    values = np.array([float(v) for v in exact.distribution])
    return values, np.cumsum([float(p) for p in exact.distribution.values()])
