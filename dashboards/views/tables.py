"""Tables and dealers: hold, win against theo with z-scores, pace (coups per hour), side-bet results,
each dealer's pace against the house median beside their errors, and a drill-down into one table's
days or one dealer's wagers."""

from __future__ import annotations

from collections.abc import Callable

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from dashboards.layout import metric_row
from dashboards.queries import tables
from models.settings import Settings
from models.warehouse import schema

MONEY = ("handle", "house_win", "theo")
RATES = ("win_over_handle", "theo_over_handle")
#: How far from the house median a dealer's pace must be before a floor manager would notice it (5 %).
SLOW_FAST = 0.05
NO_BETS = (
    "No bets are logged in this warehouse: handle, hold, theo and the side bets come from bet logs (ingest them "
    "beside the rounds). The dealers' ties, pace and errors below read the rounds alone."
)


def render() -> None:
    f = filters.current()
    st.title("Tables and dealers")
    days = tables.days(f)
    if days.is_empty() and not filters.has_bets():  # round logs alone: the dealers' figures still stand
        st.info(NO_BETS)
        if dealer_table(f, bets=False).is_empty():
            raise filters.Empty
        dealer_pace(f)
        return
    filters.require(days)
    results = table_results(f)
    side_bets(f)
    dealers = dealer_table(f)
    dealer_pace(f)
    drill_down(f, days, results, dealers)


def table_results(f: filters.Filters) -> pl.DataFrame:
    """Per table: coups, pace, handle, house win, theo, hold and z over the filtered days."""
    results = tables.tables(f).rename({"win_vs_theo_z": "z"})
    st.subheader("Tables")
    fmt.table(
        results.select("table_id", "game", "coups", "coups_per_hour", "wagers", *MONEY, *RATES, "z"),
        hide_index=True,
    )
    st.caption(
        "z: (house win − theo) / its standard deviation from every wager's exact variance; |z| > 3 is rare by "
        "chance. Player-banked games (Chemin de Fer, Baccarat Banque, Banco) count the house's commission only."
    )
    dots = (
        alt.Chart(results.with_columns(pl.col(MONEY).cast(pl.Float64)))
        .mark_circle(size=90)
        .encode(
            x=alt.X("handle:Q", title=charts.money_axis("Handle"), axis=alt.Axis(format=",.0f")),
            y=alt.Y("z:Q", title="Win against theo (z)"),
            color=alt.Color("game:N", legend=charts.named("Game")),
            tooltip=[
                "table_id",
                "game",
                alt.Tooltip("win_over_handle:Q", format=".2%"),
                alt.Tooltip("z:Q", format=".2f"),
            ],
        )
    )
    theo = alt.Chart(pl.DataFrame({"z": [0.0]})).mark_rule(color="#2c3e50").encode(y="z:Q")  # won exactly theo
    asked = "Which tables won more or less than theo, for the handle they took?"
    charts.show(alt.layer(theo, dots, title=asked).properties(height=280))
    return results


def dealer_table(f: filters.Filters, bets: bool = True) -> pl.DataFrame:
    """Per dealer: coups, ties, flagged days and, from the `bets`, commission."""
    st.subheader("Dealers")
    dealers = tables.dealers(f, bets)
    fmt.table(
        dealers,
        hide_index=True,
    )
    return dealers


def drill_down(f: filters.Filters, days: pl.DataFrame, results: pl.DataFrame, dealers: pl.DataFrame) -> None:
    st.subheader("Drill down")
    left, right = st.columns(2)
    # None is "no drill-down" and shows as a dash; a coup logged without a dealer is no one to drill into
    table = left.selectbox(
        "Table", [None, *results["table_id"].sort().to_list()], format_func=fmt.text, key="drill_table"
    )
    dealer = right.selectbox(
        "Dealer", [None, *dealers["dealer_id"].drop_nulls().sort().to_list()], format_func=fmt.text, key="drill_dealer"
    )
    if table:
        table_days(days.filter(pl.col("table_id") == table), table)
    if dealer:
        dealer_wagers(f, dealer)
    if not table and not dealer:
        st.caption("Pick a table for its days, or a dealer for hold and pace computed from their wagers.")


def section(mart: str, read: Callable[[], pl.DataFrame]) -> pl.DataFrame | None:
    """The rows `read` gives of `mart`, or None when the snapshot lacks that mart (an earlier release built
    it): then the section says so, and the rest of the page stands."""
    try:
        return read()
    except query.Unavailable:
        try:
            query.require_marts(mart)
        except query.Unavailable as error:
            st.warning(str(error), icon=":material/warning:")
            st.code(error.command, language="sh")
            return None
        raise


def side_bets(f: filters.Filters) -> None:
    st.subheader("Side bets")
    bets = section(schema.MARTS_SIDE_BETS, lambda: tables.side_bets(f))
    if bets is None:
        return
    if bets.is_empty():
        st.info("No side bet was wagered in the filtered days (the tie counts as one).")
        return
    bets = bets.rename({"win_vs_theo_z": "z"})
    fmt.table(
        bets.select("bet", "wagers", *MONEY, *RATES, "z"),
        hide_index=True,
    )
    # a hold swings by thousands of percent on long odds: the z puts every bet on one scale
    bars = (
        alt.Chart(bets.drop_nulls("z"))
        .mark_bar()
        .encode(
            x=alt.X("z:Q", title="Win against theo (z, standard deviations)"),
            y=alt.Y("bet:N", title="Bet", sort=bets["bet"].to_list(), axis=alt.Axis(labelExpr=charts.names_expr())),
            color=alt.condition(alt.datum.z >= 0, alt.value("#2e8b57"), alt.value("#c0392b")),
            tooltip=[
                "bet",
                alt.Tooltip("win_over_handle:Q", format=".2%"),
                alt.Tooltip("theo_over_handle:Q", format=".2%"),
                alt.Tooltip("z:Q", format=".2f"),
            ],
        )
    )
    chance = alt.Chart(pl.DataFrame({"z": [-2.0, 2.0]})).mark_rule(color="#7f8c8d", strokeDash=[4, 4]).encode(x="z:Q")
    charts.show((bars + chance).properties(title="Which bets won more or less than theo? (z, by bet)"))
    st.caption(
        "The tie and every side bet (pairs, Dragon 7, Panda 8, each égalité): Hold is the win over the handle, "
        "Theo hold the theoretical hold, theo each wager times its bet's exact edge. Side bets pay long "
        "odds, so hold swings far "
        "from theo on a small handle: z says how far, in standard deviations (the dashed lines at ±2: beyond them "
        "about one bet in twenty by chance alone)."
    )


def dealer_pace(f: filters.Filters) -> None:
    st.subheader("Dealer pace")
    pace = section(schema.MARTS_DEALER_PACE, lambda: tables.dealer_pace(f))
    if pace is None:
        return
    if pace.is_empty():
        st.info("No dealer is named on the coups of the filtered days.")
        return
    fmt.table(
        pace,
        hide_index=True,
    )
    charts.show(pace_chart(pace.drop_nulls("pace_vs_median")))
    st.caption(
        "Pace: coups an hour of dealing, from the gaps between a dealer's consecutive coups of one shoe (shuffles "
        f"left out, and breaks: a gap of more than {Settings.from_env().pace_break_minutes:g} minutes, "
        "BANCO_PACE_BREAK_MINUTES). House median: the median pace of that game's dealers each gaming day, weighted "
        "by the dealer's hours (the chart's zero line; a dot is a dealer's pace at one game); Pace vs median "
        "below 1 is slower than the house. Errors: the "
        "dealer's rows quarantined (tableau violations, outcome and payout mismatches)."
    )


def pace_chart(pace: pl.DataFrame) -> alt.LayerChart:
    """Each dealer's pace against the house median of their game (columns dealer_id, game, coups_per_hour,
    house_median, pace_vs_median), as percent faster or slower, around a zero rule; slowest dealers first."""
    # pace_vs_median is a ratio: 1.02 reads as 2 % faster than the house; the scale spans at least
    # SLOW_FAST either way, so a dealer a few tenths of a percent off the median sits by the zero line
    reach = max(SLOW_FAST, float((pace["pace_vs_median"] - 1).abs().max() or 0))
    dots = (
        alt.Chart(pace)
        .transform_calculate(vs_median="datum.pace_vs_median - 1")
        .mark_circle(size=110, opacity=0.85)
        .encode(
            x=alt.X(
                "vs_median:Q",
                title="Pace against the game's house median (%; below zero is slower)",
                axis=alt.Axis(format="+.0%", tickMinStep=0.01),
                scale=alt.Scale(domain=[-reach, reach]),
            ),
            y=alt.Y(
                "dealer_id:N",
                title="Dealer (slowest first)",
                sort=alt.EncodingSortField("pace_vs_median", op="mean", order="ascending"),
            ),
            color=alt.Color("game:N", legend=charts.named("Game")),
            tooltip=[
                "dealer_id",
                "game",
                alt.Tooltip("coups_per_hour:Q", format=".1f", title="coups per hour"),
                alt.Tooltip("house_median:Q", format=".1f", title="house median"),
                alt.Tooltip("vs_median:Q", format="+.1%", title="against the median"),
            ],
        )
    )
    zero = alt.Chart(pl.DataFrame({"zero": [0.0]})).mark_rule(color="#2c3e50").encode(x="zero:Q")
    return alt.layer(zero, dots, title="Which dealers deal slower or faster than the house?")


def table_days(days: pl.DataFrame, table: str) -> None:
    daily = days.sort("gaming_day")
    charts.show(charts.hold_against_theo(daily, f"{table}: is the hold tracking theo, day by day?"))
    fmt.table(
        daily.select(
            "gaming_day",
            "game",
            "wagers",
            *MONEY,
            *RATES,
            "quarantined_coups",
            "quarantined_handle_pct",
            z="win_vs_theo_z",
        ),
        hide_index=True,
    )
    holed = daily.filter(pl.col("quarantined_coups") > 0)
    if holed.height:
        st.caption(
            f"{fmt.count(holed.height)} of these days hold quarantined coups (Quarantined coups; "
            "Quarantined handle: the share of the day's handle staked on them, in percent): their wagers are "
            "left out of handle, win and theo, so those days' holds rest on a log with a hole in it. The Integrity "
            "page lists the rows and why."
        )


def dealer_wagers(f: filters.Filters, dealer: str) -> None:
    whole = tables.stints(f, dealer)
    if whole.is_empty():
        st.info(f"{fmt.plain(dealer)} took no wagers in the filtered days.")
        return
    pace = tables.dealt(f, dealer)
    a, b, c, d = metric_row(4)
    a.metric("Coups dealt", fmt.count(pace["coups"]))
    b.metric("Pace", f"{fmt.number(pace['coups_per_hour'], 1)} coups an hour")
    c.metric("Handle", fmt.money(whole["handle"].sum()))
    d.metric("House win", fmt.money(whole["house_win"].sum()))
    fmt.table(
        whole.select("game", "wagers", *MONEY, *RATES, z="win_vs_theo_z"),
        hide_index=True,
    )
    st.caption(f"{fmt.plain(dealer)}'s wagers at every table they dealt, by game, with the z of win against theo.")


render()
