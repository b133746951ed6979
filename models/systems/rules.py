"""Betting systems as small declarative rules: a state, the stake and side it gives, the state after a coup.

Conventions, shared by the exact chain and the back-test (one place, `Table` and `play` below):
a Banker or Player bet pushes on a tie (stake back, state unchanged); a Tie bet loses on B or P.
When a system asks for more than the table maximum or what is left of the bankroll, the progression
is lost: the stake is the most both allow (a bankroll-capped stake in whole table minimums) and the
system restarts after that coup, as Martingale analyses say "the sequence fails".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Literal, Protocol

import numpy as np

from models.settings import DEFAULTS

Outcome = Literal["B", "P", "T"]
SIDES = {"banker": "B", "player": "P", "tie": "T", "b": "B", "p": "P", "t": "T"}
BET_NAMES = {"B": "banker", "P": "player", "T": "tie"}


def side_letter(bet: str) -> str:
    """'banker'/'B' -> 'B', and so on; a one-line error for anything else."""
    letter = SIDES.get(str(bet).strip().lower())
    if letter is None:
        raise ValueError(f"unknown bet {bet!r}: choose banker, player or tie")
    return letter


def _money(value) -> Decimal | None:
    return None if value is None else Decimal(str(value))


@dataclass(frozen=True)
class Limits:
    """A session's money and length; money as Decimal, None for no limit."""

    unit: Decimal = Decimal(25)  # the base stake
    bankroll: Decimal | None = None  # None: unlimited
    goal: Decimal | None = None  # stop when the session is up this much
    stop_loss: Decimal | None = None  # stop when the session is down this much
    max_bet: Decimal = DEFAULTS.max_bet  # the table maximum (the house's limit, BANCO_MAX_BET)
    min_bet: Decimal = Decimal(25)
    coups: int = 70  # the session's length in coups (about a shoe's), ties included

    def __post_init__(self) -> None:
        for name in ("unit", "bankroll", "goal", "stop_loss", "max_bet", "min_bet"):
            object.__setattr__(self, name, _money(getattr(self, name)))
        if not Decimal(0) < self.min_bet <= self.unit <= self.max_bet:
            raise ValueError(f"need 0 < min bet <= unit <= max bet, got {self.min_bet}, {self.unit}, {self.max_bet}")
        for name in ("bankroll", "goal", "stop_loss"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name.replace('_', ' ')} must be positive, got {value}")
        if self.coups < 1:
            raise ValueError(f"a session needs at least one coup, got {self.coups}")


class System(Protocol):
    name: str

    def start(self) -> Hashable: ...  # the initial state (small, hashable)

    def stake(self, state) -> int: ...  # units to stake in this state (0: sit out)

    def side(self, state, bet: str) -> str | None: ...  # "B"/"P"/"T" to back, None to sit out

    def after(self, state, outcome: Outcome, won: bool | None) -> Hashable: ...  # won None: push / no bet

    def restart(self, state) -> Hashable: ...  # the state after a lost (capped) progression


class Progression:
    """A staking rule on the fixed bet: subclasses give start, stake and what a win and a loss do."""

    name = ""

    def start(self) -> Hashable:
        return 0

    def side(self, state, bet: str) -> str | None:
        return side_letter(bet)

    def after(self, state, outcome: Outcome, won: bool | None) -> Hashable:
        if won is None:
            return state  # a push: the same stake again
        return self.won(state) if won else self.lost(state)

    def restart(self, state) -> Hashable:
        return self.start()

    def won(self, state) -> Hashable:
        return state

    def lost(self, state) -> Hashable:
        return state


class Flat(Progression):
    name = "flat"

    def stake(self, state) -> int:
        return 1


class Martingale(Progression):
    """Double after a loss, back to one unit after a win. State: losses in a row."""

    name = "martingale"

    def stake(self, state) -> int:
        return 2**state

    def won(self, state):
        return 0

    def lost(self, state):
        return state + 1


class Paroli(Progression):
    """Reverse Martingale: double after a win, bank the run after three wins, one unit after a loss."""

    name = "paroli"
    wins = 3

    def stake(self, state) -> int:
        return 2**state

    def won(self, state):
        return (state + 1) % self.wins

    def lost(self, state):
        return 0


class DAlembert(Progression):
    """One unit more after a loss, one less after a win (never below one). State: the stake."""

    name = "dalembert"

    def start(self):
        return 1

    def stake(self, state) -> int:
        return state

    def won(self, state):
        return max(1, state - 1)

    def lost(self, state):
        return state + 1


class Fibonacci(Progression):
    """One step up the Fibonacci sequence (1 1 2 3 5 8 ...) after a loss, two steps back after a win.
    State: the step."""

    name = "fibonacci"

    def stake(self, state) -> int:
        a, b = 1, 1
        for _ in range(state):
            a, b = b, a + b
        return a

    def won(self, state):
        return max(0, state - 2)

    def lost(self, state):
        return state + 1


class Labouchere(Progression):
    """Stake the first plus the last number of the line; cross both off after a win, write the stake
    at the end after a loss; a new line (1 2 3 4) once all are crossed off. State: the line."""

    name = "labouchere"
    line = (1, 2, 3, 4)

    def start(self):
        return self.line

    def stake(self, state) -> int:
        return state[0] + state[-1] if len(state) > 1 else state[0]

    def won(self, state):
        return state[1:-1] or self.start()

    def lost(self, state):
        return (*state, self.stake(state))


class OneThreeTwoSix(Progression):
    """1, 3, 2 then 6 units while winning; one unit again after a loss or after the fourth win."""

    name = "1-3-2-6"
    steps = (1, 3, 2, 6)

    def stake(self, state) -> int:
        return self.steps[state]

    def won(self, state):
        return (state + 1) % len(self.steps)

    def lost(self, state):
        return 0


#: How many of the big road's last columns a pattern reads: the rest of the shoe cannot change what it
#: says next (a derived road looking back k columns compares the current column with the one k back).
PATTERN_MEMORY = {
    "follow-winner": 1,
    "chop": 1,
    "follow-column": 2,
    "ask-big-eye-boy": 2,
    "ask-small-road": 3,
    "ask-cockroach-pig": 4,
}


@lru_cache(maxsize=1 << 16)
def _predict(pattern: str, outcomes: tuple[str, ...]) -> str | None:
    from models.systems.patterns import predict  # written beside this module; imported when first needed

    return predict(pattern, outcomes)


def last_columns(outcomes: Sequence[str], columns: int) -> tuple[str, ...]:
    """The decisions (ties dropped) of the big road's last `columns` columns."""
    decisions = [o for o in outcomes if o != "T"]
    start, seen = len(decisions), 0
    while start > 0 and seen < columns:
        seen += 1
        start -= 1
        while start > 0 and decisions[start - 1] == decisions[start]:
            start -= 1
    return tuple(decisions[start:])


class PatternFollower:
    """Flat stakes on the side a road pattern "says" (models/systems/patterns.py); sits out when it
    says nothing. State: the shoe's decisions so far, ties dropped (no pattern reads them)."""

    def __init__(self, pattern: str) -> None:
        if pattern not in PATTERN_MEMORY:
            raise ValueError(f"unknown pattern {pattern!r}: choose one of {', '.join(PATTERN_MEMORY)}")
        self.name = self.pattern = pattern

    def start(self) -> Hashable:
        return ()

    def stake(self, state) -> int:
        return 0 if _predict(self.pattern, state) is None else 1

    def side(self, state, bet: str) -> str | None:
        return _predict(self.pattern, state)

    def after(self, state, outcome: Outcome, won: bool | None) -> Hashable:
        return state if outcome == "T" else (*state, outcome)

    def restart(self, state) -> Hashable:
        return state  # no progression to lose: the shoe's history stays

    def key(self, state) -> Hashable:
        """The shortest history that says the same from here on: the exact chain's state."""
        return last_columns(state, PATTERN_MEMORY[self.pattern])


SYSTEMS: dict[str, Callable[[], System]] = {
    "flat": Flat,
    "martingale": Martingale,
    "paroli": Paroli,
    "dalembert": DAlembert,
    "fibonacci": Fibonacci,
    "labouchere": Labouchere,
    "1-3-2-6": OneThreeTwoSix,
    **{pattern: (lambda p=pattern: PatternFollower(p)) for pattern in PATTERN_MEMORY},
}


def system_of(system: str | System) -> System:
    """A system by its name, or the system itself."""
    if not isinstance(system, str):
        return system
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}: choose one of {', '.join(SYSTEMS)}")
    return SYSTEMS[system]()


# --- one coup of a session: the same arithmetic for the exact chain (integer ticks) and the back-test
# (Fractions of a currency unit). Money in a `Table` is in the caller's scale.


@dataclass(frozen=True)
class Table:
    """Limits in one exact scale (ticks or currency as Fraction)."""

    unit: int | Fraction
    max_bet: int | Fraction
    min_bet: int | Fraction
    bankroll: int | Fraction | None
    goal: int | Fraction | None
    stop_loss: int | Fraction | None

    @classmethod
    def of(cls, limits: Limits, scale: Fraction = Fraction(1)) -> Table:
        """`limits` with money divided by `scale` (the size of one tick in currency)."""

        def scaled(value: Decimal | None):
            if value is None:
                return None
            x = Fraction(value) / scale
            return x.numerator if x.denominator == 1 else x

        return cls(
            *(scaled(getattr(limits, n)) for n in ("unit", "max_bet", "min_bet", "bankroll", "goal", "stop_loss"))
        )

    def stops(self, result):
        """Masks (or booleans) of a session at `result` reaching its goal, its stop-loss, ruin."""
        never = np.zeros(np.shape(result), bool) if np.ndim(result) else False
        goal = result >= self.goal if self.goal is not None else never
        stop = result <= -self.stop_loss if self.stop_loss is not None else never
        ruin = self.bankroll + result < self.min_bet if self.bankroll is not None else never
        return goal, stop, ruin

    def ended(self, result) -> str | None:
        """Why a session at `result` stops now: 'goal', 'stop-loss', 'ruin', or None to play on."""
        for end, hit in zip(("goal", "stop-loss", "ruin"), self.stops(result), strict=True):
            if hit:
                return end
        return None

    def wager(self, units: int, result):
        """The amount staked for `units` and whether the table or the bankroll capped it (numbers, or
        arrays of them for an array of results)."""
        wanted = units * self.unit
        most = self.max_bet
        if self.bankroll is not None:
            left = self.bankroll + result
            most = np.minimum(most, (left // self.min_bet) * self.min_bet)  # whole table minimums
        capped = wanted > most
        return np.where(capped, most, wanted) if isinstance(capped, np.ndarray) else (
            most if capped else wanted
        ), capped


def play(system: System, state, bet: str, table: Table, result) -> tuple[str | None, int | Fraction, bool]:
    """The side backed, the amount staked (0: sits out) and whether it was capped, before a coup."""
    units = system.stake(state)
    side = system.side(state, bet) if units > 0 else None
    if side is None:
        return None, 0, False
    amount, capped = table.wager(units, result)
    return side, amount, bool(capped)


def settle(system: System, state, outcome: Outcome, net, capped: bool):
    """The state after a coup whose net per unit for the side backed was `net` (None: no bet)."""
    won = None if net is None or net == 0 else net > 0
    after = system.after(state, outcome, won)
    return system.restart(after) if capped and won is not None else after
