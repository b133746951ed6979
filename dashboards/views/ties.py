"""Ties: the tie rate against the exact rate with confidence intervals (a funnel plot by volume), ties by
total, and the groups flagged after the false-discovery correction."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt
from dashboards.queries import ties
from models.metrics.expectation import funnel_limits


def render() -> None:
    f = filters.current()
    st.title("Ties")
    grouping = st.radio("Groups", list(ties.GROUPS), horizontal=True, key="ties_groups")
    names = ties.GROUPS[grouping][2]
    totals = filters.require(ties.totals(f, grouping)).row(0, named=True)
    rate, expected = totals["tie_rate"], totals["expected_rate"]
    a, b, c, d = st.columns(4)
    a.metric("Ties", fmt.count(totals["ties"]))
    b.metric("Tie rate", fmt.percent(rate, "rate"), delta=fmt.points(rate - expected, "rate"), delta_color="off")
    c.metric("Expected", fmt.percent(expected, "rate"))
    d.metric("Flagged groups", f"{fmt.count(totals['flagged'])} of {fmt.count(totals['groups'])}")

    # the flagged groups and those furthest from expected, if there are more than a chart can carry
    points = ties.furthest(f, grouping, charts.MAX_POINTS)
    low, high = int(points["coups"].min()), int(points["coups"].max())
    limits = funnel_limits(expected, range(max(1, low // 2), high + 1, max(1, high // 200)))
    band = alt.Chart(limits).mark_area(opacity=0.15).encode(x="coups:Q", y="low:Q", y2="high:Q")
    centre = alt.Chart(pl.DataFrame({"rate": [expected]})).mark_rule(strokeDash=[4, 4]).encode(y="rate:Q")
    dots = (
        alt.Chart(points.with_columns(pl.col("gaming_day").cast(pl.String)))
        .mark_circle(size=40)
        .encode(
            x=alt.X("coups:Q", title="coups in the group", axis=alt.Axis(format=",d"), scale=alt.Scale(zero=False)),
            y=alt.Y("tie_rate:Q", title="tie rate", axis=alt.Axis(format=".0%")),
            color=alt.Color("flagged:N", scale=alt.Scale(domain=[False, True], range=["#7f8c8d", "#c0392b"])),
            tooltip=[
                *[name.strip() for name in names.split(",")],
                alt.Tooltip("coups:Q", format=","),
                alt.Tooltip("tie_rate:Q", format=".2%"),
                alt.Tooltip("p_value:Q", format=".4f"),
            ],
        )
    )
    charts.show((band + centre + dots).properties(title="Tie rate by volume, within the 95% funnel", height=360))
    st.caption(
        f"The band holds 95% of groups of each size at the pooled exact rate {fmt.percent(expected, 'rate')}; "
        "a point outside it is unusual on its own, and flagged only if it stays so after the Benjamini-Hochberg "
        "correction over the groups of its gaming day."
        + (
            f" Showing the {charts.MAX_POINTS:,} groups furthest from expected."
            if totals["groups"] > len(points)
            else ""
        )
    )

    st.subheader("Ties by total")
    by_total = ties.by_total(f)
    bars = (
        alt.Chart(by_total)
        .mark_bar(color="#2e8b57")
        .encode(
            x=alt.X("tie_total:O", title="tie on total"),
            y=alt.Y("ties:Q", axis=alt.Axis(format=",d")),
            tooltip=["tie_total", alt.Tooltip("ties:Q", format=","), alt.Tooltip("expected_ties:Q", format=",.1f")],
        )
    )
    ticks = (
        alt.Chart(by_total).mark_tick(color="black", thickness=2, size=30).encode(x="tie_total:O", y="expected_ties:Q")
    )
    charts.show((bars + ticks).properties(height=260))
    st.caption("Bars: ties seen on each total; black ticks: what the exact odds expect (coups with cards only).")

    st.subheader("Flagged groups")
    flagged = ties.flagged(f, grouping)
    if flagged.is_empty():
        st.success("No group is flagged after the false-discovery correction.")
    else:
        fmt.table(
            flagged,
            hide_index=True,
        )


render()
