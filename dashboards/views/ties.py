"""Ties: the tie rate against the exact rate with confidence intervals (a funnel plot by volume), ties by
total, and the groups flagged after the false-discovery correction."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt
from dashboards.layout import metric_row
from dashboards.queries import ties
from models.metrics.expectation import funnel_limits
from models.metrics.ties import ALPHA


def render() -> None:
    f = filters.current()
    st.title("Ties")
    grouping = st.radio("Groups", list(ties.GROUPS), horizontal=True, key="ties_groups")
    names = ties.GROUPS[grouping][2]
    totals = filters.require(ties.totals(f, grouping)).row(0, named=True)
    rate, expected = totals["tie_rate"], totals["expected_rate"]
    a, b, c, d = metric_row(4)
    a.metric("Ties", fmt.count(totals["ties"]))
    b.metric("Tie rate", fmt.percent(rate, "rate"), delta=fmt.points(rate - expected, "rate"), delta_color="off")
    c.metric("Expected", fmt.percent(expected, "rate"))
    d.metric("Flagged groups", f"{fmt.count(totals['flagged'])} of {fmt.count(totals['groups'])}")

    # the flagged groups and those furthest from expected, if there are more than a chart can carry
    points = ties.furthest(f, grouping, charts.MAX_POINTS)
    low, high = int(points["coups"].min()), int(points["coups"].max())
    limits = funnel_limits(expected, range(max(1, low // 2), high + 1, max(1, high // 200)))
    band = (
        alt.Chart(limits)
        .mark_area(opacity=0.15)
        .encode(x=alt.X("coups:Q", title="Coups in the group"), y=alt.Y("low:Q", title="Tie rate (%)"), y2="high:Q")
    )
    centre = alt.Chart(pl.DataFrame({"rate": [expected]})).mark_rule(strokeDash=[4, 4]).encode(y="rate:Q")
    dots = (
        alt.Chart(points.with_columns(pl.col("gaming_day").cast(pl.String)))
        .mark_circle(size=40)
        .encode(
            x=alt.X("coups:Q", title="Coups in the group", axis=alt.Axis(format=",d"), scale=alt.Scale(zero=False)),
            y=alt.Y("tie_rate:Q", title="Tie rate (%)", axis=alt.Axis(format=".1%")),
            color=alt.Color(
                "flagged:N",
                scale=alt.Scale(domain=[False, True], range=["#7f8c8d", "#c0392b"]),
                legend=alt.Legend(title="Flagged", labelExpr="datum.value ? 'yes' : 'no'"),
            ),
            tooltip=[
                *[name.strip() for name in names.split(",")],
                alt.Tooltip("coups:Q", format=","),
                alt.Tooltip("tie_rate:Q", format=".2%"),
                alt.Tooltip("p_value:Q", format=".2g"),
                alt.Tooltip("q_value:Q", format=".2g"),
            ],
        )
    )
    charts.show(
        (band + centre + dots).properties(
            title="Which groups tie more or less often than chance allows? (the 95 % funnel)", height=360
        )
    )
    st.caption(
        f"The band holds 95% of groups of each size at the pooled exact rate {fmt.percent(expected, 'rate')}; "
        "a point outside it is unusual on its own, and flagged only if it stays so after the Benjamini-Hochberg "
        f"correction over the groups of its gaming day: its q-value below {ALPHA:g}, a false-discovery rate of "
        f"{fmt.percent(ALPHA, 'share')} fixed for this test of the dealing "
        "(BANCO_SURVEILLANCE_FDR is surveillance's alone)."
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
            x=alt.X("tie_total:O", title="Tie on total (points)", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("ties:Q", title="Ties", axis=alt.Axis(format=",d")),
            tooltip=["tie_total", alt.Tooltip("ties:Q", format=","), alt.Tooltip("expected_ties:Q", format=",.1f")],
        )
    )
    ticks = (
        alt.Chart(by_total).mark_tick(color="black", thickness=2, size=30).encode(x="tie_total:O", y="expected_ties:Q")
    )
    asked = "Do ties fall on each total as often as the exact odds expect?"
    charts.show((bars + ticks).properties(title=asked, height=260))
    st.caption("Bars: ties seen on each total; black ticks: what the exact odds expect (coups with cards only).")

    st.subheader("Flagged groups")
    flagged = ties.flagged(f, grouping)
    if flagged.is_empty():
        st.success("No group is flagged after the false-discovery correction.")
    else:
        # p and q as people read them (models/display.py): two significant digits, "< 0.0001" below that
        fmt.table(flagged, hide_index=True)  # p and q as the home writes them (models/display.py)
        st.caption(
            f"A group is flagged when its q-value (its p-value after the Benjamini-Hochberg correction over the "
            f"groups of its gaming day) is below {ALPHA:g}; the smallest q first."
        )


render()
