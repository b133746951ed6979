"""Commission: revenue by gaming day, table, dealer and game, and the rounding and rate policies as a
what-if computed on the spot from the winning Banker wagers."""

from __future__ import annotations

from decimal import Decimal

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from models.contract import MONEY
from models.game.paytable import DEFAULT_PAYTABLE
from models.metrics.money import Rounding
from models.metrics.what_if import commission_what_if

REVENUE = (
    "sum(commission + cagnotte) AS revenue, sum(expected_commission) AS expected, "
    "sum(banker_handle) AS banker_handle, sum(banker_won)::BIGINT AS banker_won, "
    "sum(super6_reduction) AS super6_reduction, sum(ez_reduction) AS ez_reduction"
)
MONEY_COLUMNS = ("revenue", "expected", "banker_handle", "super6_reduction", "ez_reduction")


def render() -> None:
    f = filters.current()
    st.title("Commission")
    where, params = f.where("table_day")
    by_day = filters.require_bets(
        query.frame(
            f"SELECT gaming_day, game, {REVENUE} FROM marts.commission WHERE {where} GROUP BY ALL ORDER BY ALL", params
        )
    )
    revenue, expected = by_day["revenue"].sum(), by_day["expected"].sum()
    a, b, c = st.columns(3)
    a.metric("Commission revenue", fmt.money(revenue), help="Banker commission plus the chemin_de_fer cagnotte")
    b.metric("Expected from the Banker handle", fmt.money(expected))
    c.metric(
        "What super6 and EZ keep instead", fmt.money(by_day["super6_reduction"].sum() + by_day["ez_reduction"].sum())
    )
    charts.show(
        alt.Chart(by_day.with_columns(pl.col("revenue").cast(pl.Float64)), title="Revenue by gaming day")
        .mark_bar()
        .encode(
            x=alt.X("yearmonthdate(gaming_day):T", title=None),  # a bar spans its day
            y=alt.Y("sum(revenue):Q", title="commission", axis=alt.Axis(format=",.0f")),
            color=alt.Color("game:N"),
            tooltip=["gaming_day:T", "game", alt.Tooltip("revenue:Q", format=",.2f")],
        )
    )
    left, right = st.columns(2)
    with left:
        st.subheader("By game")
        by_game = query.frame(
            f"SELECT game, {REVENUE} FROM marts.commission WHERE {where} GROUP BY game ORDER BY revenue DESC", params
        )
        fmt.table(by_game, hide_index=True, column_config=fmt.columns(money=MONEY_COLUMNS, counts=("banker_won",)))
    with right:
        st.subheader("By table")
        by_table = query.frame(
            f"SELECT table_id, game, {REVENUE} FROM marts.commission WHERE {where} GROUP BY ALL ORDER BY revenue DESC",
            params,
        )
        fmt.table(by_table, hide_index=True, column_config=fmt.columns(money=MONEY_COLUMNS, counts=("banker_won",)))
    st.subheader("By dealer")
    dealer_where, dealer_params = f.where("dealer")
    by_dealer = query.frame(
        f"SELECT dealer_id, {REVENUE} FROM marts.commission_by_dealer WHERE {dealer_where} GROUP BY dealer_id "
        "ORDER BY revenue DESC",
        dealer_params,
    )
    fmt.table(by_dealer, hide_index=True, column_config=fmt.columns(money=MONEY_COLUMNS, counts=("banker_won",)))

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
            f"At {DEFAULT_PAYTABLE.commission:.0%} and exact, the what-if is the commission as taken, above. Change "
            "the rate or the rounding to recompute it from every winning Banker wager."
        )
        return
    shoes, params = f.shoes()
    won = query.frame(
        "SELECT game, amount, count(*) AS wagers, sum(commission) AS logged FROM core.bets "
        f"WHERE bet = 'banker' AND commission > 0 AND {shoes} GROUP BY game, amount",
        params,
    )
    if won.is_empty():
        st.info("No commission was taken in the filtered shoes (super6 and EZ Baccarat charge none).")
        return
    policy_now = Rounding(policy, Decimal(unit))
    result = commission_what_if(won.select("game", "amount", "wagers"), Decimal(str(rate)), policy_now)
    logged = won.group_by("game").agg(logged=pl.col("logged").sum().cast(MONEY))
    table = result.join(logged, on="game").with_columns(difference=pl.col("commission") - pl.col("logged"))
    total, before = table["commission"].sum(), table["logged"].sum()
    a, b = st.columns(2)
    a.metric(
        f"Commission at {rate:.2%}, {policy}" + ("" if policy == "exact" else f" to {unit}"),
        fmt.money(total),
        delta=f"{total - before:+,.2f}",
    )
    b.metric("As taken (logged, exact)", fmt.money(before))
    fmt.table(
        table.select("game", "wagers", "won_amount", "logged", "commission", "difference"),
        hide_index=True,
        column_config=fmt.columns(money=("won_amount", "logged", "commission", "difference"), counts=("wagers",)),
    )
    st.caption(
        "Every winning Banker wager that paid commission, recomputed at this rate and rounded one wager at a "
        "time; the marts hold the commission under the policy `banco build --rounding` was given."
    )


render()
