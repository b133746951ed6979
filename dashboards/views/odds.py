"""Odds lab: exact probabilities and house edges for a game, deck count and pay table, and for the
cards left at any point of a chosen shoe."""

from __future__ import annotations

from decimal import Decimal

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query, shoes
from dashboards.layout import metric_row
from models.game.cards import CardError, parse_hand
from models.game.games import Game
from models.game.paytable import DEFAULT_EGALITE, DEFAULT_PAYTABLE, NO_COMMISSION_GAMES, PayTable
from models.game.shoe import Composition, CompositionError
from models.game.tableau import DrawPolicy
from models.odds.exact import exact_odds
from models.odds.summary import odds_summary

TIE_TOTALS = "On which total does a tie fall?"
CHOICES = {"draw": 1.0, "stand": 0.0, "mixed (half and half)": 0.5}


@st.cache_data(max_entries=128, show_spinner=False)
def summary(values: tuple[int, ...], ranks: tuple[int, ...] | None, game: str, policy: DrawPolicy, table: PayTable):
    return odds_summary(exact_odds(Composition(values, ranks), Game(game), policy), table)


def render() -> None:
    st.title("Odds lab")
    a, b, c = st.columns(3)
    game = a.selectbox("Game", [g.value for g in Game], format_func=fmt.name, key="odds_game")
    decks = b.slider("Decks", 1, 8, 8, key="odds_decks")
    punter = c.selectbox(
        "Punter on 5 (Chemin de Fer, Baccarat Banque)",
        list(CHOICES),
        key="odds_punter",
        disabled=not Game(game).punter_has_choice,
    )
    with st.expander("Pay table"):
        a, b, c, d, e, g = st.columns(6)
        commission = a.number_input(
            "Commission", 0.0, 0.2, float(DEFAULT_PAYTABLE.commission), step=0.005, format="%.3f", key="odds_commission"
        )
        tie = b.number_input("Tie pays", 1, 100, int(DEFAULT_PAYTABLE.tie), key="odds_tie")
        pair = c.number_input("Pair pays", 1, 100, int(DEFAULT_PAYTABLE.pair), key="odds_pair")
        dragon7 = d.number_input("Dragon 7 pays", 1, 100, int(DEFAULT_PAYTABLE.dragon7), key="odds_dragon7")
        panda8 = e.number_input("Panda 8 pays", 1, 100, int(DEFAULT_PAYTABLE.panda8), key="odds_panda8")
        super6 = g.number_input(
            "Super 6: Banker 6 pays", 0.05, 1.0, float(DEFAULT_PAYTABLE.super6_six), step=0.05, key="odds_super6"
        )
        egalite = st.text_input(
            "Egalite pays, tie totals 0..9", ", ".join(map(str, DEFAULT_EGALITE)), key="odds_egalite"
        )
    try:
        table = PayTable(
            commission=Decimal(str(commission)),
            tie=tie,
            pair=pair,
            dragon7=dragon7,
            panda8=panda8,
            super6_six=Decimal(str(super6)),
            egalite=tuple(Decimal(part.strip()) for part in egalite.split(",")),
        )
    except (ValueError, ArithmeticError) as error:
        st.error(f"Pay table: {error}")
        return
    policy = DrawPolicy(punter_on_5=CHOICES[punter])
    full = Composition.full(decks)
    show(summary(full.values, full.ranks, game, policy, table), Game(game))
    mid_shoe(game, policy, table)


def show(odds: dict, game: Game, baseline: dict | None = None) -> None:
    a, b, c, d, e = metric_row(5)
    for column, label, key in (
        (a, "Banker wins", "p_banker"),
        (b, "Player wins", "p_player"),
        (c, "Tie", "p_tie"),
        (d, "Bank keeps (decided)", "p_bank_keeps"),
    ):
        delta = None if baseline is None else fmt.points(odds[key] - baseline[key], "rate")
        column.metric(label, fmt.percent(odds[key], "rate"), delta=delta, delta_color="off")
    e.metric("Cards per coup", fmt.number(odds["expected_cards"]))
    bets = pl.DataFrame(
        {
            "bet": list(odds["edge"]),
            "house_edge": list(odds["edge"].values()),
            "std_dev": [v**0.5 for v in odds["variance"].values()],
        }
    )
    if baseline is not None:
        bets = bets.with_columns(full_shoe_edge=pl.Series([baseline["edge"].get(b) for b in bets["bet"]]))
    left, right = st.columns([3, 2])
    with left:
        fmt.table(bets, hide_index=True)
        if game in NO_COMMISSION_GAMES:
            st.caption(f"{fmt.name(game.value)}: the Banker bet pays no commission, and less on some wins.")
    with right:
        ties = pl.DataFrame({"total": list(range(10)), "probability": odds["p_tie_by_total"]})
        charts.show(
            alt.Chart(ties, title=TIE_TOTALS)
            .mark_bar(color="#2e8b57")
            .encode(
                x=alt.X("total:O", title="Tie on total (points)", axis=alt.Axis(labelAngle=0)),
                y=alt.Y("probability:Q", title="Probability (%)", axis=alt.Axis(format=".2%")),
                tooltip=["total", alt.Tooltip("probability:Q", format=".5%")],
            )
            .properties(height=240)
        )


def mid_shoe(game: str, policy: DrawPolicy, table: PayTable) -> None:
    st.subheader("The cards left in a dealt shoe")
    try:
        f = filters.current()
        shoe = shoes.pick(f, "odds")
        dealt = shoes.coups(shoe)
    except query.Unavailable as error:
        st.info(f"{fmt.plain(error)} Run `{error.command}` to pick a shoe here.")
        return
    except filters.Empty:
        st.info("No shoe matches the filters.")
        return
    if not dealt["has_cards"].any():
        st.info("This shoe was logged without cards (scoreboard rows): the cards left cannot be known.")
        return
    after = st.slider("After coup", 0, dealt.height, dealt.height // 2, key="odds_after")
    seen = dealt.head(after)
    try:
        cards = [
            card
            for hand in seen.select("player_cards", "banker_cards", "player2_cards").iter_rows()
            for text in hand
            for card in parse_hand(text)
        ]
        left = Composition.after(shoe.decks, cards)
        odds = summary(left.values, left.ranks, shoe.game, policy, table)
    except (CardError, CompositionError) as error:
        st.warning(f"The cards of this shoe cannot be followed: {fmt.plain(error)}")
        return
    full = Composition.full(shoe.decks)
    st.caption(
        f"{shoe.table_id} · {shoe.shoe_id} · {fmt.name(shoe.game)} · {shoe.decks} decks: {fmt.count(len(cards))} cards "
        f"seen in {after} coups, {fmt.count(left.cards)} left. Quarantined coups are not in the warehouse, so their "
        "cards count as still in the shoe."
    )
    show(odds, Game(shoe.game), baseline=summary(full.values, full.ranks, shoe.game, policy, table))


render()
