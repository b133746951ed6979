"""The serving snapshot after a build: every write publishes one; this asset publishes again only if the
newest is behind (under the writer lock) and reports it."""

import datetime as dt

import dagster as dg

from models.warehouse import schema, serving
from models.warehouse.store import publish, snapshot_current, writer_lock
from pipelines.defs.core.assets import DESCRIPTIONS as CORE_TABLES
from pipelines.defs.core.assets import key_of
from pipelines.defs.marts.assets import DESCRIPTIONS as MART_TABLES
from pipelines.defs.resources import Warehouse
from pipelines.defs.shards import SERVING


@dg.asset(
    description="A read-only copy of the warehouse (a new numbered file each time, readable by DuckDB 1.4 and "
    "newer; `banco.serving.duckdb` links to the newest) that the dashboard, `banco sql` and analysts open; a run "
    "in progress never blocks or breaks them.",
    deps=[key_of(table) for table in (*CORE_TABLES, *MART_TABLES)],
    kinds={"duckdb"},
    group_name="serving",
    pool="duckdb",
    op_tags=SERVING,
)
def serving_snapshot(warehouse: Warehouse) -> dg.MaterializeResult:
    with writer_lock(warehouse.db_path):
        copied = not snapshot_current(warehouse.db_path)
        if copied:
            publish(warehouse.db_path)
    snapshot = serving.published(warehouse.db_path)[0]
    stat = snapshot.stat()
    published = dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC)
    with warehouse.snapshot() as con:
        coups = con.sql(f"SELECT count(*) FROM {schema.CORE_ROUNDS}").fetchall()[0][0]
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(snapshot)),
            "bytes": stat.st_size,
            "published_at": dg.MetadataValue.text(published.isoformat()),
            "copied_now": copied,
            "coups": dg.MetadataValue.int(coups),
        }
    )
