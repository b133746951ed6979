"""Decisions: every free choice of Chemin de Fer and Baccarat Banque rated exactly, who gave up the most by
them, each player's sums and the bank tenures', with the caution that one deviation proves nothing."""

from __future__ import annotations

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from dashboards.layout import metric_row
from dashboards.queries import decisions
from dashboards.signin import analysts_only
from models.metrics.decision_styles import MIN_DECISIONS, TREMBLE

analysts_only()  # names each player and what their choices cost: the navigation offers this page to analysts alone

#: The deciders the page can keep, as the radio names them.
DECIDERS = {"Punters and bankers": decisions.DECIDERS, "Punters": ("punter",), "Bankers": ("banker",)}
#: The players' table's columns read as names (Punter, Chemin de Fer, Equilibrium) and the evidence as a number.
KINDS = {"decider": "name", "style": "name", "evidence": "number"}
#: The punter plays the Player hand and the banker the Banker's: the sides' colours of every page.
SIDES = alt.Scale(domain=["banker", "punter"], range=[charts.OUTCOME_COLORS.range[0], charts.OUTCOME_COLORS.range[1]])
RATED = (
    "Every free choice of Chemin de Fer and Baccarat Banque, rated: the punter's draw or stand on 5 and the "
    "banker's optional draws. For each one the exact expected result of drawing and of standing is worked out "
    "for the cards left in the shoe at that moment, as the decider knew them, against an opponent who plays "
    "the tableau. A choice worth less than the other is a **deviation**; its **cost** is the expectation it "
    "gave up, per unit staked and in money on the stakes it moved."
)
CAUTION = (
    "**A single deviation is no evidence.** The cost is an expectation, not what the coup lost: a punter who "
    "stands on 5 where drawing was worth 0.03 more gave up 3 % of his stake on average, and may well have won. "
    "Over a few decisions luck dominates; judge a player by many."
)


def render() -> None:
    f = filters.current()
    st.title("Decisions")
    st.markdown(RATED)
    st.info(CAUTION, icon=":material/info:")
    deciders = DECIDERS[st.radio("Deciders", list(DECIDERS), horizontal=True, key="decisions_deciders")]
    try:
        totals = decisions.totals(f, deciders)
    except query.Unavailable:
        query.require_marts(*decisions.MARTS)  # an older warehouse: say which marts it lacks
        raise
    if not totals["decisions"]:
        st.info(
            "No rated decisions in the filters: only Chemin de Fer and Baccarat Banque leave choices to the "
            "players, and only in shoes whose cards are logged from the first coup."
        )
        return
    headline(f, deciders, totals)
    costliest = decisions.costliest(f, deciders)
    if costliest["expected_cost"].sum() > 0:
        charts.show(given_up(costliest))
    where = decisions.cells(f, deciders)
    if not where.is_empty():
        charts.show(by_cell(where))
        st.caption(
            "A cell is the decider's two-card total against what he faced: a punter, the bank's hidden cards; a "
            "banker, each Player hand's third card, `stood` or `natural` (a Banque bank faces two hands)."
        )
    st.subheader("Players")
    fmt.table(decisions.players(f, deciders), hide_index=True, kinds=KINDS)
    st.caption(
        "Per player, game and decider within the filters: the days they decided on, their decisions, the "
        "deviations among them, the stakes the choices moved and the expectation given up in money. A Chemin de "
        "Fer bank is its banker wager's player's; a Baccarat Banque bank names no player (see the tenures). "
        "Style: the way of playing that best explains all their decisions, whatever the filters (below)."
    )
    styles(f, deciders)
    if "banker" in deciders:
        st.subheader("Bank tenures")
        fmt.table(decisions.banks(f), hide_index=True)
        st.caption(
            f"The {decisions.TENURES} costliest bank tenures in the filters: a tenure is one holder's run of the "
            "bank in a shoe, numbered as the Banker-pass streaks page numbers them."
        )


def headline(f: filters.Filters, deciders: tuple[str, ...], totals: dict) -> None:
    equilibrium = decisions.equilibrium(f, deciders)
    a, b, c, d = metric_row(4)
    a.metric("Decisions", fmt.count(totals["decisions"]))
    b.metric(
        "Deviations",
        fmt.count(totals["deviations"]),
        help="Choices worth less, for the shoe's cards at that moment, than the other choice",
    )
    c.metric("Expected cost", fmt.money(totals["expected_cost"]), help="The expectation the deviations gave up")
    followed = fmt.percent(equilibrium["followed"] / equilibrium["pure"], "share") if equilibrium["pure"] else None
    d.metric(
        "Followed the equilibrium",
        fmt.text(followed),
        help="Of the decisions where the game's equilibrium draws or stands for sure, the share that made its choice",
    )
    if not equilibrium["rated"]:
        st.caption("This warehouse was built before the equilibrium's choices were rated: `banco build` adds them.")


def styles(f: filters.Filters, deciders: tuple[str, ...]) -> None:
    st.subheader("Who plays the equilibrium?")
    fitted = decisions.styles(f, deciders)
    named = fitted.filter(pl.col("style") != decisions.TOO_FEW)
    few = int(fitted.filter(pl.col("style") == decisions.TOO_FEW)["players"].sum())
    if named.is_empty():
        st.info(f"No player in the filtered games has the {MIN_DECISIONS} decisions a style needs.")
    else:
        charts.show(by_style(named), stretch=False)
    st.caption(
        "Each player's decisions (all time, per game and decider) scored under four styles: always draw, always "
        "stand, the game's equilibrium, and the house's tableau. Each style gives each choice a probability "
        f"(at least {TREMBLE:g}: one slip of the hand rules no style out); the style under which their choices were "
        "likeliest is theirs, named with every style their choices cannot tell from it (less than 20 times "
        "likelier), and its evidence is the log-likelihood ratio over the best style told apart (3.0 = 20 times "
        "likelier, 4.6 = 100 times). "
        f"{fmt.count(few)} of {fmt.count(int(fitted['players'].sum()))} players have fewer than {MIN_DECISIONS} "
        "decisions: too few to name a style."
    )


def by_style(named: pl.DataFrame) -> alt.Chart:
    """Players per best-fitting style, punters and bankers side by side, a panel per game."""
    return (
        alt.Chart(named, title="Which way of playing best explains each player's choices?")
        .mark_bar()
        .encode(
            x=alt.X("players:Q", title="Players", axis=alt.Axis(format=",d", tickMinStep=1)),
            y=alt.Y(
                "style:N", title="Best-fitting style", axis=alt.Axis(labelExpr=charts.names_expr(), labelLimit=240)
            ),
            yOffset="decider:N",
            color=alt.Color("decider:N", scale=SIDES, legend=charts.named("As")),
            column=alt.Column("game:N", title=None, header=alt.Header(labelExpr=charts.names_expr("datum.value"))),
            tooltip=["game", "decider", "style", alt.Tooltip("players:Q", format=","), "decisions"],
        )
        .properties(width=300)
    )


def by_cell(where: pl.DataFrame) -> alt.Chart:
    """The cells whose choices gave up the most, a colour per game."""
    return (
        alt.Chart(where, title="Where did the choices give up the most?")
        .mark_bar()
        .encode(
            x=alt.X("expected_cost:Q", title=charts.money_axis("Expected cost given up")),
            y=alt.Y("cell:N", title="Decider's total against what he faced", sort="-x", axis=alt.Axis(labelLimit=300)),
            color=alt.Color("game:N", legend=charts.named("Game")),
            tooltip=[
                "game",
                "cell",
                alt.Tooltip("decisions:Q", format=","),
                alt.Tooltip("deviations:Q", format=","),
                alt.Tooltip("expected_cost:Q", format=",.2f"),
            ],
        )
    )


def given_up(costliest: pl.DataFrame) -> alt.Chart:
    """The players whose choices gave up the most, each bar split by the side they decided as."""
    return (
        alt.Chart(costliest, title="Who gave up the most by their choices?")
        .mark_bar()
        .encode(
            x=alt.X("expected_cost:Q", title=charts.money_axis("Expected cost of their choices"), stack="zero"),
            y=alt.Y(
                "player_id:N",
                title="Player",
                sort=alt.EncodingSortField(field="expected_cost", op="sum", order="descending"),
            ),
            color=alt.Color("decider:N", scale=SIDES, legend=charts.named("As")),
            tooltip=["player_id", "decider", alt.Tooltip("expected_cost:Q", format=",.2f")],
        )
    )


render()
