"""Shoe explorer: any shoe's roads (bead plate, big road, the three derived roads) with the derived roads' ask
cells and how betting them has fared over every shoe, and its cards coup by coup."""

from __future__ import annotations

import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, shoes
from dashboards.layout import metric_row
from models.metrics.roads import BLUE, RED, ask, roads

MARKS = {RED: ":red[●] red", BLUE: ":blue[●] blue"}
HONEST = "The roads record what happened; they do not predict the next coup."


def render() -> None:
    f = filters.current()
    st.title("Shoe explorer")
    shoe = shoes.pick(f, "explorer")
    dealt = shoes.coups(shoe)
    s = shoe.summary
    a, b, c, d, e, g = metric_row(6)
    a.metric("Coups", fmt.count(s["coups"]))
    b.metric("Banker", fmt.count(s["banker"]))
    c.metric("Player", fmt.count(s["player"]))
    d.metric("Ties", fmt.count(s["ties"]))
    e.metric("Longest runs B / P", f"{fmt.count(s['longest_banker_run'])} / {fmt.count(s['longest_player_run'])}")
    g.metric("Reconciled", {"reconciled": "yes", "overdrawn": "overdrawn"}.get(s["reconciliation"], "no cards"))
    st.caption(
        f"{fmt.name(shoe.game)} · {shoe.decks} decks · gaming day {s['gaming_day']} · "
        f"{fmt.count(s['cards_dealt'])} cards dealt · {fmt.count(s['naturals'])} naturals · "
        f"pairs P {fmt.count(s['player_pairs'])} / B {fmt.count(s['banker_pairs'])}"
    )
    outcomes = dealt["outcome"].to_list()
    drawn = roads(outcomes)
    st.subheader("Roads")
    charts.show(charts.road(drawn.bead_plate, charts.BEAD_PLATE), stretch=False)
    charts.show(charts.road(drawn.big_road, charts.BIG_ROAD), stretch=False)
    asked = ask(outcomes)
    pooled, shoe_count = shoes.calibration()
    for cells, name in (
        (drawn.big_eye_boy, "big_eye_boy"),
        (drawn.small_road, "small_road"),
        (drawn.cockroach_pig, "cockroach_pig"),
    ):
        title = charts.DERIVED_TITLES[name]
        charts.show(charts.road(cells, title, derived=name, cell_size=12), stretch=False)
        # below the road, never beside it: a long shoe's road takes the page's width
        left, right = st.columns([1, 2])
        words = name.replace("_", " ")
        left.markdown(ask_cells(asked[name]))
        right.caption(calibration_words(pooled, name, words, shoe_count))
    st.caption(
        "Ask cells (the ask road) show the mark each derived road would add if the next coup were Banker, "
        f"or Player. {HONEST}"
    )
    st.subheader("Coup by coup")
    shown = dealt.drop("has_cards")
    if dealt["player2_cards"].is_null().all():
        shown = shown.drop("player2_cards", "player2_total", "outcome2")
    fmt.table(shown, hide_index=True, height=420)
    if not dealt["has_cards"].all():
        st.caption("Rows without cards are scoreboard rows: the log gave only their outcome.")


def ask_cells(cells: dict[str, str | None]) -> str:
    """The ask cells in a line: the mark a Banker, then a Player, would add."""
    if cells["B"] is None:
        return "**Ask** · no mark yet: the road has not started"
    return f"**Ask** · Banker next: {MARKS[cells['B']]} · Player next: {MARKS[cells['P']]}"


def calibration_words(pooled: pl.DataFrame, road: str, name: str, shoe_count: int) -> str:
    """How betting the side this road's red ask cell names has fared over every shoe, in plain words."""
    found = pooled.filter(pl.col("road") == road)
    shoes_said = f"{fmt.count(shoe_count)} shoe{'' if shoe_count == 1 else 's'}"
    if found.is_empty() or not found["calls"][0]:
        return f"No decided coup in the {shoes_said} of this warehouse has been called by the {name}'s ask cells yet."
    row = found.row(0, named=True)
    return (
        f"Over the {shoes_said} in this warehouse, betting the side the {name}'s red ask cell names won "
        f"{fmt.percent(row['win_rate'], 'rate')} of {fmt.count(row['calls'])} decided coups; chance alone (the exact "
        f"odds) gives {fmt.percent(row['expected_rate'], 'rate')} for that mix of Banker and Player. {HONEST}"
    )


render()
