"""Recompute every mart from the core tables and publish the serving snapshot.

Each mart is one metric function of this package; this module only reads the core tables, adds
the gaming day, and writes the results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.metrics.gaming_day import GamingDay, gaming_day
from models.metrics.money import Rounding, commission, commission_per_unit, table_day
from models.metrics.shoes import shoe_summary
from models.metrics.streaks import bank_tenures, decision_runs, tenure_fit
from models.metrics.ties import tie_frequency, ties_by_total
from models.warehouse import schema, settlement
from models.warehouse.store import write

ROUND_COLUMNS = (
    "table_id, shoe_id, round_no, started_at, game, decks, dealer_id, bank_holder, outcome, "
    'player_total, banker_total, banker_third, "natural", player_pair, banker_pair, cards_used'
)
BET_COLUMNS = "table_id, shoe_id, round_no, game, bet, amount, house_net, commission, theo"


@dataclass(frozen=True)
class MartConfig:
    day: GamingDay = field(default_factory=GamingDay)
    rounding: Rounding = field(default_factory=Rounding)
    paytable: PayTable = DEFAULT_PAYTABLE


def compute_marts(
    rounds: pl.DataFrame, bets: pl.DataFrame, shoes: pl.DataFrame, config: MartConfig
) -> dict[str, pl.DataFrame]:
    """Every mart from the core tables, as frames keyed by table name."""
    rounds_lazy = rounds.lazy().with_columns(gaming_day(pl.col("started_at"), config.day))
    bets_lazy = bets.lazy()
    tenures = bank_tenures(rounds_lazy).collect()
    variance = settlement.house_expectation(config.paytable).select("game", "decks", "bet", "house_variance")
    variance = variance.with_columns(pl.col("decks").cast(pl.Int8))
    return {
        schema.MARTS_BANKER_STREAKS: tenures,
        schema.MARTS_DECISION_RUNS: decision_runs(rounds_lazy).collect(),
        schema.MARTS_TENURE_FIT: tenure_fit(tenures, by=["table_id", "game"]),
        schema.MARTS_COMMISSION: commission(
            bets_lazy, rounds_lazy, ("table_id", "gaming_day"), config.rounding, config.paytable
        ),
        schema.MARTS_COMMISSION_BY_DEALER: commission(
            bets_lazy, rounds_lazy, ("dealer_id", "gaming_day"), config.rounding, config.paytable
        ),
        schema.MARTS_COMMISSION_PER_UNIT: commission_per_unit(rounds_lazy, ("table_id", "gaming_day"), config.paytable),
        schema.MARTS_TIE_FREQUENCY: tie_frequency(rounds_lazy, ["table_id", "gaming_day"]),
        schema.MARTS_TIE_FREQUENCY_BY_SHOE: tie_frequency(rounds_lazy, ["table_id", "shoe_id"]),
        schema.MARTS_TIE_FREQUENCY_BY_DEALER: tie_frequency(rounds_lazy, ["dealer_id"]),
        schema.MARTS_TIES_BY_TOTAL: ties_by_total(rounds_lazy, ["table_id"]),
        schema.MARTS_TABLE_DAY: table_day(bets_lazy, rounds_lazy, variance),
        schema.MARTS_SHOE_SUMMARY: shoe_summary(rounds_lazy, shoes.lazy()),
    }


def build(db: Path, config: MartConfig = MartConfig()) -> dict[str, int]:
    """Rebuild the marts in one transaction and publish; returns the rows of each mart."""
    with write(db) as con:
        rounds = con.sql(f"SELECT {ROUND_COLUMNS} FROM {schema.CORE_ROUNDS}").pl()
        bets = con.sql(f"SELECT {BET_COLUMNS} FROM {schema.CORE_BETS}").pl()
        shoes = con.sql(f"SELECT * FROM {schema.CORE_SHOES}").pl()
        marts = compute_marts(rounds, bets, shoes, config)
        con.execute("BEGIN TRANSACTION")
        for name, frame in marts.items():
            con.register("mart_frame", frame)
            con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM mart_frame")
            con.unregister("mart_frame")
        con.execute("COMMIT")
    return {name: frame.height for name, frame in marts.items()}
