"""Surveillance: the alerts of the filtered days (players whose wagers came when the edge favoured them, or
who sat out and bet big late in the shoe), a flagged or searched player's evidence, and a shoe's timeline
of each bet's edge through the cards with the wagers placed in it."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from dashboards.layout import metric_row
from dashboards.queries import players, surveillance
from dashboards.signin import analysts_only
from models.game.paytable import BETS, SIDE_BETS
from models.settings import Settings

analysts_only()  # named players' wagers and the suspicion on them: analysts alone

#: The shoe chart's title, before the shoe's id.
EDGES_TITLE = "When did each bet favour the player? Shoe "
#: The timeline's lines unless chosen otherwise: the bets a count can turn (Dragon 7, Panda 8, pairs) and the tie.
DRAWN = ("tie", *SIDE_BETS)
AXES = {"Coup": "round_no", "Cards seen": "cards_seen"}
#: Alerts the picker offers at most, the newest (a month of a large casino may hold thousands).
PICKED = 500


def render() -> None:
    f = filters.current()
    st.title("Surveillance")
    try:
        found = surveillance.alerts(f)
    except query.Unavailable:
        query.require_marts(*surveillance.MARTS)  # an older warehouse: say which marts it lacks
        raise
    reach = surveillance.coverage(f)
    if not reach.cards:
        st.info(
            "No coup of punto banco, super 6 or EZ baccarat has its cards logged: a bet's edge before a coup "
            "comes from the cards dealt before it, so there is nothing to watch. Ingest round logs with cards."
        )
        return
    if not reach.coups:
        st.info(
            "The filtered shoes have no edges: only shoes of the house-banked games (punto banco, super 6, "
            "EZ baccarat) with their cards logged have them. Widen the days or clear a table, game or dealer."
        )
        return
    if not reach.sessions and not filters.has_bets():
        raise filters.NoBets
    alerts(found, reach)
    st.subheader("Evidence")
    chosen = choose(found)
    if chosen is None:
        return
    player_id, alert = chosen
    evidence(f, player_id)
    st.subheader("Shoe timeline")
    shoe_timeline(f, player_id, alert)


def alerts(found: pl.DataFrame, reach: surveillance.Coverage) -> None:
    st.subheader("Alerts")
    if found.is_empty():
        st.success(
            f"No alerts in the filtered days: {fmt.count(reach.sessions)} sessions of {fmt.count(reach.players)} "
            f"players were looked at ({fmt.count(reach.tested)} with side bets, tested for edge timing), and none "
            f"was flagged (edge timing at a false-discovery rate of {Settings.from_env().surveillance_fdr:g}, "
            "BANCO_SURVEILLANCE_FDR).",
            icon=":material/verified:",
        )
        return
    a, b, c, d = metric_row(4)
    a.metric(
        "Player-days flagged",
        fmt.count(found.select("player_id", "gaming_day").n_unique()),
        help=f"{fmt.count(found.height)} alerts: a player's day can carry one for each rule, and one per session",
    )
    b.metric("Players flagged", fmt.count(found["player_id"].n_unique()))
    c.metric("Days with alerts", fmt.count(found["gaming_day"].n_unique()))
    d.metric(
        "Edge won by the flagged",
        fmt.money(found.filter(pl.col("scope") == "session")["edge_won"].sum()),
        help="Sum of amount × player edge over the flagged sessions' wagers: what their timing was worth",
    )
    per_day = found.group_by("gaming_day", "rule").agg(alerts=pl.len()).sort("gaming_day", "rule")
    charts.show(charts.alerts_per_day(per_day, "How many player-days did each rule flag, day by day?"))
    fmt.table(
        found,
        hide_index=True,
    )  # fmt: skip
    st.caption(
        "Newest first; Detail says why. Edge timing: the side bets took more advantage (stake × the bet's edge, "
        "where it favoured the player) than random timing gives (p: one-sided permutation test over the coups the "
        "player sat through; q: Benjamini–Hochberg over the players tested that day, the one family a flag is "
        f"counted in; a day is flagged when its q is at most {Settings.from_env().surveillance_fdr:g}, the "
        "false-discovery rate BANCO_SURVEILLANCE_FDR; a session flag names where in a flagged day). "
        "Zender's pattern: shoes the player sat "
        "out, then first bet at or near the table maximum in their last 20 % of cards. A flag is a reason to "
        "look, not proof: the statistics cannot see burned cards, shuffles or edge sorting."
    )


def label(row: dict) -> str:
    where = f"{row['table_id']} session {row['session']}" if row["scope"] == "session" else "the whole day"
    return f"{row['gaming_day']} · {row['player_id']} · {fmt.name(row['rule'])} · {where}"


def choose(found: pl.DataFrame) -> tuple[str, dict | None] | None:
    """The player to show: one typed in the search, else the chosen alert's; with the alert (if any)."""
    text = st.text_input("Player id", key="surveillance_search", placeholder="Any player id, or part of one")
    if text.strip():
        matches = players.find(text)
        if matches.is_empty():
            st.warning(f"No rated player matches “{fmt.plain(text.strip())}”: check the id, or pick an alert.")
            return None
        ids = matches["player_id"].to_list()
        if matches["exact"][0] or len(ids) == 1:
            return ids[0], None
        return st.selectbox(f"{fmt.count(len(ids))} players match", ids, key="surveillance_match"), None
    if found.is_empty():
        st.caption("Type a player id to see any player's wagers against the edge.")
        return None
    rows = found.head(PICKED).to_dicts()
    index = st.selectbox("Alert", range(len(rows)), format_func=lambda i: label(rows[i]), key="surveillance_alert")
    alert = rows[index]
    more = (
        f" Of the {fmt.count(found.height)} alerts the newest {fmt.count(PICKED)} can be picked; type a player id "
        "for the others."
        if found.height > PICKED
        else ""
    )
    st.caption(f"Why: {fmt.plain(alert['detail'])}.{more}")
    return alert["player_id"], alert


def evidence(f: filters.Filters, player_id: str) -> None:
    st.markdown(f"#### {fmt.plain(player_id)}")
    played = surveillance.sessions(f, player_id)
    if played.is_empty():
        st.info(f"{fmt.plain(player_id)} placed no wager on a coup with edges in the filtered days, tables or games.")
        return
    sums = surveillance.sums(played)
    a, b, c, d, e = metric_row(5)
    a.metric("Sessions", fmt.count(sums["sessions"]))
    b.metric("Wagers", fmt.count(sums["wagers"]), help=f"{fmt.count(sums['side_wagers'])} on side bets")
    c.metric(
        "At an advantage",
        fmt.percent(sums["advantage_share"], "share"),
        help=f"{fmt.count(sums['advantage_wagers'])} wagers with player edge > 0",
    )
    d.metric(
        "Expected by chance",
        fmt.percent(sums["expected_advantage_share"], "share"),
        help="The share at an advantage if the wagers' timing were unrelated to the shoe",
    )
    e.metric("Edge won", fmt.money(sums["edge_won"]), help="Sum of amount × player edge: what the timing was worth")
    a, b, c, d = metric_row(4)
    a.metric("Amount wagered", fmt.money(sums["amount"]))
    b.metric("House win", fmt.money(sums["house_win"]))
    c.metric("Zender shoes", fmt.count(sums["zender_shoes"]), help=f"Won in them: {fmt.money(sums['zender_won'])}")
    d.metric(
        "Edge won by chance",
        fmt.money(sums["expected_edge_won"]),
        help="What the same stakes would have been worth on average, placed at random among the coups sat through",
    )
    zone = str(filters.gaming_day().timezone)
    fmt.table(
        played.with_columns(pl.col("started_at", "ended_at").dt.convert_time_zone(zone)),
        hide_index=True,
    )  # fmt: skip
    st.caption(
        f"{fmt.count(played.height)} session{'' if played.height == 1 else 's'} with wagers on coups with edges; "
        f"times are {zone}. p: each session's own test, before any correction for the players looked at."
    )
    by_day = surveillance.days(f, player_id)
    if by_day.height:
        st.markdown("**Days**")
        fmt.table(
            by_day,
            hide_index=True,
        )  # fmt: skip
        st.caption("Each day's sessions combined, at every table; q corrects p for the players tested that day.")
    st.markdown("**Wagers**")
    placed = surveillance.wagers(f, player_id)
    if st.toggle("Only wagers at an advantage", key="surveillance_advantage_only"):
        placed = placed.filter(pl.col("advantage"))
    listed = placed.head(surveillance.MAX_WAGERS)
    fmt.table(
        listed,
        hide_index=True,
    )
    more = f", the first {fmt.count(listed.height)} listed" if listed.height < placed.height else ""
    st.caption(
        f"{fmt.count(placed.height)} wagers in the filtered shoes{more}. Player edge: the wager's expectation as a "
        "percent of its stake at that coup, from every card dealt before it (positive: the bet favoured the player); "
        "empty where the coup's edges are unknown."
    )


def shoe_timeline(f: filters.Filters, player_id: str, alert: dict | None) -> None:
    shoes = surveillance.shoes(f)
    placed = surveillance.wagers(f, player_id)  # the evidence's, cached
    if alert is not None:
        best = surveillance.best_shoe(placed, alert["gaming_day"], alert["table_id"])
    else:
        best = surveillance.best_shoe(placed)
    tables = shoes["table_id"].unique(maintain_order=True).to_list()
    left, right = st.columns([1, 2])  # the shoe's label is long: in half a 1024 px window it is cut
    suffix = f"{player_id}_{best}"  # a new flag's best shoe is the new default
    table = left.selectbox(
        "Table", tables, index=tables.index(best[0]) if best else 0, key=f"surveillance_table_{suffix}"
    )
    at_table = shoes.filter(pl.col("table_id") == table)
    labels = {
        row[
            "shoe_id"
        ]: f"{row['shoe_id']} · {row['gaming_day']} · {fmt.name(row['game'])} · {fmt.count(row['coups'])} coups"
        for row in at_table.iter_rows(named=True)
    }
    ids = list(labels)
    default = ids.index(best[1]) if best and best[0] == table and best[1] in ids else 0
    shoe = right.selectbox("Shoe", ids, index=default, format_func=labels.get, key=f"surveillance_shoe_{suffix}")
    if best and (table, shoe) == tuple(best):
        when = " that day" if alert else ""
        st.caption(f"The shoe where {fmt.plain(player_id)}'s wagers were worth most to them{when}.")
    edges = surveillance.edges(table, shoe)
    placed = surveillance.shoe_wagers(table, shoe)
    known = [bet for bet in BETS if edges[bet].null_count() < edges.height]
    wagered = placed.filter(pl.col("player_id") == player_id)["bet"].unique().to_list()
    left, right = st.columns([3, 1])
    drawn = left.multiselect(
        "Bets drawn",
        known,
        format_func=fmt.name,
        default=[bet for bet in known if bet in DRAWN or (bet in wagered and bet not in ("banker", "player"))],
        key=f"surveillance_bets_{table}_{shoe}",
    )
    x = AXES[right.radio("Along", list(AXES), horizontal=True, key="surveillance_axis")]
    lines = edges.unpivot(drawn, index=["round_no", "cards_seen"], variable_name="bet", value_name="player_edge")
    marks = (
        placed.filter(pl.col("player_edge").is_not_null())
        .with_columns(
            pl.col("amount").cast(pl.Float64),
            who=pl.when(pl.col("player_id") == player_id).then(pl.lit("chosen")).otherwise(pl.lit("other")),
        )
        .sort("who", descending=True)  # the chosen player's wagers drawn last, on top of the others'
    )
    charts.show(charts.shoe_edges(lines.drop_nulls("player_edge"), marks, x, f"{EDGES_TITLE}{shoe}"))
    unmarked = placed.height - marks.height
    st.caption(
        "Each bet's edge for the player before each coup, from the cards dealt before it (burned cards unseen, as a "
        f"counter sees them); above the dashed line the bet favoured the player. Dots: the wagers, {player_id}'s in "
        "black, sized by amount."
        + (f" {fmt.count(unmarked)} wagers on coups without edges are not marked." if unmarked else "")
    )
    fmt.table(
        placed,
        hide_index=True,
    )
    st.caption(f"{fmt.count(placed.height)} wagers placed in shoe {fmt.plain(shoe)}.")
    with st.expander("Edges coup by coup"):
        fmt.table(
            edges.select("round_no", "cards_seen", "cards_left", "best_bet", "best_edge", *known),
            hide_index=True,
            kinds=dict.fromkeys(known, "edge"),
        )
        st.caption("Player's edge per bet (minus the house edge); Best bet: the bet with the highest.")


render()
