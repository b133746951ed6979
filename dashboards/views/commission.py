"""Commission: revenue by gaming day, table, dealer and game, and the rounding and rate policies as a
what-if computed on the spot from the winning Banker wagers."""

from __future__ import annotations

from decimal import Decimal

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt
from dashboards.layout import metric_row
from dashboards.queries import commission
from models.contract import MONEY
from models.game.paytable import DEFAULT_PAYTABLE
from models.metrics.money import Rounding
from models.metrics.what_if import commission_what_if


def render() -> None:
    f = filters.current()
    st.title("Commission")
    by_day = filters.require_bets(commission.by_day(f))
    revenue, expected = by_day["revenue"].sum(), by_day["expected_commission"].sum()
    a, b, c = metric_row(3)
    a.metric("Commission revenue", fmt.money(revenue), help="Banker commission plus the Chemin de Fer cagnotte")
    b.metric("Expected from the Banker handle", fmt.money(expected))
    c.metric(
        "What Super 6 and EZ Baccarat keep instead",
        fmt.money(by_day["super6_reduction"].sum() + by_day["ez_reduction"].sum()),
    )
    charts.show(
        alt.Chart(
            by_day.with_columns(pl.col("revenue").cast(pl.Float64)),
            title="How much commission did each gaming day bring in, by game?",
        )
        .mark_bar()
        .encode(
            x=alt.X("yearmonthdate(gaming_day):T", title="Gaming day"),  # a bar spans its day
            y=alt.Y("sum(revenue):Q", title=charts.money_axis("Commission and cagnotte"), axis=alt.Axis(format=",.0f")),
            color=alt.Color("game:N", legend=charts.named("Game")),
            tooltip=["gaming_day:T", "game", alt.Tooltip("revenue:Q", format=",.2f")],
        )
    )
    left, right = st.container(), st.container()  # one above the other: side by side each half cut its columns
    with left:
        st.subheader("By game")
        fmt.table(commission.by_game(f), hide_index=True)
    with right:
        st.subheader("By table")
        fmt.table(commission.by_table(f), hide_index=True)
    st.subheader("By dealer")
    fmt.table(commission.by_dealer(f), hide_index=True)

    what_if(f)


def what_if(f: filters.Filters) -> None:
    st.subheader("What if: another rate or rounding")
    a, b, c = st.columns(3)
    rate = a.number_input(
        "Commission rate", 0.0, 0.2, float(DEFAULT_PAYTABLE.commission), step=0.005, format="%.3f", key="what_if_rate"
    )
    policy = b.radio("Rounding", ("exact", "down", "up"), horizontal=True, key="what_if_policy")
    unit = c.selectbox("Chip unit", ("0.25", "0.5", "1", "5"), disabled=policy == "exact", key="what_if_unit")
    if policy == "exact" and Decimal(str(rate)) == DEFAULT_PAYTABLE.commission:
        st.caption(
            f"At {fmt.percent(DEFAULT_PAYTABLE.commission, 'rate')} and exact, the what-if is the commission as "
            "taken, above. Change the rate or the rounding to recompute it from every winning Banker wager."
        )
        return
    won = commission.won(f)
    if won.is_empty():
        st.info("No commission was taken in the filtered shoes (Super 6 and EZ Baccarat charge none).")
        return
    policy_now = Rounding(policy, Decimal(unit))
    result = commission_what_if(won.select("game", "amount", "wagers"), Decimal(str(rate)), policy_now)
    logged = won.group_by("game").agg(logged=pl.col("logged").sum().cast(MONEY))
    table = result.join(logged, on="game").with_columns(difference=pl.col("commission") - pl.col("logged"))
    total, before = table["commission"].sum(), table["logged"].sum()
    a, b = metric_row(2)
    a.metric(
        f"Commission at {fmt.percent(rate, 'rate')}, {policy}" + ("" if policy == "exact" else f" to {unit}"),
        fmt.money(total),
        delta=fmt.money(total - before, signed=True),
    )
    b.metric("As taken (logged, exact)", fmt.money(before))
    fmt.table(
        table.select("game", "wagers", "won_amount", "logged", "commission", "difference"),
        hide_index=True,
    )
    st.caption(
        "Every winning Banker wager that paid commission, recomputed at this rate and rounded one wager at a "
        "time; the marts hold the commission under the policy `banco build --rounding` was given."
    )


render()
