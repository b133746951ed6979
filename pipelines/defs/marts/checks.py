"""Flags, not blocks: is the play of the run's gaming days within what the exact odds allow?"""

import dagster as dg
import polars as pl

from models.warehouse import schema
from pipelines.defs.core.assets import key_of
from pipelines.defs.metadata import preview
from pipelines.defs.partitions import on_run_days, run_days
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING

#: |z| beyond this is flagged: about one false alarm in 15,000 groups of normal play.
Z_BAND = 4.0


def _coups(context, warehouse: Warehouse) -> pl.DataFrame:
    from models.metrics.days import coups_of_days, days_with_coups

    with warehouse.latest() as con:
        days = run_days(context) if context.has_partition_key or context.has_partition_key_range else None
        days = days or days_with_coups(con, warehouse.gaming_day)
        return coups_of_days(con, days, warehouse.gaming_day)


def _result(bands: pl.DataFrame, spec: dg.AssetCheckSpec, z: str, shown: list[str]) -> dg.AssetCheckResult:
    outside = bands.filter(pl.col(z).abs() > Z_BAND)
    return dg.AssetCheckResult(
        asset_key=spec.asset_key,
        check_name=spec.name,
        passed=outside.height == 0,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "groups_outside_band": outside.height,
            "z_band": Z_BAND,
            "by_game": preview(bands.select("game", *shown, z), 10),
        },
    )


TIE_RATE = dg.AssetCheckSpec(
    "tie_rate_in_band",
    asset=key_of(schema.MARTS_TIE_FREQUENCY),
    description=f"The tie rate of the run's gaming days, per game and deck count, within {Z_BAND} standard errors "
    "of the exact rate (marts.tie_frequency's own computation).",
)
BANKER_SHARE = dg.AssetCheckSpec(
    "banker_share_in_band",
    asset=key_of(schema.MARTS_TABLE_DAY),
    description=f"The Banker share of decided coups of the run's gaming days, per game, within {Z_BAND} standard "
    "errors of exact.",
)


@dg.multi_asset_check(specs=[TIE_RATE, BANKER_SHARE])
def outcomes_in_band(context: dg.AssetCheckExecutionContext, warehouse: Warehouse):
    """Both bands from one read of the run's coups: the tie metric itself, and the Banker share."""
    from models.metrics.bands import banker_share_band
    from models.metrics.ties import tie_frequency

    coups = _coups(context, warehouse).lazy()
    ties = tie_frequency(coups, [])  # per game and deck count
    yield _result(ties, TIE_RATE, "z", ["decks", "coups", "ties", "tie_rate", "expected_rate"])
    banker = banker_share_band(coups, ["game"])
    yield _result(banker, BANKER_SHARE, "banker_z", ["coups", "decided", "banker_share", "expected_banker_share"])


RATED_HANDLE = dg.AssetCheckSpec(
    "ratings_within_table_handle",
    asset=key_of(schema.MARTS_PLAYER_SESSIONS),
    description="The ratings of the run's gaming days account for no more handle, per table and day, than the "
    "table took (marts.table_day): a wager rated twice would show here.",
)


@dg.asset_check(
    asset=RATED_HANDLE.asset_key, name=RATED_HANDLE.name, description=RATED_HANDLE.description, blocking=False,
    op_tags=SERVING,  # it reads the serving snapshot, which only the serving host has
)  # fmt: skip
def ratings_within_table_handle(context: dg.AssetCheckExecutionContext, warehouse: Warehouse):
    """Rated handle against the table's handle, per table and gaming day, from the two marts."""
    listed = on_run_days(context, "r.gaming_day")
    with warehouse.snapshot() as con:
        tables = con.sql(
            "SELECT r.table_id, r.gaming_day, r.rated, t.handle FROM (SELECT table_id, gaming_day, sum(handle) AS "
            f"rated FROM {schema.MARTS_PLAYER_SESSIONS} GROUP BY ALL) r LEFT JOIN (SELECT table_id, gaming_day, "
            f"sum(handle) AS handle FROM {schema.MARTS_TABLE_DAY} GROUP BY ALL) t USING (table_id, gaming_day) "
            f"WHERE {listed} ORDER BY r.gaming_day, r.table_id"
        ).pl()
    over = tables.filter(pl.col("handle").is_null() | (pl.col("rated") > pl.col("handle")))
    rated, handle = tables["rated"].sum(), tables["handle"].sum()
    return dg.AssetCheckResult(
        passed=over.height == 0,
        metadata={
            "table_days": tables.height,
            "table_days_over": over.height,
            "rated_share_of_handle": float(rated / handle) if handle else 0.0,
            "over": preview(over, 10),
        },
    )


NEW_FLAGS = dg.AssetCheckSpec(
    "no_new_surveillance_flags",
    asset=key_of(schema.MARTS_SURVEILLANCE_FLAGS),
    description="No surveillance flag on the run's gaming days: a warning, with the flags, for the surveillance "
    "department to review (docs/surveillance.md says how to read one).",
)


@dg.asset_check(
    asset=NEW_FLAGS.asset_key, name=NEW_FLAGS.name, description=NEW_FLAGS.description, blocking=False,
    op_tags=SERVING,  # it reads the serving snapshot, which only the serving host has
)  # fmt: skip
def no_new_surveillance_flags(context: dg.AssetCheckExecutionContext, warehouse: Warehouse):
    """The flags stored for the run's gaming days (every day, in a run of the check alone)."""
    listed = on_run_days(context, "gaming_day")
    with warehouse.snapshot() as con:
        flags = con.sql(
            "SELECT gaming_day, player_id, rule, scope, table_id, p_value, q_value, edge_won, detail "
            f"FROM {schema.MARTS_SURVEILLANCE_FLAGS} WHERE {listed} ORDER BY gaming_day, player_id, rule, scope"
        ).pl()
    return dg.AssetCheckResult(
        passed=flags.height == 0,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={
            "flags": flags.height,
            "players_flagged": flags["player_id"].n_unique(),
            "days_with_flags": flags["gaming_day"].n_unique(),
            "flagged": preview(flags, 20),
        },
    )
