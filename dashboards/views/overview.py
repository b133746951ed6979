"""Overview: volume, Banker/Player/Tie shares against the exact odds, commission, hold against theo, trends."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt
from dashboards.layout import metric_row
from dashboards.queries import overview
from models.metrics.expectation import outcome_shares
from models.ratios import quarantined_share

NAMES = {"B": "Banker", "P": "Player", "T": "Tie"}


def render() -> None:
    f = filters.current()
    st.title("Overview")
    volume = filters.require(overview.volume(f))
    money = overview.money(f)
    revenue = overview.revenue(f)

    coups = int(volume["coups"].sum())
    tables = volume["tables"].explode().n_unique()
    gaming_days = volume["days"].explode().n_unique()
    a, b, c, d = metric_row(4)
    a.metric("Coups", fmt.count(coups))
    b.metric("Tables", fmt.count(tables))
    c.metric("Gaming days", fmt.count(gaming_days))
    d.metric("Shoes", fmt.count(int(volume["shoes"].sum())))

    handle, win, theo = money["handle"], money["house_win"], money["theo"]
    hold, theo_pct = money["win_over_handle"], money["theo_over_handle"]
    a, b, c, d = metric_row(4)
    a.metric("Handle", fmt.money(handle))
    b.metric("House win", fmt.money(win), help="Commission included; for player-banked games, commission only")
    c.metric(
        "Hold",
        fmt.percent(hold, "hold"),
        delta=None if hold is None else f"{fmt.points(hold - theo_pct, 'hold')} against theo",
        delta_color="off",
    )
    d.metric("Theo", fmt.money(theo), help=f"Theoretical win: {fmt.percent(theo_pct, 'hold')} of handle")
    holes = overview.holes(f)
    if holes["coups"]:
        share = quarantined_share(holes["handle"], handle)
        st.caption(
            f"{fmt.count(holes['coups'])} coups of these days were quarantined, {fmt.percent(share, 'share')} of the "
            "handle staked on them: their wagers are not in the handle, win and theo above (the Integrity page "
            "lists them; the Count room explains the chips they moved)."
        )
    # None without bets in these days: the rounds hold no wagers, so no commission is known
    commission = None if handle is None else (revenue["commission"] or 0) + (revenue["cagnotte"] or 0)
    a, b = metric_row(2)
    a.metric("Commission revenue", fmt.money(commission), help="Banker commission plus the Chemin de Fer cagnotte")
    b.metric("Commission expected", fmt.money(revenue["expected"]))

    st.subheader("Banker, Player and Tie against the exact odds")
    shares = outcome_shares(volume).with_columns(pl.col("outcome").replace_strict(NAMES))
    left, right = st.columns([2, 3])
    fmt.table(
        shares.select("outcome", "coups", "share", "expected", "z"),
        where=left,
        hide_index=True,
        kinds={"share": "rate", "expected": "rate"},  # set against exact probabilities: the second decimal counts
    )
    with right:
        charts.show(deviation_chart(shares))
    st.caption(
        "Expected: the exact probabilities for each game and deck count, weighted by the coups dealt. Each bar is "
        "the observed share minus the expected one, in percentage points; the whisker is its exact 95 % interval "
        "from the coups counted: a whisker across zero is what chance alone gives."
    )

    st.subheader("Trends by gaming day")
    trend = overview.trend(f)
    daily = overview.daily(f)
    left, right = st.columns(2)
    with left:
        if trend.is_empty():
            st.markdown("**Hold against theo**")
            st.info("No bets in these days: hold and theo come from bet logs.")
        else:
            charts.show(charts.hold_against_theo(trend, "Is the hold tracking theo, day by day?"))
    with right:
        charts.show(
            alt.Chart(daily, title="How many coups were dealt each gaming day?")
            .mark_bar()
            .encode(
                x=alt.X("yearmonthdate(gaming_day):T", title="Gaming day"),  # a bar spans its day
                y=alt.Y("coups:Q", title="Coups", axis=alt.Axis(format=",d")),
                tooltip=["gaming_day:T", alt.Tooltip("coups:Q", format=","), alt.Tooltip("tie_rate:Q", format=".2%")],
            )
        )


def deviation_chart(shares: pl.DataFrame) -> alt.LayerChart:
    """Each outcome's share minus the exact expectation (columns outcome, deviation, low, high, ...), its
    exact 95 % interval as a whisker, around a zero rule: the bars answer "more or fewer than chance says?"."""
    y = alt.Y("outcome:N", title="Outcome", sort=list(NAMES.values()))
    bars = (
        alt.Chart(shares)
        .mark_bar(size=26)
        .encode(
            x=alt.X("deviation:Q", title="Observed − expected share (percentage points)", axis=alt.Axis(format="+.2%")),
            y=y,
            color=alt.Color(
                "outcome:N",
                scale=alt.Scale(domain=list(NAMES.values()), range=charts.OUTCOME_COLORS.range),
                legend=None,
            ),
            tooltip=[
                "outcome",
                alt.Tooltip("coups:Q", format=","),
                alt.Tooltip("share:Q", format=".2%", title="observed"),
                alt.Tooltip("expected:Q", format=".2%"),
                alt.Tooltip("deviation:Q", format="+.2%"),
            ],
        )
    )
    whiskers = (
        alt.Chart(shares)
        .mark_errorbar(ticks=True, color="#2c3e50")
        .encode(x=alt.X("low:Q", title="Observed − expected share (percentage points)"), x2="high:Q", y=y)
    )
    zero = alt.Chart(pl.DataFrame({"zero": [0.0]})).mark_rule(color="#2c3e50").encode(x="zero:Q")
    return alt.layer(
        bars, whiskers, zero, title="Do Banker, Player and Tie come up as often as the odds say?"
    ).properties(height=200)


render()
