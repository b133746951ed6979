"""Audits of the stored warehouse: the invariants ingest promises, checked on what is there.

The Dagster asset checks call these; each returns the offending rows (empty when sound) or a rate.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from models.warehouse import schema
from models.warehouse.reconciliation import overdrawn_stored

TABLES_OF = {
    "accepted": (schema.CORE_ROUNDS, schema.CORE_BETS, schema.CORE_TABLE_EVENTS),
    "quarantined": (schema.QUARANTINE_ROUNDS, schema.QUARANTINE_BETS, schema.QUARANTINE_TABLE_EVENTS),
}


def unaccounted_files(con, since: dt.datetime | None = None) -> pl.DataFrame:
    """Files whose rows do not add up: read != accepted + quarantined + duplicate in the ingest log,
    or the tables holding a different number of the file's rows than the log says. Only the files
    ingested since `since`, when given (a file's rows carry its ingest's start as `ingested_at`)."""
    recent = "" if since is None else " WHERE ingested_at >= $since"
    held = {
        status: " UNION ALL ".join(f"SELECT source_file AS path FROM {table}{recent}" for table in tables)
        for status, tables in TABLES_OF.items()
    }
    return con.sql(
        f"""
        WITH logged AS (
            SELECT path, sum(rows_read) AS rows_read, sum(rows_accepted) AS rows_accepted,
                   sum(rows_quarantined) AS rows_quarantined, sum(rows_duplicate) AS rows_duplicate
            FROM {schema.INGEST_LOG} WHERE status = 'ok'{"" if since is None else " AND started_at >= $since"}
            GROUP BY path
        ),
        accepted AS (SELECT path, count(*) AS stored_accepted FROM ({held["accepted"]}) GROUP BY path),
        quarantined AS (SELECT path, count(*) AS stored_quarantined FROM ({held["quarantined"]}) GROUP BY path)
        SELECT logged.*, coalesce(stored_accepted, 0) AS stored_accepted,
               coalesce(stored_quarantined, 0) AS stored_quarantined
        FROM logged LEFT JOIN accepted USING (path) LEFT JOIN quarantined USING (path)
        WHERE rows_read != rows_accepted + rows_quarantined + rows_duplicate
           OR rows_accepted != coalesce(stored_accepted, 0)
           OR rows_quarantined != coalesce(stored_quarantined, 0)
        ORDER BY path
        """,
        params=None if since is None else {"since": since},
    ).pl()


def tableau_violations(con, since: dt.datetime) -> tuple[int, int]:
    """(round rows quarantined for a tableau violation, round rows read) in files ingested since `since`."""
    violations = con.sql(
        f"SELECT count(*) FROM {schema.QUARANTINE_ROUNDS} WHERE reason = 'tableau_violation' AND ingested_at >= $since",
        params={"since": since},
    ).fetchall()[0][0]
    rows = con.sql(
        f"SELECT coalesce(sum(rows_read), 0) FROM {schema.INGEST_LOG} "
        "WHERE kind = 'rounds' AND status = 'ok' AND started_at >= $since",
        params={"since": since},
    ).fetchall()[0][0]
    return int(violations), int(rows)


def overdrawn_shoes(con, since: dt.datetime) -> pl.DataFrame:
    """Stored coups, in shoes that received rounds since `since`, that overdraw their shoe."""
    shoes = con.sql(
        f"SELECT DISTINCT table_id, shoe_id FROM {schema.CORE_ROUNDS} WHERE ingested_at >= $since",
        params={"since": since},
    ).pl()
    return overdrawn_stored(con, shoes)
