"""Compile the numba kernels into numba's on-disk cache before pytest-xdist starts its workers.

A fresh clone has no cache, and each worker would otherwise compile the same kernels at once (the
simulator's parallel ones take over a minute). Run by the root conftest in the controlling process
as two processes side by side, `python -m tests.warm simulate` and `python -m tests.warm odds`;
with the cache filled they take seconds.
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

PARTS = ("simulate", "odds")


def simulate_ingest_build(folder: Path) -> None:
    """The simulator's, the ingest's and the marts' kernels: a small warehouse of every game, with bets,
    advantage players, misdeals and count-room faults, two shards, in every log format (the readers'
    kernels differ by format), ingested and built."""
    from models.game.games import Game
    from models.metrics.build import build
    from models.simulate.config import Population, Simulation
    from models.simulate.output import FORMATS
    from models.simulate.run import write_simulation
    from models.warehouse.ingest import ingest
    from models.warehouse.shards import Sharding

    sim = Simulation(shoes=12, tables=6, shoes_per_day=2, games=tuple(Game), start=dt.date(2026, 11, 1), seed=1,
                     population=Population(advantage_share=0.2))  # fmt: skip
    for number, fmt in enumerate(FORMATS):
        write_simulation(replace(sim, seed=number + 1, start=sim.start + dt.timedelta(days=3 * number)),
                         folder / "landing" / fmt, fmt, misdeal_rate=0.02, count_fault_rate=0.2,
                         sharding=Sharding(2))  # fmt: skip
    db = folder / "banco.duckdb"
    ingest(db, [folder / "landing"])
    build(db)


def odds_and_systems() -> None:
    """The exact-odds, the betting-systems and the outcome-tally kernels."""
    from models.game.games import Game
    from models.game.shoe import Composition
    from models.odds.exact import exact_odds
    from models.simulate.dealing import new_deck
    from models.simulate.kernels import count_outcomes
    from models.simulate.strategies import by_total
    from models.systems import lab
    from models.systems.rules import Limits

    for game in Game:
        exact_odds(Composition.full(8), game)
        draws = by_total(game)
        count_outcomes(1, 0, 2, new_deck(8), *draws, game.second_player_hand)
    for system in ("flat", "martingale", "follow-column"):
        question = lab.Question(system, "banker", Limits(coups=12, bankroll=Decimal(500)))
        lab.exact_or_note(question, max_states=100_000)


def main(part: str) -> int:
    if part == "simulate":
        with tempfile.TemporaryDirectory(prefix="banco-warm-") as folder:
            simulate_ingest_build(Path(folder))
    elif part == "odds":
        odds_and_systems()
    else:
        print(f"warm: unknown part {part!r} (one of {', '.join(PARTS)})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
