"""Baccarat Banque's solutions on the theta grid, solved once and kept in banque_grid.json.

One Nash solve takes seconds (up to ten on a busy machine), and every build, shard and simulation
needs the grid's solutions: they read this file instead. `python -m models.gametheory.banque_grid`
writes it from `models.gametheory.strategy.solved_banque`; a test solves it again and compares.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

GRID_FILE = Path(__file__).with_name("banque_grid.json")


def key(kind: str, theta: Fraction) -> str:
    return f"{kind} {theta}"


@lru_cache(maxsize=1)
def stored() -> dict[str, dict | None]:
    """The file's solutions by `key`: None where that solution does not exist at that theta."""
    try:
        return json.loads(GRID_FILE.read_text())
    except FileNotFoundError:
        return {}


def arrays(kind: str, theta: Fraction) -> tuple[np.ndarray, np.ndarray] | bool | None:
    """(punters, banker) as kept; None when the solution does not exist there; False when not kept."""
    found = stored().get(key(kind, theta), False)
    if not found:
        return found
    return np.array(found["punters"], dtype=np.float64), np.array(found["banker"], dtype=np.float64)


def main() -> None:
    from models.gametheory.strategy import SOLUTIONS, THETA_STEP, solved_banque

    grid: dict[str, dict | None] = {}
    for kind in SOLUTIONS:
        for step in range(1, round(1 / THETA_STEP)):
            theta = step * THETA_STEP
            solved = solved_banque(theta, kind)
            grid[key(kind, theta)] = solved and {"punters": solved[0].tolist(), "banker": solved[1].tolist()}
            print(key(kind, theta), "solved" if solved else "does not exist", flush=True)
    GRID_FILE.write_text(json.dumps(grid, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
