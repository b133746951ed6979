"""Argument types shared by the commands: each turns bad text into argparse's one-line error."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable

from models.game.games import Game
from models.simulate.config import MAX_ADVANTAGE_SHOES

#: The demo `banco up` and `banco cluster up` deal when nothing has landed: six tables of eight shoes a day
#: with advantage players (the `simulated_shoes` asset's defaults), within `banco simulate`'s ceiling on such
#: shoes (docs/simulator.md#ceilings).
MAX_DEMO_DAYS = MAX_ADVANTAGE_SHOES // (6 * 8)


def date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def game(text: str) -> Game:
    try:
        return Game.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def games(text: str) -> tuple[Game, ...]:
    return tuple(game(name) for name in text.split(",") if name.strip())


def whole(low: int | None = None, high: int | None = None, *, ceiling: str = "") -> Callable[[str], int]:
    """An argument type: a whole number from `low` to `high` (an open end for None). `ceiling` says where
    the documented reason for `high` is; past it the one line names both."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(f"a whole number from {low}, got {text!r}")
        if high is not None and value > high:
            why = f" (the ceiling: {ceiling})" if ceiling else ""
            raise argparse.ArgumentTypeError(f"at most {high:,}{why}, got {value:,}")
        return value

    return parse


#: The words a free draw's argument takes besides a probability of drawing.
DRAW_WORDS = {"draw": 1.0, "stand": 0.0, "mixed": 0.5}
#: The word for "as the solved game plays it" (models/simulate/strategies.py).
EQUILIBRIUM = "equilibrium"


def fraction(text: str, what: str = "a probability", otherwise: str = "a number") -> float:
    """A number from 0 to 1 (`what` names it in the error); `otherwise` says what else the flag takes."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: use {otherwise}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: {what} is between 0 and 1")
    return value


def draw_chance(text: str, words: str = "draw, stand, mixed") -> float:
    """draw, stand, mixed, or a probability of drawing."""
    if text in DRAW_WORDS:
        return DRAW_WORDS[text]
    return fraction(text, otherwise=f"{words} or a probability")


def draw_or_equilibrium(text: str) -> float | str:
    """As `draw_chance`, or `equilibrium`: the simulator's free draws."""
    return EQUILIBRIUM if text == EQUILIBRIUM else draw_chance(text, f"draw, stand, mixed, {EQUILIBRIUM}")


def demo_days(text: str) -> int:
    return whole(1, MAX_DEMO_DAYS, ceiling="docs/simulator.md#ceilings")(text)
