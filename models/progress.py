"""How a long step tells its caller how far it has gone; the caller decides whether and how to show it."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Called as a long step goes: `stage` (a few words, a new one for each stage) has done `done`
    of `total` (None: not known), `detail` a few words more (e.g. rows read)."""

    def __call__(self, stage: str, done: float, total: float | None = None, detail: str = "") -> None: ...


def quiet(stage: str, done: float, total: float | None = None, detail: str = "") -> None:
    """Shows nothing: every long step's default."""
