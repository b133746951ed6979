"""Altair charts drawn the same way on every page: Banker red, Player blue, Tie green."""

from __future__ import annotations

import json

import altair as alt
import polars as pl
import streamlit as st

from models import display
from models.display import money_title
from models.metrics.roads import BLUE, RED, ROWS, Cell
from models.settings import Settings

OUTCOME_COLORS = alt.Scale(domain=["B", "P", "T"], range=["#c0392b", "#2f6db5", "#2e8b57"])
OUTCOME_LEGEND = alt.Legend(
    title=None, orient="top", labelExpr="{'B': 'Banker', 'P': 'Player', 'T': 'Tie'}[datum.label]"
)
#: Derived roads mark red (R) when the big road repeats its pattern, blue (B) when it breaks it.
DERIVED_COLORS = alt.Scale(domain=[RED, BLUE], range=["#c0392b", "#2f6db5"])
DERIVED_LEGEND = alt.Legend(
    title=None, orient="top", labelExpr=f"{{'{RED}': 'red: repeats', '{BLUE}': 'blue: breaks'}}[datum.label]"
)
#: How each derived road draws its marks, as scoreboards do: big eye boy hollow circles, small road
#: filled dots, cockroach pig slashes.
SLASH = "M -0.8 0.8 L 0.8 -0.8"
DERIVED_MARKS = {
    "big_eye_boy": {"shape": "circle", "filled": False, "strokeWidth": 2},
    "small_road": {"shape": "circle", "filled": True},
    "cockroach_pig": {"shape": SLASH, "filled": False, "strokeWidth": 2.5},
}
#: Identifiers a legend shows in words beside the games (display.NAMES).
NAMED = ("edge_timing", "zender", "banker", "player", "tie")
#: The roads' titles: what each shows, or the question a derived road asks of the big road.
BEAD_PLATE = "Bead plate: every coup in order, down each column then across"
BIG_ROAD = "Big road: how long did Banker and Player runs last? (ties counted in green)"
DERIVED_TITLES = {
    "big_eye_boy": "Big eye boy: does the big road repeat, one column back? (hollow circles)",
    "small_road": "Small road: does it repeat, two columns back? (filled dots)",
    "cockroach_pig": "Cockroach pig: does it repeat, three columns back? (slashes)",
}
#: Hold and theo as the legend names them.
SERIES = {"win_over_handle": "Hold", "theo_over_handle": "Theo", "house_win": "House win", "theo": "Theo"}
#: House win against theo: the result in blue, the expectation in the grey of its band.
DRAWN = ["House win", "Theo"]
WIN_THEO_COLORS = alt.Scale(domain=DRAWN, range=["#2f6db5", "#5d6d7e"])
#: Altair sends every row to the browser: pages aggregate or keep at most this many.
MAX_POINTS = 5_000


def show(chart: alt.Chart, stretch: bool = True) -> None:
    st.altair_chart(chart, width="stretch" if stretch else "content")


def names_expr(of: str = "datum.label") -> str:
    """A Vega expression that shows a label (a game, bet or rule) by its name: Punto Banco, not punto_banco;
    `of` is what holds the identifier (a facet's header reads `datum.value`)."""
    # JSON's quoting is Vega's: a name may hold an apostrophe ("Zender's pattern")
    words = json.dumps({key: display.name(key) for key in (*display.NAMES, *NAMED)})[1:-1]
    # any other identifier in words, as display.name writes it: "bad_card" is "Bad card"
    spaced = f"replace({of}, regexp('_', 'g'), ' ')"
    return f"{{{words}}}[{of}] || upper(slice({spaced}, 0, 1)) + slice({spaced}, 1)"


def named(title: str | None) -> alt.Legend:
    """A legend that shows games, bets and rules by their names."""
    return alt.Legend(title=title, labelExpr=names_expr())


def currency() -> str:
    """The warehouse's currency (`BANCO_CURRENCY`), which every money axis names."""
    return Settings.from_env().currency


def money_axis(name: str) -> str:
    """A money axis' title in the warehouse's currency: "Win (EUR)"."""
    return money_title(name, currency())


def hold_against_theo(daily: pl.DataFrame, title: str) -> alt.Chart:
    """Hold and theo as shares of handle by gaming day (columns gaming_day, win_over_handle, theo_over_handle)."""
    held = daily.unpivot(
        ["win_over_handle", "theo_over_handle"], index="gaming_day", variable_name="series", value_name="rate"
    ).with_columns(pl.col("series").replace_strict(SERIES))
    return (
        alt.Chart(held, title=title)
        .mark_line(point=True)
        .encode(
            x=alt.X("gaming_day:T", title="Gaming day", axis=alt.Axis(format="%b %d")),
            y=alt.Y("rate:Q", axis=alt.Axis(format=".2%"), title="Share of handle (%)"),
            color=alt.Color("series:N", title=None),
            tooltip=[alt.Tooltip("gaming_day:T", format="%Y-%m-%d"), "series", alt.Tooltip("rate:Q", format=".2%")],
        )
    )


#: The widest a road's grid is drawn (px): it fits the page beside the sidebar in a 1024 px window.
ROAD_WIDTH = 600
#: The smallest cell a long shoe's road shrinks to (px), as a scoreboard's cells shrink.
SMALLEST_CELL = 7


def road(cells: list[Cell], title: str, derived: str | None = None, cell_size: int = 18) -> alt.LayerChart:
    """A road as a grid of six rows, ties counted on the cell; a `derived` road (big_eye_boy, small_road,
    cockroach_pig) in red and blue, drawn its own way (`DERIVED_MARKS`), the others as Banker, Player, Tie.
    Cells of `cell_size` px, smaller when that many columns would pass ROAD_WIDTH."""
    # typed even when empty: Altair cannot chart a column of Polars' Null type (a shoe too short for a road)
    schema = {"column": pl.Int64, "row": pl.Int64, "mark": pl.String, "ties": pl.Int64}
    frame = pl.DataFrame(cells, schema=schema, orient="row")
    columns = max(frame["column"].max() + 1, 24) if frame.height else 24
    base = alt.Chart(frame).encode(
        x=alt.X("column:O", axis=None, scale=alt.Scale(domain=list(range(columns)))),
        y=alt.Y("row:O", axis=None, scale=alt.Scale(domain=list(range(ROWS)))),
        tooltip=["column", "row", "mark", "ties"],
    )
    cell_size = max(SMALLEST_CELL, min(cell_size, ROAD_WIDTH // columns))
    size = cell_size * 14
    if derived:
        dots = base.mark_point(size=size, opacity=0.9, **DERIVED_MARKS[derived]).encode(
            color=alt.Color("mark:N", scale=DERIVED_COLORS, legend=DERIVED_LEGEND)
        )
        layers = alt.layer(dots, title=title)
    else:
        dots = base.mark_circle(size=size, opacity=0.9).encode(
            color=alt.Color("mark:N", scale=OUTCOME_COLORS, legend=OUTCOME_LEGEND)
        )
        ties = base.transform_filter(alt.datum.ties > 0).mark_text(color="#2e8b57", fontWeight="bold", dx=7, dy=-7)
        layers = alt.layer(dots, ties.encode(text="ties:Q"), title=title)
    return layers.properties(width=alt.Step(cell_size), height=alt.Step(cell_size))


def sessions_timeline(sessions: pl.DataFrame, title: str) -> alt.Chart:
    """A player's ratings as bars from start to end (columns started_at, ended_at, table_id, game, ...),
    one row per table; drag to pan, scroll to zoom into a day."""
    return (
        alt.Chart(sessions, title=title)
        .mark_bar(height=14, cornerRadius=2)
        .encode(
            x=alt.X("started_at:T", title="Time seated"),
            x2="ended_at:T",
            y=alt.Y("table_id:N", title="Table"),
            color=alt.Color("game:N", legend=named("Game")),
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
    lines = band.unpivot(
        ["house_win", "theo"], index="ended_at", variable_name="series", value_name="amount"
    ).with_columns(pl.col("series").replace_strict(SERIES))
    area = (
        alt.Chart(band)
        .mark_area(opacity=0.18, color="#7f8c8d")
        .encode(
            x=alt.X("ended_at:T", title="Session ended"),
            y=alt.Y("low:Q", title=money_axis("Cumulative amount")),
            y2="high:Q",
        )
    )
    drawn = (
        alt.Chart(lines)
        .mark_line(point=True)
        .encode(
            x="ended_at:T",
            y=alt.Y("amount:Q", axis=alt.Axis(format=",.0f")),
            color=alt.Color("series:N", title=None, scale=WIN_THEO_COLORS),
            strokeDash=alt.StrokeDash("series:N", title=None, scale=alt.Scale(domain=DRAWN, range=[[1, 0], [5, 3]])),
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
            x=alt.X("yearmonthdate(gaming_day):O", title="Gaming day", axis=alt.Axis(format="%b %d", labelAngle=0)),
            y=alt.Y("alerts:Q", title="Alerts", axis=alt.Axis(tickMinStep=1)),
            color=alt.Color("rule:N", title="Rule", scale=RULE_COLORS, legend=named("Rule")),
            tooltip=[alt.Tooltip("gaming_day:T", format="%Y-%m-%d"), "rule", "alerts"],
        )
        .properties(height=200)
    )


def shoe_edges(edges: pl.DataFrame, wagers: pl.DataFrame, x: str, title: str) -> alt.LayerChart:
    """Each bet's player edge through one shoe (columns `x`, bet, player_edge: a line per bet), the zero
    line, and the wagers placed at each coup on their bet's line (columns `x`, bet, player_edge, amount,
    player_id, who: 'chosen' or 'other'), sized by amount; above zero a bet favoured the player."""
    axis = {"round_no": "Coup of the shoe", "cards_seen": "Cards seen"}[x]
    lines = (
        alt.Chart(edges)
        .mark_line(strokeWidth=1.5)
        .encode(
            x=alt.X(f"{x}:Q", title=axis),
            y=alt.Y("player_edge:Q", title="Player's edge (%)", axis=alt.Axis(format=".2%")),
            color=alt.Color("bet:N", title="Bet"),
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
            size=alt.Size("amount:Q", title=money_axis("Wager"), scale=alt.Scale(range=[20, 400])),
            color=alt.Color("who:N", title="Wagers", scale=WAGER_COLORS),
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
