"""Players: the top players by theo (or house win, average bet, visits, last visit, comp value, ...)
within the filters, a search by player id, and a player's profile: totals, sessions on a timeline, bets by
type, and house win against theo inside the band chance allows."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from dashboards.layout import metric_row
from dashboards.queries import players
from dashboards.signin import analysts_only
from models.settings import Settings

analysts_only()  # every wager of a named player: the navigation offers this page to analysts alone

SHOWN = (25, 50, 100, 500)
#: The settings this dashboard runs with: the captions say the ones that shape the page's figures.
SETTINGS = Settings.from_env()
NO_COMPS = (
    "Comp value is 0.00 because the marts were built with a comp reinvestment rate of 0, the default: set "
    "BANCO_COMP_RATE (the share of theo given back as comps, e.g. 0.25) and run `banco build` (docs/metrics.md)."
)


def render() -> None:
    f = filters.current()
    st.title("Players")
    left, right = st.columns(2)
    rank = left.selectbox("Rank by", list(players.RANKS), key="players_rank")
    limit = right.selectbox("Players shown", SHOWN, index=1, key="players_shown")
    try:
        ranking = players.top(f, players.RANKS[rank], limit)
    except query.Unavailable:
        query.require_marts(*players.MARTS)  # an older warehouse: say which marts it lacks
        raise
    listed = ranking.listed
    if listed.is_empty():
        if not filters.has_bets():
            raise filters.NoBets
        st.info("No rated play in the filtered days: no wager there carries a player id.")
        return
    a, b, c, d = metric_row(4)
    a.metric("Rated players", fmt.count(ranking.players))
    b.metric("Visits", fmt.count(ranking.visits), help="A player's gaming day with play counts one visit")
    c.metric("Theo", fmt.money(ranking.theo), help="Theoretical win: each wager times its bet's exact edge")
    d.metric("Comp value", fmt.money(ranking.comp_value), help="Theo at the comp reinvestment rate (BANCO_COMP_RATE)")
    if not ranking.comp_value and ranking.theo:  # theo, and none of it given back: the rate was 0
        st.caption(NO_COMPS)
    st.subheader(f"Top {fmt.count(listed.height)} by {rank.lower()}")
    fmt.table(
        listed,
        hide_index=True,
    )  # fmt: skip
    st.caption(
        "All time when no filter is set, else within the filtered days, tables, games and dealers. Average bet: "
        "handle per decision. z: (house win − theo) / its standard deviation; |z| > 3 is rare by chance. "
        f"Comp value: theo × the comp reinvestment rate, BANCO_COMP_RATE, set to {SETTINGS.comp_rate} here."
    )
    st.subheader("Player profile")
    text = st.text_input("Player id", key="player_search", placeholder="A player id, or part of one")
    chosen = pick(text)
    if chosen:
        profile(f, chosen)


def pick(text: str) -> dict | None:
    """The row of marts.players `text` names, or one picked among its matches, or None (saying why)."""
    if not text.strip():
        st.caption("Type a player id (or part of one) to see their profile.")
        return None
    found = players.find(text)
    if found.is_empty():
        typed = fmt.plain(text.strip())
        st.warning(f"No rated player matches “{typed}”: check the id, or copy one from the list above.")
        return None
    if found["exact"][0] or found.height == 1:
        return found.row(0, named=True)
    more = " (the first of them)" if found.height == players.MATCHES else ""
    ids = found["player_id"].to_list()
    chosen = st.selectbox(f"{fmt.count(len(ids))} players match{more}", ids, key="player_match")
    return found.row(ids.index(chosen), named=True)


def profile(f: filters.Filters, whole: dict) -> None:
    player_id = whole["player_id"]
    st.markdown(f"#### {fmt.plain(player_id)}")
    a, b, c, d, e = metric_row(5)
    a.metric("Visits", fmt.count(whole["visits"]), help=f"First {whole['first_visit']}, last {whole['last_visit']}")
    b.metric("Last visit", fmt.text(whole["last_visit"]))
    c.metric("Average bet", fmt.money(whole["average_bet"]))
    d.metric("Hours played", fmt.number(whole["minutes"] / 60, 1))
    e.metric(
        "Theo per visit",
        fmt.money(whole["theo_per_visit"]),
        help="Average daily theo (ADT): theo over the gaming days played",
    )
    a, b, c, d, e = metric_row(5)
    a.metric("Theo", fmt.money(whole["theo"]))
    b.metric("House win", fmt.money(whole["house_win"]))
    c.metric("Comp value", fmt.money(whole["comp_value"]))
    d.metric("Theo per hour", fmt.money(whole["theo_per_hour"]))
    e.metric("Win against theo (z)", fmt.number(whole["win_vs_theo_z"]))
    st.caption("All time. The sessions, bets and charts below keep to the filters.")
    played = players.sessions(f, player_id)
    if played.is_empty():
        st.info(f"{fmt.plain(player_id)} did not play in the filtered days, tables or games.")
        return
    played = local_times(played)
    charts.show(charts.sessions_timeline(played.tail(charts.MAX_POINTS), "When, and at which tables, did they play?"))
    fmt.table(
        played.drop("win_variance"),
        hide_index=True,
    )  # fmt: skip
    counted = f"{fmt.count(played.height)} session{'' if played.height == 1 else 's'}"
    st.caption(
        f"{counted}; a session ends when the player places no wager at the table for more than "
        f"{SETTINGS.session_gap_minutes:g} minutes (BANCO_SESSION_GAP_MINUTES); times are "
        f"{filters.gaming_day().timezone}."
    )
    bets_by_type(f, player_id)
    charts.show(
        charts.win_against_theo(played, "Has the house won more or less from them than theo, session after session?")
    )
    st.caption(
        "Cumulative house win and theo over the sessions; the grey band is theo ± 2 standard deviations of the "
        "win (from every wager's exact variance): by chance alone the win stays inside it about 95 % of the time."
    )


def bets_by_type(f: filters.Filters, player_id: str) -> None:
    by_bet = players.bets(f, player_id)
    st.markdown("**Bets by type**")
    rates = ("share", "win_over_handle", "theo_over_handle")
    fmt.table(
        by_bet.select("bet", "wagers", "handle", "share", "house_win", "theo", *rates[1:], z="win_vs_theo_z"),
        hide_index=True,
    )
    if f.narrowed():
        st.caption("Bets by type cover the filtered days at every table and game.")


def local_times(sessions: pl.DataFrame) -> pl.DataFrame:
    """Start and end in the casino's time zone (the gaming day's), as the floor reads a clock."""
    zone = filters.gaming_day().timezone
    return sessions.with_columns(pl.col("started_at", "ended_at").dt.convert_time_zone(str(zone)))


render()
