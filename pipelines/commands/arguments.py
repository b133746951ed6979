"""Argument types shared by the commands: each turns bad text into argparse's one-line error."""

from __future__ import annotations

import argparse
import datetime as dt

from models.game.games import Game


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
