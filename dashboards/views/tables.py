"""Tables and dealers: hold, win against theo with z-scores, pace (coups per hour), and a drill-down
into one table's days or one dealer's wagers."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from models.metrics.money import win_vs_theo_z

MONEY = ("handle", "house_win", "theo")
RATES = ("hold", "theo_rate")


def _hold(frame: pl.DataFrame) -> pl.DataFrame:
    handle = pl.col("handle").cast(pl.Float64)
    return frame.with_columns(
        hold=pl.col("house_win").cast(pl.Float64) / handle, theo_rate=pl.col("theo").cast(pl.Float64) / handle
    )


def render() -> None:
    f = filters.current()
    st.title("Tables and dealers")
    where, params = f.where("table_day")
    days = filters.require_bets(
        query.frame(
            "SELECT table_id, game, gaming_day, wagers, handle, house_win, theo, win_variance, win_vs_theo_z "
            f"FROM marts.table_day WHERE {where}",
            params,
        )
    )
    shoe_where, shoe_params = f.shoes()
    pace = query.frame(
        "SELECT table_id, sum(rounds)::BIGINT AS coups, sum(rounds - 1) / (sum(epoch(last_started_at) - "
        f"epoch(first_started_at)) / 3600) AS coups_per_hour FROM core.shoes WHERE {shoe_where} GROUP BY table_id",
        shoe_params,
    )
    tables = _hold(
        days.group_by("table_id", "game")
        .agg(
            pl.col("wagers").sum(),
            *[pl.col(name).sum() for name in MONEY],
            pl.col("win_variance").sum(),
        )
        .with_columns(z=win_vs_theo_z())
        .join(pace, on="table_id", how="left")
    ).sort("z", descending=True, nulls_last=True)
    st.subheader("Tables")
    fmt.table(
        tables.select("table_id", "game", "coups", "coups_per_hour", "wagers", *MONEY, *RATES, "z"),
        hide_index=True,
        column_config=fmt.columns(
            money=MONEY, percent=RATES, counts=("coups", "wagers"), coups_per_hour="%.1f", z="%.2f"
        ),
    )
    st.caption(
        "z: (house win − theo) / its standard deviation from every wager's exact variance; |z| > 3 is rare by "
        "chance. Player-banked games (chemin_de_fer, baccarat_banque, banco) count the house's commission only."
    )
    charts.show(
        alt.Chart(tables.with_columns(pl.col(MONEY).cast(pl.Float64)))
        .mark_circle(size=90)
        .encode(
            x=alt.X("handle:Q", axis=alt.Axis(format=",.0f")),
            y=alt.Y("z:Q", title="win against theo (z)"),
            color="game:N",
            tooltip=["table_id", "game", alt.Tooltip("hold:Q", format=".2%"), alt.Tooltip("z:Q", format=".2f")],
        )
        .properties(height=280)
    )

    st.subheader("Dealers")
    dealer_where, dealer_params = f.where("dealer")
    dealers = query.frame(
        "SELECT dealer_id, sum(coups)::BIGINT AS coups, sum(ties)::BIGINT AS ties, "
        "sum(ties) / sum(coups) AS tie_rate, "
        f"count(*) FILTER (WHERE flagged) AS flagged_days FROM marts.tie_frequency_by_dealer WHERE {dealer_where} "
        "GROUP BY dealer_id ORDER BY coups DESC",
        dealer_params,
    ).join(
        query.frame(
            "SELECT dealer_id, sum(commission + cagnotte) AS commission, sum(banker_handle) AS banker_handle "
            f"FROM marts.commission_by_dealer WHERE {dealer_where} GROUP BY dealer_id",
            dealer_params,
        ),
        on="dealer_id",
        how="left",
    )
    fmt.table(
        dealers,
        hide_index=True,
        column_config=fmt.columns(
            money=("commission", "banker_handle"), percent=("tie_rate",), counts=("coups", "ties", "flagged_days")
        ),
    )

    st.subheader("Drill down")
    left, right = st.columns(2)
    # None is "no drill-down" and shows as a dash; a coup logged without a dealer is no one to drill into
    table = left.selectbox(
        "Table", [None, *tables["table_id"].sort().to_list()], format_func=fmt.text, key="drill_table"
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


def table_days(days: pl.DataFrame, table: str) -> None:
    daily = _hold(days.sort("gaming_day"))
    charts.show(charts.hold_against_theo(daily, f"{table}: hold against theo by gaming day"))
    fmt.table(
        daily.select("gaming_day", "game", "wagers", *MONEY, *RATES, z="win_vs_theo_z"),
        hide_index=True,
        column_config=fmt.columns(money=MONEY, percent=RATES, counts=("wagers",), z="%.2f"),
    )


def dealer_wagers(f: filters.Filters, dealer: str) -> None:
    rounds_where, params = f.where("round", alias="r")
    params = params | {"dealer": dealer}
    stints_where, stints_params = f.where("table_day")
    # the dealer's stints (dealer x table x day) summed per game; z pools each stint's exact variance
    sums = query.frame(
        "SELECT game, sum(wagers)::BIGINT AS wagers, sum(handle) AS handle, sum(house_win) AS house_win, "
        "sum(theo) AS theo, sum(win_variance) AS win_variance FROM marts.dealer_day "
        f"WHERE dealer_id = $dealer AND {stints_where} GROUP BY game ORDER BY game",
        stints_params | {"dealer": dealer},
    )
    if sums.is_empty():
        st.info(f"{dealer} took no wagers in the filtered days.")
        return
    pace = query.frame(
        "SELECT sum(n)::BIGINT AS coups, sum(n - 1) / (sum(seconds) / 3600) AS coups_per_hour FROM ("
        "SELECT count(*) AS n, epoch(max(started_at)) - epoch(min(started_at)) AS seconds FROM core.rounds r "
        f"WHERE r.dealer_id = $dealer AND {rounds_where} GROUP BY table_id, shoe_id)",
        params,
    ).row(0, named=True)
    whole = _hold(sums.with_columns(win_vs_theo_z=win_vs_theo_z()))
    a, b, c, d = st.columns(4)
    a.metric("Coups dealt", fmt.count(pace["coups"]))
    b.metric("Pace", f"{fmt.number(pace['coups_per_hour'], 1)} coups/hour")
    c.metric("Handle", fmt.money(whole["handle"].sum()))
    d.metric("House win", fmt.money(whole["house_win"].sum()))
    fmt.table(
        whole.select("game", "wagers", *MONEY, *RATES, z="win_vs_theo_z"),
        hide_index=True,
        column_config=fmt.columns(money=MONEY, percent=RATES, counts=("wagers",), z="%.2f"),
    )
    st.caption(f"{dealer}'s wagers at every table they dealt, by game, with the z of win against theo.")


render()
