"""Every free decision rated exactly (marts.decisions): the compiled kernel vs the plain twin.

A simulated month of Chemin de Fer and Baccarat Banque shoes with their wagers (8 decks, one table
of each, about 40,000 coups) through `decisions`, against the plain enumeration a reader would write
(`tests/models/naive_decisions.py`: every ordered deal of the hidden cards in Fractions), timed on a
few of the month's decisions and scaled to coups by the month's decisions per coup.
"""

from __future__ import annotations

import time
from fractions import Fraction

import polars as pl

from benchmarks.report import Row, best_seconds, figure, publish, quick_requested, timings
from models.game.games import Game
from models.metrics.decisions import choices, decisions
from models.odds.decisions import NOT_LIVE
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from tests.models.naive_decisions import banker_values, punter_values

GAMES = (Game.CHEMIN_DE_FER, Game.BACCARAT_BANQUE)
MONTH = Simulation(shoes=620, tables=2, shoes_per_day=10, games=GAMES, decks=8, seed=11)  # 31 days
#: `--quick`: a tenth of the month (about 4,000 coups).
QUICK_MONTH = Simulation(shoes=62, tables=2, shoes_per_day=10, games=GAMES, decks=8, seed=11)
#: The decisions the plain twin is timed on (a Banque banker's two hands take it seconds).
PLAIN_DECISIONS, QUICK_PLAIN_DECISIONS = 6, 2


def month_of(sim: Simulation) -> tuple[pl.DataFrame, pl.DataFrame]:
    chunks = list(simulate(sim))
    return pl.concat([chunk.rounds for chunk in chunks]), pl.concat([chunk.bets for chunk in chunks])


def plain_rate(rounds: pl.DataFrame, bets: pl.DataFrame, rated: pl.DataFrame, how_many: int) -> float:
    """Coups per second of the plain twin: the seconds of `how_many` of the month's decisions (half
    a punter's, half a banker's), scaled by the month's decisions per coup."""
    found = choices(rounds, bets)
    picked = pl.concat([found.filter(pl.col("_decider") == who).head(how_many // 2) for who in (0, 1)])

    def plain() -> None:
        for row in picked.iter_rows(named=True):
            game, total, counts = Game(row["game"]), row["total"], list(row["_counts"])
            if row["_decider"] == 0:
                punter_values(counts, game, total)
            else:
                thirds = [None if t == NOT_LIVE else t for t in row["_thirds"]]
                stakes = [row["stake1"] or 0, row["stake2"] or 0]
                banker_values(counts, game, total, thirds, stakes, Fraction(19, 20))

    seconds = best_seconds(plain, repeat=1) / picked.height
    return 1.0 / (seconds * rated.height / rounds.height)


def main(quick: bool = False) -> None:
    rounds, bets = month_of(QUICK_MONTH if quick else MONTH)
    decisions(rounds, bets)  # compile (or load the cache) and solve the games before timing
    cpu = time.process_time()
    walls = timings(lambda: decisions(rounds, bets), repeat=3)
    cpu = (time.process_time() - cpu) / 3
    rated = decisions(rounds, bets)
    baseline = plain_rate(rounds, bets, rated, QUICK_PLAIN_DECISIONS if quick else PLAIN_DECISIONS)
    rate, spread = figure([rounds.height / wall for wall in walls], higher_is_better=True, quick=quick)
    rows = [
        Row(f"a month, {rounds.height:,} coups", rate, baseline, "coups/s", ">= 20,000 (#37)", True, spread,
            key="a month"),
        Row("  CPU per coup, all threads", cpu / rounds.height * 1e6, 1e6 / baseline, "us",
            key="a month: CPU per coup"),
        Row(f"  decisions rated, {rated.height:,}", rated.height / min(walls), baseline * rated.height / rounds.height,
            "decisions/s", higher_is_better=True, key="a month: decisions"),
    ]  # fmt: skip
    publish(
        "decisions",
        "decisions: every free draw of Chemin de Fer and Baccarat Banque rated exactly (8 decks)",
        rows,
        "plain twin, every ordered deal of the hidden cards in Fractions (a few decisions, scaled)",
        quick=quick,
    )


if __name__ == "__main__":
    main(quick_requested())
