"""Baccarat Banque's solutions as card-indexed arrays on the theta grid, solved once and kept in
banque_grid.json.

One Nash solve takes seconds (up to ten on a busy machine), and every build, shard and simulation
needs the grid's solutions: they read the file (`arrays`) instead of solving (`solved_banque`).
`python -m models.gametheory.banque_grid` writes it; a test solves it again and compares.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np

from models.gametheory.banque_game import CORRELATED, INDEPENDENT, NASH
from models.gametheory.banque_payoffs import NATURAL, Cell
from models.gametheory.banque_payoffs import STOOD as BANQUE_STOOD

GRID_FILE = Path(__file__).with_name("banque_grid.json")
#: Banque's banker sees, of each punter, his third card (0..9), that he stood, or his natural.
SHOWN_STOOD, SHOWN_NATURAL = 10, 11
SHOWN = 12
#: Ethier and Lee's three solutions, the Nash equilibrium first (the simulator's default).
SOLUTIONS = (NASH, INDEPENDENT, CORRELATED)
#: Banque's theta is rounded to this grid before solving: each solve takes seconds.
THETA_STEP = Fraction(1, 10)


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


def solved_banque(theta: Fraction, kind: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(punters, banker) of `BanqueStrategy` solved now at theta; None where the solution does not exist."""
    # the solvers bring scipy: imported only to solve, never by the simulator's or the CLI's start-up
    from models.gametheory.banque_cooperative import correlated, independent
    from models.gametheory.banque_nash import nash

    solution = {NASH: nash, INDEPENDENT: independent, CORRELATED: correlated}[kind](theta)
    if not solution.exists:
        return None
    punters, banker = np.zeros((2, 10, 10)), np.zeros((10, SHOWN, SHOWN))
    for i in range(2):
        on_5 = float(solution.draws_on_5(i + 1))
        for a in range(10):
            for b in range(10):
                total = (a + b) % 10
                punters[i, a, b] = on_5 if total == 5 else float(total < 5)
    code = {NATURAL: SHOWN_NATURAL, BANQUE_STOOD: SHOWN_STOOD, **{third: third for third in range(10)}}
    for total in range(8):
        for first, i in code.items():
            for second, j in code.items():
                # a cell the solution leaves out is one where drawing and standing are worth the same
                p = solution.banker.get(Cell(total, first, second))
                banker[total, i, j] = float(total <= 5) if p is None else float(p)
    return punters, banker


def main() -> None:
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
