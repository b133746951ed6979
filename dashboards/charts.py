"""Altair charts drawn the same way on every page: Banker red, Player blue, Tie green."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from models.metrics.roads import ROWS, Cell

OUTCOME_COLORS = alt.Scale(domain=["B", "P", "T"], range=["#c0392b", "#2f6db5", "#2e8b57"])
#: Derived roads mark red (R) and blue (B).
DERIVED_COLORS = alt.Scale(domain=["R", "B"], range=["#c0392b", "#2f6db5"])
#: House win against theo: the result in blue, the expectation in the grey of its band.
WIN_THEO_COLORS = alt.Scale(domain=["house_win", "theo"], range=["#2f6db5", "#5d6d7e"])
#: Altair sends every row to the browser: pages aggregate or keep at most this many.
MAX_POINTS = 5_000


def show(chart: alt.Chart, stretch: bool = True) -> None:
    st.altair_chart(chart, width="stretch" if stretch else "content")


def hold_against_theo(daily: pl.DataFrame, title: str) -> alt.Chart:
    """Hold and theo as shares of handle by gaming day (columns gaming_day, win_over_handle, theo_over_handle)."""
    held = daily.unpivot(
        ["win_over_handle", "theo_over_handle"], index="gaming_day", variable_name="series", value_name="rate"
    )
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


def sessions_timeline(sessions: pl.DataFrame, title: str) -> alt.Chart:
    """A player's ratings as bars from start to end (columns started_at, ended_at, table_id, game, ...),
    one row per table; drag to pan, scroll to zoom into a day."""
    return (
        alt.Chart(sessions, title=title)
        .mark_bar(height=14, cornerRadius=2)
        .encode(
            x=alt.X("started_at:T", title=None),
            x2="ended_at:T",
            y=alt.Y("table_id:N", title="table"),
            color=alt.Color("game:N"),
            tooltip=[
                "table_id",
                "game",
                "gaming_day:T",
                alt.Tooltip("started_at:T", format="%H:%M"),
                alt.Tooltip("ended_at:T", format="%H:%M"),
                alt.Tooltip("minutes:Q", format=".0f"),
                alt.Tooltip("average_bet:Q", format=",.2f"),
                alt.Tooltip("theo:Q", format=",.2f"),
            ],
        )
        .interactive(bind_y=False)
    )


def win_against_theo(sessions: pl.DataFrame, title: str, deviations: float = 2.0) -> alt.Chart:
    """Cumulative house win against cumulative theo, session after session (columns started_at, ended_at,
    house_win, theo, win_variance, in order), inside the band theo +/- `deviations` standard deviations that chance
    allows: the variances of independent wagers add up, so the band widens with the square root."""
    money = pl.col("house_win", "theo").cast(pl.Float64)
    running = sessions.select("ended_at", money.cum_sum(), pl.col("win_variance").cum_sum().sqrt().alias("spread"))
    start = running.head(1).with_columns(  # from nothing, as the first session sat down
        ended_at=sessions["started_at"].head(1), house_win=pl.lit(0.0), theo=pl.lit(0.0), spread=pl.lit(0.0)
    )
    running = pl.concat([start, running]).tail(MAX_POINTS)  # the latest, summed from the first
    band = running.with_columns(
        low=pl.col("theo") - deviations * pl.col("spread"), high=pl.col("theo") + deviations * pl.col("spread")
    )
    lines = band.unpivot(["house_win", "theo"], index="ended_at", variable_name="series", value_name="amount")
    area = (
        alt.Chart(band)
        .mark_area(opacity=0.18, color="#7f8c8d")
        .encode(x=alt.X("ended_at:T", title=None), y=alt.Y("low:Q", title="cumulative"), y2="high:Q")
    )
    drawn = (
        alt.Chart(lines)
        .mark_line(point=True)
        .encode(
            x="ended_at:T",
            y=alt.Y("amount:Q", axis=alt.Axis(format=",.0f")),
            color=alt.Color("series:N", title=None, scale=WIN_THEO_COLORS),
            strokeDash=alt.StrokeDash(
                "series:N", scale=alt.Scale(domain=["house_win", "theo"], range=[[1, 0], [5, 3]])
            ),
            tooltip=["ended_at:T", "series", alt.Tooltip("amount:Q", format=",.2f")],
        )
    )
    return (area + drawn).properties(title=title)


#: Alerts by rule: edge timing in the red of a warning, Zender's pattern in amber.
RULE_COLORS = alt.Scale(domain=["edge_timing", "zender"], range=["#c0392b", "#e67e22"])
#: A shoe timeline's wagers: the player looked at stands out, the others stay grey.
WAGER_COLORS = alt.Scale(domain=["chosen", "other"], range=["#111111", "#95a5a6"])


def alerts_per_day(alerts: pl.DataFrame, title: str) -> alt.Chart:
    """Alerts per gaming day, stacked by rule (columns gaming_day, rule, alerts)."""
    return (
        alt.Chart(alerts, title=title)
        .mark_bar()
        .encode(
            x=alt.X("yearmonthdate(gaming_day):O", title=None, axis=alt.Axis(format="%b %d", labelAngle=0)),
            y=alt.Y("alerts:Q", title="alerts", axis=alt.Axis(tickMinStep=1)),
            color=alt.Color("rule:N", title=None, scale=RULE_COLORS),
            tooltip=[alt.Tooltip("gaming_day:T", format="%Y-%m-%d"), "rule", "alerts"],
        )
        .properties(height=200)
    )


def shoe_edges(edges: pl.DataFrame, wagers: pl.DataFrame, x: str, title: str) -> alt.LayerChart:
    """Each bet's player edge through one shoe (columns `x`, bet, player_edge: a line per bet), the zero
    line, and the wagers placed at each coup on their bet's line (columns `x`, bet, player_edge, amount,
    player_id, who: 'chosen' or 'other'), sized by amount; above zero a bet favoured the player."""
    axis = {"round_no": "coup", "cards_seen": "cards seen"}[x]
    lines = (
        alt.Chart(edges)
        .mark_line(strokeWidth=1.5)
        .encode(
            x=alt.X(f"{x}:Q", title=axis),
            y=alt.Y("player_edge:Q", title="player's edge", axis=alt.Axis(format=".0%")),
            color=alt.Color("bet:N", title="bet"),
            tooltip=[x, "bet", alt.Tooltip("player_edge:Q", format=".2%")],
        )
    )
    zero = (
        alt.Chart(pl.DataFrame({"player_edge": [0.0]}))
        .mark_rule(color="#2c3e50", strokeDash=[4, 3])
        .encode(y="player_edge:Q")
    )
    marks = (
        alt.Chart(wagers)
        .mark_circle(opacity=0.75, stroke="white", strokeWidth=0.5)
        .encode(
            x=f"{x}:Q",
            y="player_edge:Q",
            size=alt.Size("amount:Q", title="amount", scale=alt.Scale(range=[20, 400])),
            color=alt.Color("who:N", title="wagers", scale=WAGER_COLORS),
            tooltip=[
                x,
                "player_id",
                "bet",
                alt.Tooltip("amount:Q", format=",.2f"),
                alt.Tooltip("player_edge:Q", format=".2%"),
            ],
        )
    )
    layers = alt.layer(lines, zero, marks, title=title).resolve_scale(color="independent", size="independent")
    return layers.properties(height=420).interactive(bind_y=False)
