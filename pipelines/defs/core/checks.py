"""Blocking checks on the core tables the marts read: a failure stops the marts of the same run."""

import dagster as dg

from models.warehouse import schema
from pipelines.defs.core.assets import key_of, latest_ingest_start
from pipelines.defs.metadata import preview
from pipelines.defs.resources import SETTINGS, Warehouse

MAX_TABLEAU_VIOLATION_RATE = SETTINGS.max_tableau_violation_rate
NOTHING_YET = dg.AssetCheckResult(passed=True, metadata={"note": "nothing ingested yet"})


@dg.asset_check(
    asset=key_of(schema.CORE_ROUNDS),
    blocking=True,
    description="Every file of the latest ingest: rows read = accepted + quarantined + duplicates, and the "
    "tables hold exactly the rows its log entry says.",
)
def rows_accounted(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    from models.warehouse import audit

    since = latest_ingest_start(context)
    if since is None:
        return NOTHING_YET
    with warehouse.latest() as con:
        bad = audit.unaccounted_files(con, since)
    return dg.AssetCheckResult(
        passed=bad.height == 0, metadata={"files_unaccounted": bad.height, "files": preview(bad, 20)}
    )


@dg.asset_check(
    asset=key_of(schema.CORE_ROUNDS),
    blocking=True,
    description=f"Round rows of the latest ingest quarantined for a tableau violation stay under "
    f"{MAX_TABLEAU_VIOLATION_RATE:.2%} (BANCO_MAX_TABLEAU_VIOLATION_RATE): above it, a source deals or "
    "logs wrongly and its marts would mislead.",
)
def tableau_violation_rate(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    from models.warehouse import audit

    since = latest_ingest_start(context)
    if since is None:
        return NOTHING_YET
    with warehouse.latest() as con:
        violations, rows = audit.tableau_violations(con, since)
    rate = violations / rows if rows else 0.0
    return dg.AssetCheckResult(
        passed=rate <= MAX_TABLEAU_VIOLATION_RATE,
        metadata={
            "violations": violations,
            "round_rows_read": rows,
            "rate": dg.MetadataValue.float(rate),
            "threshold": dg.MetadataValue.float(MAX_TABLEAU_VIOLATION_RATE),
        },
    )


@dg.asset_check(asset=key_of(schema.CORE_SHOES), blocking=True, description="Every shoe the latest ingest "
                "touched reconciles where its cards allow: no accepted coup takes a card, rank or value "
                "past what the shoe's decks hold.")  # fmt: skip
def shoes_reconcile(context: dg.AssetCheckExecutionContext, warehouse: Warehouse) -> dg.AssetCheckResult:
    from models.warehouse import audit

    since = latest_ingest_start(context)
    if since is None:
        return NOTHING_YET
    with warehouse.latest() as con:
        bad = audit.overdrawn_shoes(con, since)
        explained = con.sql(f"SELECT count(*) FROM {schema.CORE_SHOES} WHERE reconciliation = 'overdrawn'")
        explained = explained.fetchall()[0][0]
    return dg.AssetCheckResult(
        passed=bad.height == 0,
        metadata={
            "overdrawing_coups_stored": bad.height,
            "coups": preview(bad, 20),
            "shoes_with_overdrawn_rows_quarantined": explained,
        },
    )
