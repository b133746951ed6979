"""Integrity: quarantined rows by reason over time, tableau violations with their detail, shoes that fail
reconciliation, and the ingest log."""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboards import charts, filters, fmt, query

#: When a rejected row was played (a table event recorded), where its raw text says so; else when it
#: was ingested.
PLAYED = "coalesce(try_cast({field} AS TIMESTAMPTZ), ingested_at)"
#: Each quarantine table: its kind, the filters' grain and the field its raw text is timed by.
KINDS = (
    ("rounds", "quarantine.rounds", "quarantine"),
    ("bets", "quarantine.bets", "quarantine"),
    ("table events", "quarantine.table_events", "quarantined_event"),
)


def _quarantined(f: filters.Filters, columns: str) -> tuple[str, dict]:
    """Every quarantine table's rows in the filters, as `kind`, `played` and `columns`, and the parameters."""
    parts, params = [], {}
    for kind, table, grain in KINDS:
        where, more = f.where(grain)
        played = PLAYED.format(field=filters.raw_field(filters.QUARANTINED[grain]))
        parts.append(f"SELECT '{kind}' AS kind, {played} AS played, {columns} FROM {table} WHERE {where}")
        params |= more
    return " UNION ALL ".join(parts), params


def render() -> None:
    f = filters.current()
    st.title("Integrity")
    where, params = f.where("quarantine")
    rejected, rejected_params = _quarantined(f, "reason, detail")
    day = filters.gaming_day()
    by_reason = query.frame(
        "SELECT kind, reason, (timezone($zone, played) - to_hours($opens))::DATE AS gaming_day, "
        f"count(*) AS rows FROM ({rejected}) GROUP BY ALL ORDER BY ALL",
        rejected_params | {"zone": day.timezone, "opens": day.start_hour},
    )
    ingest = query.frame(
        "SELECT count(*) AS files, count(*) FILTER (WHERE status = 'failed') AS failed, "
        "sum(rows_read)::BIGINT AS rows_read, sum(rows_accepted)::BIGINT AS accepted, "
        "sum(rows_quarantined)::BIGINT AS quarantined, sum(rows_duplicate)::BIGINT AS duplicates "
        "FROM meta.ingest_log"
    ).row(0, named=True)
    a, b, c, d = st.columns(4)
    a.metric("Files ingested", fmt.count(ingest["files"]), help="All files, whatever the filters")
    b.metric("Failed files", fmt.count(ingest["failed"]))
    c.metric("Rows quarantined (filtered)", fmt.count(int(by_reason["rows"].sum())))
    d.metric("Duplicates skipped (all files)", fmt.count(ingest["duplicates"]))

    st.subheader("Quarantine by reason")
    if by_reason.is_empty():
        st.success("No row was quarantined in the filtered days and tables.")
    else:
        charts.show(
            alt.Chart(by_reason)
            .mark_bar()
            .encode(
                x=alt.X("gaming_day:T", title="gaming day played (else ingested)"),
                y=alt.Y("sum(rows):Q", title="rows", axis=alt.Axis(format=",d")),
                color=alt.Color("reason:N"),
                # the kind above its chart: beside it, it would cover the axis title
                row=alt.Row("kind:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start")),
                tooltip=["gaming_day:T", "kind", "reason", alt.Tooltip("rows:Q", format=",")],
            )
            .properties(height=160)
        )
        totals = query.frame(
            "SELECT kind, reason, count(*) AS rows, any_value(detail) AS example "
            f"FROM ({rejected}) GROUP BY ALL ORDER BY kind DESC, rows DESC",
            rejected_params,
        )
        fmt.table(totals, hide_index=True, column_config=fmt.columns(counts=("rows",)))

    st.subheader("Tableau violations")
    violations = query.frame(
        f"SELECT table_id, shoe_id, round_no, detail, {filters.raw_field('player_cards')} AS player_cards, "
        f"{filters.raw_field('banker_cards')} AS banker_cards, source_file, line_no FROM quarantine.rounds "
        f"WHERE reason = 'tableau_violation' AND {where} ORDER BY table_id, shoe_id, round_no LIMIT 1000",
        params,
    )
    if violations.is_empty():
        st.success("No tableau violation in the filtered days and tables.")
    else:
        fmt.table(violations, hide_index=True)

    st.subheader("Shoes that fail reconciliation")
    shoe_where, shoe_params = f.shoes("s")
    failing = query.frame(
        "SELECT s.table_id, s.shoe_id, s.game, s.decks, s.reconciled_by, s.overdrawn_rows, q.round_no, q.detail, "
        "q.source_file, q.line_no FROM core.shoes s LEFT JOIN quarantine.rounds q ON q.table_id = s.table_id "
        "AND q.shoe_id = s.shoe_id AND q.reason = 'shoe_overdrawn' WHERE s.reconciliation = 'overdrawn' AND "
        f"{shoe_where} "
        "ORDER BY s.table_id, s.shoe_id, q.round_no",
        shoe_params,
    )
    if failing.is_empty():
        st.success("Every filtered shoe reconciles: no card was seen more often than its shoe holds.")
    else:
        fmt.table(failing, hide_index=True)

    st.subheader("Ingest log")
    log = query.frame(
        "SELECT path, kind, status, rows_read, rows_accepted, rows_quarantined, rows_duplicate, "
        "round(epoch(finished_at) - epoch(started_at), 2) AS seconds, started_at, error "
        "FROM meta.ingest_log ORDER BY started_at DESC LIMIT 200"
    )
    fmt.table(
        log,
        hide_index=True,
        column_config=fmt.columns(counts=("rows_read", "rows_accepted", "rows_quarantined", "rows_duplicate")),
    )


render()
