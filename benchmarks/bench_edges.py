"""Every bet's exact edge before every coup (marts.coup_edges): the batch engine vs a per-coup loop.

A simulated month of punto_banco shoes (8 decks, about 50,000 coups) and a day of a 200-table
casino (about 240,000 coups) through `coup_edges`, against the plain loop a reader would write:
each coup's composition by `Composition.remove`, then `exact_odds(...).bets()` (timed on a few
shoes and scaled).
"""

from __future__ import annotations

import time

import polars as pl

from benchmarks.report import Row, best_seconds, figure, publish, quick_requested, timings
from models.game.cards import parse_hand
from models.game.games import Game
from models.game.shoe import Composition
from models.metrics.coup_edges import coup_edges
from models.odds.exact import exact_odds
from models.simulate.config import Simulation
from models.simulate.engine import simulate

MONTH = Simulation(shoes=620, tables=2, shoes_per_day=10, decks=8, bets=False, seed=11)  # 31 days
DAY = Simulation(shoes=3000, tables=200, shoes_per_day=15, decks=8, bets=False, seed=12)  # one gaming day
LOOP_SHOES = 30
#: `--quick`: a tenth of each (about 5,000 and 24,000 coups), the loop on 5 shoes.
QUICK_MONTH = Simulation(shoes=62, tables=2, shoes_per_day=10, decks=8, bets=False, seed=11)
QUICK_DAY = Simulation(shoes=300, tables=20, shoes_per_day=15, decks=8, bets=False, seed=12)
QUICK_LOOP_SHOES = 5


def rounds_of(sim: Simulation) -> pl.DataFrame:
    return pl.concat([chunk.rounds for chunk in simulate(sim)])


def plain_loop(rounds: pl.DataFrame) -> int:
    """Every coup's edges the plain way, shoe by shoe; the number of coups."""
    coups = 0
    for (_, _, game, decks), shoe in rounds.sort("round_no").group_by("table_id", "shoe_id", "game", "decks"):
        composition = Composition.full(decks)
        for player, banker in shoe.select("player_cards", "banker_cards").iter_rows():
            exact_odds(composition, Game(game)).bets()
            composition = composition.remove(parse_hand(player) + parse_hand(banker))
            coups += 1
    return coups


def loop_rate(rounds: pl.DataFrame, loop_shoes: int = LOOP_SHOES) -> float:
    """Coups per second of the plain loop over the first `loop_shoes` shoes (the best of 3)."""
    shoes = rounds.select("table_id", "shoe_id").unique(maintain_order=True).head(loop_shoes)
    sample = rounds.join(shoes, on=["table_id", "shoe_id"], how="semi")
    return sample.height / best_seconds(lambda: plain_loop(sample), repeat=3)


def cpu_and_wall(rounds: pl.DataFrame) -> tuple[list[float], float]:
    """Wall seconds of 3 runs, and CPU seconds (all threads, their mean) of `coup_edges` over `rounds`."""
    cpu = time.process_time()
    walls = timings(lambda: coup_edges(rounds), repeat=3)
    return walls, (time.process_time() - cpu) / 3


def main(quick: bool = False) -> None:
    month, day = (rounds_of(QUICK_MONTH), rounds_of(QUICK_DAY)) if quick else (rounds_of(MONTH), rounds_of(DAY))
    coup_edges(month.head(500))  # compile (or load the cache) before timing
    loop_shoes = QUICK_LOOP_SHOES if quick else LOOP_SHOES
    baseline = loop_rate(month, loop_shoes)
    month_walls, month_cpu = cpu_and_wall(month)
    day_walls, day_cpu = cpu_and_wall(day)
    month_rate, month_spread = figure([month.height / wall for wall in month_walls], higher_is_better=True, quick=quick)
    day_wall, day_spread = figure(day_walls, quick=quick)
    rows = [
        Row(f"a month, {month.height:,} coups", month_rate, baseline, "coups/s", ">= 100,000", True, month_spread,
            key="a month"),
        Row("  CPU per coup, all threads", month_cpu / month.height * 1e6, 1e6 / baseline, "us",
            key="a month: CPU per coup"),
        Row(f"a day, {day.height:,} coups", day_wall, day.height / baseline, "s", "well under 60", spread=day_spread,
            key="a day"),
        Row("  CPU per coup, all threads", day_cpu / day.height * 1e6, 1e6 / baseline, "us",
            key="a day: CPU per coup"),
    ]  # fmt: skip
    publish(
        "edges",
        "coup_edges: every bet's exact edge before every coup (punto_banco, 8 decks)",
        rows,
        f"plain loop, Composition.remove then exact_odds(...).bets() per coup ({loop_shoes} shoes, scaled)",
        quick=quick,
    )


if __name__ == "__main__":
    main(quick_requested())
