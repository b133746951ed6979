"""Tables and dealers: hold, win against theo with z-scores, pace (coups per hour), side-bet results,
each dealer's pace against the house median beside their errors, and a drill-down into one table's
days or one dealer's wagers."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from models.metrics.money import win_vs_theo_z

MONEY = ("handle", "house_win", "theo")
RATES = ("hold", "theo_rate")
ERRORS = ("quarantined", "tableau_violations", "outcome_mismatches", "payout_mismatches")
#: A dealer's pace pooled over their rows: the gaps counted over the hours dealt (coups_per_hour x minutes
#: is a row's gaps), and the house median weighted by the same minutes (the pace the house's median
#: dealer would have kept over those hours).
PACE = (
    "SELECT dealer_id, game, tables, days, coups, hours, pace AS coups_per_hour, median AS house_median, "
    f"pace / median AS pace_vs_median, {', '.join(ERRORS)} FROM (SELECT dealer_id, game, "
    "count(DISTINCT table_id)::BIGINT AS tables, count(DISTINCT gaming_day)::BIGINT AS days, "
    "sum(coups)::BIGINT AS coups, sum(minutes) / 60 AS hours, "
    "nullif(sum(minutes) FILTER (WHERE coups_per_hour IS NOT NULL), 0) AS paced, "
    "sum(coups_per_hour * minutes) / paced AS pace, sum(house_median * minutes) / paced AS median, "
    + ", ".join(f"sum({name})::BIGINT AS {name}" for name in ERRORS)
    + " FROM marts.dealer_pace WHERE {where} GROUP BY dealer_id, game) "
    "ORDER BY pace_vs_median NULLS LAST, dealer_id, game"
)
NO_BETS = (
    "No bets are logged in this warehouse: handle, hold, theo and the side bets come from bet logs (ingest them "
    "beside the rounds). The dealers' ties, pace and errors below read the rounds alone."
)
SIDE_BETS = (
    "SELECT bet, sum(wagers)::BIGINT AS wagers, sum(handle) AS handle, sum(house_win) AS house_win, "
    "sum(theo) AS theo, sum(win_variance) AS win_variance FROM marts.side_bets WHERE {where} "
    "GROUP BY bet ORDER BY handle DESC, bet"
)


def _hold(frame: pl.DataFrame) -> pl.DataFrame:
    handle = pl.col("handle").cast(pl.Float64)
    return frame.with_columns(
        hold=pl.col("house_win").cast(pl.Float64) / handle, theo_rate=pl.col("theo").cast(pl.Float64) / handle
    )


def render() -> None:
    f = filters.current()
    st.title("Tables and dealers")
    where, params = f.where("table_day")
    days = query.frame(
        "SELECT table_id, game, gaming_day, wagers, handle, house_win, theo, win_variance, win_vs_theo_z "
        f"FROM marts.table_day WHERE {where}",
        params,
    )
    if days.is_empty() and not filters.has_bets():  # round logs alone: the dealers' figures still stand
        st.info(NO_BETS)
        if dealer_table(f, bets=False).is_empty():
            raise filters.Empty
        dealer_pace(f)
        return
    filters.require(days)
    tables = table_results(f, days)
    side_bets(f)
    dealers = dealer_table(f)
    dealer_pace(f)
    drill_down(f, days, tables, dealers)


def table_results(f: filters.Filters, days: pl.DataFrame) -> pl.DataFrame:
    """Per table: coups, pace, handle, house win, theo, hold and z over the filtered days."""
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
    return tables


def dealer_table(f: filters.Filters, bets: bool = True) -> pl.DataFrame:
    """Per dealer: coups, ties, flagged days and, from the `bets`, commission."""
    st.subheader("Dealers")
    dealer_where, dealer_params = f.where("dealer")
    dealers = query.frame(
        "SELECT dealer_id, sum(coups)::BIGINT AS coups, sum(ties)::BIGINT AS ties, "
        "sum(ties) / sum(coups) AS tie_rate, "
        f"count(*) FILTER (WHERE flagged) AS flagged_days FROM marts.tie_frequency_by_dealer WHERE {dealer_where} "
        "GROUP BY dealer_id ORDER BY coups DESC",
        dealer_params,
    )
    if bets:
        commission = query.frame(
            "SELECT dealer_id, sum(commission + cagnotte) AS commission, sum(banker_handle) AS banker_handle "
            f"FROM marts.commission_by_dealer WHERE {dealer_where} GROUP BY dealer_id",
            dealer_params,
        )
        dealers = dealers.join(commission, on="dealer_id", how="left")
    fmt.table(
        dealers,
        hide_index=True,
        column_config=fmt.columns(
            money=("commission", "banker_handle") if bets else (),
            percent=("tie_rate",),
            counts=("coups", "ties", "flagged_days"),
        ),
    )
    return dealers


def drill_down(f: filters.Filters, days: pl.DataFrame, tables: pl.DataFrame, dealers: pl.DataFrame) -> None:
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


def section(mart: str, sql: str, params: dict) -> pl.DataFrame | None:
    """The rows of `sql` on `mart`, or None when the snapshot lacks that mart (an earlier release built
    it): then the section says so, and the rest of the page stands."""
    try:
        return query.frame(sql, params)
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
    where, params = f.where("table_day")
    bets = section("marts.side_bets", SIDE_BETS.format(where=where), params)
    if bets is None:
        return
    if bets.is_empty():
        st.info("No side bet was wagered in the filtered days (the tie counts as one).")
        return
    bets = _hold(bets.with_columns(z=win_vs_theo_z()))
    fmt.table(
        bets.select("bet", "wagers", *MONEY, *RATES, "z"),
        hide_index=True,
        column_config=fmt.columns(money=MONEY, percent=RATES, counts=("wagers",), z="%.2f"),
    )
    # a hold swings by thousands of percent on long odds: the z puts every bet on one scale
    bars = (
        alt.Chart(bets.drop_nulls("z"), title="Win against theo, by bet (z)")
        .mark_bar()
        .encode(
            x=alt.X("z:Q", title="standard deviations from theo"),
            y=alt.Y("bet:N", title=None, sort=bets["bet"].to_list()),
            color=alt.condition(alt.datum.z >= 0, alt.value("#2e8b57"), alt.value("#c0392b")),
            tooltip=[
                "bet",
                alt.Tooltip("hold:Q", format=".2%"),
                alt.Tooltip("theo_rate:Q", format=".2%"),
                alt.Tooltip("z:Q", format=".2f"),
            ],
        )
    )
    chance = alt.Chart(pl.DataFrame({"z": [-2.0, 2.0]})).mark_rule(color="#7f8c8d", strokeDash=[4, 4]).encode(x="z:Q")
    charts.show(bars + chance)
    st.caption(
        "The tie and every side bet (pairs, dragon7, panda8, each égalité): theo_rate, the theoretical hold, is "
        "theo over handle, theo each wager times its bet's exact edge. Side bets pay long odds, so hold swings far "
        "from theo on a small handle: z says how far, in standard deviations (the dashed lines at ±2: beyond them "
        "about one bet in twenty by chance alone)."
    )


def dealer_pace(f: filters.Filters) -> None:
    st.subheader("Dealer pace")
    where, params = f.where("stint")
    pace = section("marts.dealer_pace", PACE.format(where=where), params)
    if pace is None:
        return
    if pace.is_empty():
        st.info("No dealer is named on the coups of the filtered days.")
        return
    fmt.table(
        pace,
        hide_index=True,
        column_config=fmt.columns(
            counts=("tables", "days", "coups", *ERRORS),
            hours="%.1f",
            coups_per_hour="%.1f",
            house_median="%.1f",
            pace_vs_median="%.2f",
        ),
    )
    dots = (
        alt.Chart(pace.drop_nulls("coups_per_hour"), title="Coups per hour against the house median")
        .mark_circle(size=90)
        .encode(
            x=alt.X("coups_per_hour:Q", title="coups per hour", scale=alt.Scale(zero=False)),
            y=alt.Y("dealer_id:N", title=None, sort="x"),
            color="game:N",
            tooltip=[
                "dealer_id",
                "game",
                alt.Tooltip("coups_per_hour:Q", format=".1f"),
                alt.Tooltip("house_median:Q", format=".1f"),
                alt.Tooltip("pace_vs_median:Q", format=".2f"),
            ],
        )
    )
    medians = dots.mark_tick(thickness=2).encode(x="house_median:Q", color=alt.value("#7f8c8d"))
    charts.show(dots + medians)
    st.caption(
        "Pace: coups an hour of dealing, from the gaps between a dealer's consecutive coups of one shoe (breaks "
        "and shuffles left out). House median: the median pace of that game's dealers each gaming day, weighted "
        "by the dealer's hours (the grey tick); pace_vs_median below 1 is slower than the house. Errors: the "
        "dealer's rows quarantined (tableau violations, outcome and payout mismatches)."
    )


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
