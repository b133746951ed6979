"""The landing folder's round logs: delivered by tables, or dealt by the simulator."""

import datetime as dt
from typing import TYPE_CHECKING

import dagster as dg
from pydantic import Field

from models.game.games import Game
from models.gaming_day import GamingDay
from models.warehouse.shards import Sharding
from pipelines.defs.resources import SETTINGS, Warehouse

if TYPE_CHECKING:
    from models.simulate.config import Simulation

landing_files = dg.AssetSpec(
    "landing_files",
    description="Round logs (rounds and bets files) delivered into the landing folder by tables, smart "
    "shoes and capture tools; the landing sensor ingests each new file once.",
    kinds={"csv", "parquet"},
    group_name="landing",
)


class SimulatedShoesConfig(dg.Config):
    """What to deal: by default a month of six tables, every game, bets, a few misdeals, a few
    advantage players and a few strategy players (docs/simulator.md)."""

    games: list[str] = Field(default_factory=lambda: [game.value for game in Game])
    tables: int = 6
    shoes_per_day: int = 8
    days: int = 30
    start: str = ""  # first gaming day (ISO date); empty: `days` days before today
    decks: int = 8
    seed: int = 2026
    bets: bool = True
    misdeal_rate: float = 0.002
    advantage_share: float = Field(
        default=0.005,
        ge=0.0,
        le=1.0,
        description="share of the players who are advantage players (card counters, a perfect player, a wonger), "
        "labelled in the pool file `_players/`",
    )
    strategy_players: int = Field(
        default=3,
        ge=0,
        description="players of each strategy kind (always draws on 5, always stands on 5, plays the equilibrium), "
        "labelled in the pool file `_players/`",
    )
    count_fault_rate: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="share of table-shifts given one count fault, labelled in `_faults/count_faults_*`",
    )
    format: str = "parquet"
    shards: int = Field(
        default=SETTINGS.shards,
        ge=1,
        description="one rounds and bets file pair a chunk for each shard of tables, for that shard's worker "
        "to ingest (default: BANCO_SHARDS, or 2)",
    )

    def simulation(self, day: GamingDay) -> "Simulation":
        """The run this config asks for, its tables playing the gaming days `day` reckons."""
        from models.simulate.config import Population, Simulation

        start = dt.date.fromisoformat(self.start) if self.start else dt.date.today() - dt.timedelta(days=self.days)
        return Simulation(
            shoes=self.days * self.tables * self.shoes_per_day,
            seed=self.seed,
            decks=self.decks,
            games=tuple(Game(game) for game in self.games),
            tables=self.tables,
            start=start,
            shoes_per_day=self.shoes_per_day,
            timezone=day.timezone,
            day_start_hour=day.start_hour,
            bets=self.bets,
            population=Population(advantage_share=self.advantage_share, strategy_players=self.strategy_players),
        )


@dg.asset(
    description="Simulated shoes written into the landing folder exactly as a real table logs them "
    "(rounds and bets files, misdeals labelled in `_faults/`, the players and their kinds in `_players/`).",
    kinds={"numba", "parquet"},
    group_name="landing",
)
def simulated_shoes(config: SimulatedShoesConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    from models.simulate.run import write_simulation

    sim = config.simulation(warehouse.gaming_day)
    summary = write_simulation(
        sim,
        warehouse.landing_path,
        fmt=config.format,
        misdeal_rate=config.misdeal_rate,
        sharding=Sharding(config.shards),
        count_fault_rate=config.count_fault_rate,
    )
    return dg.MaterializeResult(
        metadata={
            "coups": summary.coups,
            "bets": summary.bets,
            "faults": summary.faults,
            "files": len(summary.files),
            "first_gaming_day": sim.start.isoformat(),
            "days": sim.days,
            "landing": dg.MetadataValue.path(str(warehouse.landing_path)),
            "summary": summary.line(),
        }
    )
