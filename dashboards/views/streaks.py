"""Banker-pass streaks: bank tenures against the geometric law, the longest, the fit per table and game,
and how a chemin_de_fer bank grows while it is held."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt
from dashboards.layout import metric_row
from dashboards.queries import streaks
from models.metrics.expectation import tenure_hazard
from models.metrics.streaks import BY_RULE


def render() -> None:
    f = filters.current()
    st.title("Banker-pass streaks")
    counts = filters.require(streaks.counts(f))
    a, b, c = metric_row(3)
    a.metric("Tenures", fmt.count(int(counts["tenures"].sum())))
    b.metric("Passed", fmt.count(int(counts.filter("passed")["tenures"].sum())))
    c.metric("Cut by the shoe's end or withdrawn", fmt.count(int(counts.filter(~pl.col("passed"))["tenures"].sum())))

    st.subheader("Tenure length against the geometric law")
    # banco passes the bank after every decided coup and baccarat_banque never does: no law to test
    hazard = tenure_hazard(counts.filter(~pl.col("game").is_in(BY_RULE)), by=["game"])
    if hazard.is_empty():
        st.info("Only Banco and Baccarat Banque in the filters: their bank passes by rule, not by chance.")
    else:
        geometric(hazard)

    st.subheader("Longest tenures")
    fmt.table(streaks.longest(f), hide_index=True)

    st.subheader("Fit per table and game, by month")
    fmt.table(
        streaks.fit(f),
        hide_index=True,
    )

    st.subheader("Chemin de fer: the bank as it rides")
    growth = streaks.growth(f)
    if growth.is_empty():
        st.info("No Chemin de Fer banks in the filtered shoes.")
        return
    left, right = st.columns([3, 2])
    with left:
        charts.show(
            alt.Chart(growth, title="How far does a bank grow before it is passed?")
            .mark_line(point=True)
            .encode(
                x=alt.X("decided:O", title="Decided coups held (10 = 10 or more)", axis=alt.Axis(labelAngle=0)),
                y=alt.Y("growth:Q", title="Last bank ÷ first bank (times, log scale)", scale=alt.Scale(type="log")),
                tooltip=["decided", alt.Tooltip("tenures:Q", format=","), alt.Tooltip("growth:Q", format=".2f")],
            )
        )
    fmt.table(
        growth,
        where=right,
        hide_index=True,
    )


def geometric(hazard: pl.DataFrame) -> None:
    long = hazard.unpivot(["passes", "expected_passes"], index=["game", "length"], variable_name="series")
    charts.show(
        alt.Chart(long, title="Do banks pass at each length as often as the geometric law says?")
        .mark_bar()
        .encode(
            x=alt.X("length:O", title="Coups held (8: 8 or more)", axis=alt.Axis(labelAngle=0)),
            xOffset="series:N",
            y=alt.Y("value:Q", title="Tenures passing at that length", axis=alt.Axis(format=",d")),
            color=alt.Color(
                "series:N",
                title=None,
                legend=alt.Legend(
                    orient="top", labelExpr="{'passes': 'Seen', 'expected_passes': 'Expected'}[datum.label]"
                ),
            ),
            # two a row: four side by side pass a 1024 px window
            facet=alt.Facet(
                "game:N", title=None, columns=2, header=alt.Header(labelExpr=charts.names_expr("datum.value"))
            ),
            tooltip=["game", "length", "series", alt.Tooltip("value:Q", format=",.1f")],
        )
        .properties(width=180, height=220),
        stretch=False,
    )
    st.caption(
        "Length 8 pools 8 or more. On each decided coup a bank holds it ends with probability 1 − q, "
        "q = P(Banker) / (P(Banker) + P(Player)). A tenure counts at every length it reached, so tenures cut by the "
        "shoe's end are not lost. Banco (passes every coup) and Baccarat Banque (one bank a shoe) are left out."
    )
    fmt.table(
        hazard,
        hide_index=True,
    )


render()
