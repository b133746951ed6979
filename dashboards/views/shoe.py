"""Shoe explorer: any shoe's roads (bead plate, big road, the three derived roads) and its cards coup by coup."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, filters, fmt, shoes
from models.metrics.roads import roads


def render() -> None:
    f = filters.current()
    st.title("Shoe explorer")
    shoe = shoes.pick(f, "explorer")
    dealt = shoes.coups(shoe)
    s = shoe.summary
    a, b, c, d, e, g = st.columns(6)
    a.metric("Coups", fmt.count(s["coups"]))
    b.metric("Banker", fmt.count(s["banker"]))
    c.metric("Player", fmt.count(s["player"]))
    d.metric("Ties", fmt.count(s["ties"]))
    e.metric("Longest runs B / P", f"{fmt.count(s['longest_banker_run'])} / {fmt.count(s['longest_player_run'])}")
    g.metric("Reconciled", {"reconciled": "yes", "overdrawn": "overdrawn"}.get(s["reconciliation"], "no cards"))
    st.caption(
        f"{shoe.game} · {shoe.decks} decks · gaming day {s['gaming_day']} · "
        f"{fmt.count(s['cards_dealt'])} cards dealt · {fmt.count(s['naturals'])} naturals · "
        f"pairs P {fmt.count(s['player_pairs'])} / B {fmt.count(s['banker_pairs'])}"
    )
    drawn = roads(dealt["outcome"].to_list())
    st.subheader("Roads")
    charts.show(charts.road(drawn.bead_plate, "Bead plate"), stretch=False)
    charts.show(charts.road(drawn.big_road, "Big road (ties counted in green)"), stretch=False)
    for cells, title in (
        (drawn.big_eye_boy, "Big eye boy"),
        (drawn.small_road, "Small road"),
        (drawn.cockroach_pig, "Cockroach pig"),
    ):
        charts.show(charts.road(cells, title, derived=True, cell_size=12), stretch=False)
    st.subheader("Coup by coup")
    shown = dealt.drop("has_cards")
    if dealt["player2_cards"].is_null().all():
        shown = shown.drop("player2_cards", "player2_total", "outcome2")
    fmt.table(shown, hide_index=True, height=420)
    if not dealt["has_cards"].all():
        st.caption("Rows without cards are scoreboard rows: the log gave only their outcome.")


render()
