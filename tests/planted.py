"""A small warehouse of the tests' own, built from simulated play with planted advantage players and count
faults (the simulator's answer key beside the logs), for the tests that write to it: alerts, sensors."""

from __future__ import annotations

import datetime as dt
from pathlib import Path


def planted_warehouse(folder: Path, *, shoes: int = 24, tables: int = 4, seed: int = 11,
                      advantage_share: float = 0.1, count_fault_rate: float = 0.2) -> Path:  # fmt: skip
    """Deal Punto Banco shoes from 2026-11-01 (two a table-day) into `folder`/landing, ingest and build
    them; the warehouse file. A warehouse cannot be copied by its files, so each module builds its own."""
    from models.game.games import Game
    from models.metrics.build import build
    from models.simulate.config import Population, Simulation
    from models.simulate.run import write_simulation
    from models.warehouse.ingest import ingest

    sim = Simulation(shoes=shoes, tables=tables, shoes_per_day=2, games=(Game.PUNTO_BANCO,),
                     start=dt.date(2026, 11, 1), seed=seed,
                     population=Population(advantage_share=advantage_share))  # fmt: skip
    write_simulation(sim, folder / "landing", count_fault_rate=count_fault_rate)
    ingest(folder / "banco.duckdb", [folder / "landing"])
    build(folder / "banco.duckdb")
    return folder / "banco.duckdb"
