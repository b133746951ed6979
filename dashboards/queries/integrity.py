"""The Integrity page's reads: quarantined rows by reason and gaming day, tableau violations, shoes that fail
reconciliation, and the ingest log."""

from __future__ import annotations

from typing import Any

import polars as pl

from dashboards import filters, query
from models.warehouse import schema

#: When a rejected row was played (a table event recorded), where its raw text says so; else when it
#: was ingested.
PLAYED = "coalesce(try_cast({field} AS TIMESTAMPTZ), ingested_at)"
#: Each quarantine table: its kind, the filters' grain and the field its raw text is timed by.
KINDS = (
    ("rounds", schema.QUARANTINE_ROUNDS, "quarantine"),
    ("bets", schema.QUARANTINE_BETS, "quarantine"),
    ("table events", schema.QUARANTINE_TABLE_EVENTS, "quarantined_event"),
)
INGESTED = (
    "SELECT count(*) AS files, count(*) FILTER (WHERE status = 'failed') AS failed, "
    "sum(rows_read)::BIGINT AS rows_read, sum(rows_accepted)::BIGINT AS accepted, "
    "sum(rows_quarantined)::BIGINT AS quarantined, sum(rows_duplicate)::BIGINT AS duplicates "
    f"FROM {schema.INGEST_LOG}"
)
LOG = (
    "SELECT path, kind, status, rows_read, rows_accepted, rows_quarantined, rows_duplicate, "
    "round(epoch(finished_at) - epoch(started_at), 2) AS seconds, started_at, error "
    f"FROM {schema.INGEST_LOG} ORDER BY started_at DESC LIMIT 200"
)
FAILING = (
    "SELECT s.table_id, s.shoe_id, s.game, s.decks, s.reconciled_by, s.overdrawn_rows, q.round_no, q.detail, "
    f"q.source_file, q.line_no FROM {schema.CORE_SHOES} s LEFT JOIN {schema.QUARANTINE_ROUNDS} q "
    "ON q.table_id = s.table_id AND q.shoe_id = s.shoe_id AND q.reason = 'shoe_overdrawn' "
    "WHERE s.reconciliation = 'overdrawn' AND {where} ORDER BY s.table_id, s.shoe_id, q.round_no"
)


def _quarantined(f: filters.Filters, columns: str) -> tuple[str, dict[str, Any]]:
    """Every quarantine table's rows in the filters, as `kind`, `played` and `columns`, and the parameters."""
    parts, params = [], {}
    for kind, table, grain in KINDS:
        where, more = f.where(grain)
        played = PLAYED.format(field=filters.raw_field(filters.QUARANTINED[grain]))
        parts.append(f"SELECT '{kind}' AS kind, {played} AS played, {columns} FROM {table} WHERE {where}")
        params |= more
    return " UNION ALL ".join(parts), params


def by_reason(f: filters.Filters) -> pl.DataFrame:
    """Rows quarantined in the filters per kind, reason and the gaming day they were played (else ingested)."""
    rejected, params = _quarantined(f, "reason, detail")
    day = filters.gaming_day()
    return query.frame(
        "SELECT kind, reason, (timezone($zone, played) - to_hours($opens))::DATE AS gaming_day, "
        f"count(*) AS rows FROM ({rejected}) GROUP BY ALL ORDER BY ALL",
        params | {"zone": day.timezone, "opens": day.start_hour},
    )


def reasons(f: filters.Filters) -> pl.DataFrame:
    """Rows quarantined in the filters per kind and reason, with an example of their detail."""
    rejected, params = _quarantined(f, "reason, detail")
    return query.frame(
        "SELECT kind, reason, count(*) AS rows, any_value(detail) AS example "
        f"FROM ({rejected}) GROUP BY ALL ORDER BY kind DESC, rows DESC",
        params,
    )


def ingested() -> dict[str, Any]:
    """Files ingested and failed, and the rows they read, accepted, quarantined and skipped, of every file."""
    return query.frame(INGESTED).row(0, named=True)


def violations(f: filters.Filters) -> pl.DataFrame:
    """The filtered rounds quarantined as tableau violations, with their cards (1,000 at most)."""
    where, params = f.where("quarantine")
    return query.frame(
        f"SELECT table_id, shoe_id, round_no, detail, {filters.raw_field('player_cards')} AS player_cards, "
        f"{filters.raw_field('banker_cards')} AS banker_cards, source_file, line_no FROM {schema.QUARANTINE_ROUNDS} "
        f"WHERE reason = 'tableau_violation' AND {where} ORDER BY table_id, shoe_id, round_no LIMIT 1000",
        params,
    )


def failing(f: filters.Filters) -> pl.DataFrame:
    """The filtered shoes that fail reconciliation, with each row quarantined for overdrawing them."""
    where, params = f.shoes("s")
    return query.frame(FAILING.format(where=where), params)


def log() -> pl.DataFrame:
    """The latest 200 files of the ingest log."""
    return query.frame(LOG)
