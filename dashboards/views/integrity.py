"""Integrity: quarantined rows by reason over time, tableau violations with their detail, shoes that fail
reconciliation, and the ingest log."""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboards import charts, filters, fmt
from dashboards.layout import metric_row
from dashboards.queries import integrity


def render() -> None:
    f = filters.current()
    st.title("Integrity")
    by_reason = integrity.by_reason(f)
    ingest = integrity.ingested()
    a, b, c, d = metric_row(4)
    a.metric("Files ingested", fmt.count(ingest["files"]), help="All files, whatever the filters")
    b.metric("Failed files", fmt.count(ingest["failed"]))
    c.metric("Rows quarantined (filtered)", fmt.count(int(by_reason["rows"].sum())))
    d.metric("Duplicates skipped (all files)", fmt.count(ingest["duplicates"]))

    st.subheader("Quarantine by reason")
    if by_reason.is_empty():
        st.success("No row was quarantined in the filtered days and tables.")
    else:
        charts.show(
            alt.Chart(by_reason, title="Which rows were quarantined, why, and when?")
            .mark_bar()
            .encode(
                x=alt.X("gaming_day:T", title="Gaming day played (else ingested)"),
                y=alt.Y("sum(rows):Q", title="Rows quarantined", axis=alt.Axis(format=",d")),
                color=alt.Color("reason:N", legend=charts.named("Reason")),
                # the kind above its chart: beside it, it would cover the axis title
                row=alt.Row("kind:N", title=None, header=alt.Header(labelOrient="top", labelAnchor="start")),
                tooltip=["gaming_day:T", "kind", "reason", alt.Tooltip("rows:Q", format=",")],
            )
            .properties(height=160)
            .resolve_scale(y="independent")  # each kind on its own axis: a few rounds beside many bets still show
        )
        fmt.table(integrity.reasons(f), hide_index=True)

    st.subheader("Tableau violations")
    violations = integrity.violations(f)
    if violations.is_empty():
        st.success("No tableau violation in the filtered days and tables.")
    else:
        fmt.table(violations, hide_index=True)

    st.subheader("Shoes that fail reconciliation")
    failing = integrity.failing(f)
    if failing.is_empty():
        st.success("Every filtered shoe reconciles: no card was seen more often than its shoe holds.")
    else:
        fmt.table(failing, hide_index=True)

    st.subheader("Ingest log")
    fmt.table(
        integrity.log(),
        hide_index=True,
    )


render()
