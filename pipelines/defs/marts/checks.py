"""Flags, not blocks: is the play of the run's gaming days within what the exact odds allow?"""

import dagster as dg
import polars as pl

from models.metrics.bands import outcome_bands
from models.metrics.days import coups_of_days, days_with_coups
from models.warehouse import schema
from pipelines.defs.core.assets import key_of
from pipelines.defs.marts.assets import run_days
from pipelines.defs.metadata import preview
from pipelines.defs.resources import Warehouse

#: |z| beyond this is flagged: about one false alarm in 15,000 groups of normal play.
Z_BAND = 4.0


def _bands(context, warehouse: Warehouse) -> pl.DataFrame:
    with warehouse.snapshot() as con:
        days = run_days(context) if context.has_partition_key or context.has_partition_key_range else None
        days = days or days_with_coups(con, warehouse.gaming_day)
        coups = coups_of_days(con, days, warehouse.gaming_day)
    return outcome_bands(coups.lazy(), ["game"])


def _result(bands: pl.DataFrame, z: str, shown: list[str]) -> dg.AssetCheckResult:
    outside = bands.filter(pl.col(z).abs() > Z_BAND)
    return dg.AssetCheckResult(
        passed=outside.height == 0,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "games_outside_band": outside.height,
            "z_band": Z_BAND,
            "by_game": preview(bands.select("game", "coups", *shown, z), 10),
        },
    )


@dg.asset_check(asset=key_of(schema.MARTS_TIE_FREQUENCY), description="The tie rate of the run's gaming days, "
                f"per game, within {Z_BAND} standard errors of the exact rate for the decks dealt.")  # fmt: skip
def tie_rate_in_band(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    return _result(_bands(context, warehouse), "tie_z", ["ties", "tie_rate", "expected_tie_rate"])


@dg.asset_check(asset=key_of(schema.MARTS_TABLE_DAY), description="The Banker share of decided coups of the "
                f"run's gaming days, per game, within {Z_BAND} standard errors of exact.")  # fmt: skip
def banker_share_in_band(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    return _result(_bands(context, warehouse), "banker_z", ["decided", "banker_share", "expected_banker_share"])
