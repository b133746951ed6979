"""Altair charts drawn the same way on every page: Banker red, Player blue, Tie green."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from models.metrics.roads import ROWS, Cell

OUTCOME_COLORS = alt.Scale(domain=["B", "P", "T"], range=["#c0392b", "#2f6db5", "#2e8b57"])
#: Derived roads mark red (R) and blue (B).
DERIVED_COLORS = alt.Scale(domain=["R", "B"], range=["#c0392b", "#2f6db5"])
#: Altair sends every row to the browser: pages aggregate or keep at most this many.
MAX_POINTS = 5_000


def show(chart: alt.Chart, stretch: bool = True) -> None:
    st.altair_chart(chart, width="stretch" if stretch else "content")


def hold_against_theo(daily: pl.DataFrame, title: str) -> alt.Chart:
    """Hold and theo as shares of handle by gaming day (columns gaming_day, hold, theo_rate)."""
    held = daily.unpivot(["hold", "theo_rate"], index="gaming_day", variable_name="series", value_name="rate")
    return (
        alt.Chart(held, title=title)
        .mark_line(point=True)
        .encode(
            x=alt.X("gaming_day:T", title=None),
            y=alt.Y("rate:Q", axis=alt.Axis(format=".1%"), title="of handle"),
            color=alt.Color("series:N", title=None),
            tooltip=["gaming_day:T", "series", alt.Tooltip("rate:Q", format=".3%")],
        )
    )


def road(cells: list[Cell], title: str, derived: bool = False, cell_size: int = 18) -> alt.Chart:
    """A road as a grid of six rows: one circle per cell, ties counted on the cell."""
    # typed even when empty: Altair cannot chart a column of Polars' Null type (a shoe too short for a road)
    schema = {"column": pl.Int64, "row": pl.Int64, "mark": pl.String, "ties": pl.Int64}
    frame = pl.DataFrame(cells, schema=schema, orient="row")
    columns = max(frame["column"].max() + 1, 24) if frame.height else 24
    base = alt.Chart(frame, title=title).encode(
        x=alt.X("column:O", axis=None, scale=alt.Scale(domain=list(range(columns)))),
        y=alt.Y("row:O", axis=None, scale=alt.Scale(domain=list(range(ROWS)))),
        tooltip=["column", "row", "mark", "ties"],
    )
    dots = base.mark_circle(size=cell_size * 14, opacity=0.9).encode(
        color=alt.Color("mark:N", scale=DERIVED_COLORS if derived else OUTCOME_COLORS, legend=None)
    )
    ties = base.transform_filter(alt.datum.ties > 0).mark_text(color="#2e8b57", fontWeight="bold", dx=7, dy=-7)
    layers = dots if derived else dots + ties.encode(text="ties:Q")
    return layers.properties(width=alt.Step(cell_size), height=alt.Step(cell_size))
