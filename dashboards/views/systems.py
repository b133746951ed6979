"""Systems lab: what a betting system does to a session, exactly and back-tested on the filtered shoes, and
how often a pattern's "prediction" wins beside the rate chance gives."""

from __future__ import annotations

from decimal import Decimal

import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from dashboards.layout import metric_row
from dashboards.queries import systems
from models.game.games import Game
from models.settings import Settings
from models.systems import lab
from models.systems.calibration import chart as calibrated_chart
from models.systems.rules import SYSTEMS, Limits

PLAIN_WORDS = (
    "No betting system changes the house edge: every bet it places carries the same edge, so the expected loss is "
    "the edge times the amount wagered, whatever the order of the stakes. A system only reshapes the spread, "
    "often many small wins against a rare large loss. The coups are independent: a pattern's "
    '"prediction" wins at the rate chance gives that side, no more.'
)


@st.cache_data(max_entries=16, show_spinner="Working the session out exactly…")
def answer(question: lab.Question, max_states: int):
    """The exact answer and None, or None and why it is omitted (too large a chain)."""
    return lab.exact_or_note(question, max_states)


def exact(question: lab.Question) -> dict:
    result, note = answer(question, lab.MAX_STATES)
    return lab.summary(question, result, note=note)


@st.cache_data(ttl=query.TTL_SECONDS, max_entries=32, show_spinner="Back-testing on the filtered shoes…")
def backtest(question: lab.Question, shoes: tuple[tuple[str, ...], ...]) -> tuple[dict, list[float]]:
    tested = lab.run_backtest(question, shoes)
    result, note = answer(question, lab.MAX_STATES)
    return lab.summary(question, result, tested, f"{len(shoes)} shoes", note), tested["result"].to_list()


@st.cache_data(ttl=query.TTL_SECONDS, max_entries=16, show_spinner="Calibrating the patterns…")
def calibration(shoes: tuple[tuple[str, ...], ...], game: Game, decks: int) -> pl.DataFrame:
    return lab.calibrate(shoes, game, decks)


def _amount(value: float | None) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def ask() -> lab.Question:
    """The system and its settings, with the command's defaults."""
    defaults = Limits()
    a, b, c, d = st.columns(4)
    system = a.selectbox("System", list(SYSTEMS), key="systems_system")
    follower = system in lab.PATTERNS
    bets = [bet for bet in lab.BETS if not (follower and bet == "tie")]
    bet = b.selectbox(
        "Bet",
        bets,
        format_func=fmt.name,
        key="systems_bet",
        help="A pattern follower backs Banker or Player as it reads",
    )
    game = c.selectbox("Game", [g.value for g in Game], format_func=fmt.name, key="systems_game")
    decks = d.slider("Decks", 1, 8, 8, key="systems_decks")
    a, b, c = st.columns(3)  # seven side by side cut their values short in a 1024 px window
    d, e, g = st.columns(3)
    h, _, _ = st.columns(3)
    unit = a.number_input("Unit", min_value=1.0, value=float(defaults.unit), step=5.0, key="systems_unit")
    bankroll = b.number_input("Bankroll", min_value=1.0, value=None, step=100.0, placeholder="unlimited",
                              key="systems_bankroll")  # fmt: skip
    goal = c.number_input("Goal", min_value=1.0, value=None, step=50.0, placeholder="none", key="systems_goal")
    stop = d.number_input("Stop-loss", min_value=1.0, value=None, step=50.0, placeholder="none", key="systems_stop")
    maximum = e.number_input("Max bet", min_value=1.0, value=float(Settings.from_env().max_bet), step=100.0,
                             key="systems_max")  # fmt: skip
    minimum = g.number_input("Min bet", min_value=1.0, value=float(defaults.min_bet), step=5.0, key="systems_min")
    coups = h.number_input("Coups", min_value=1, max_value=200, value=defaults.coups, key="systems_coups")
    limits = Limits(
        unit=_amount(unit),
        bankroll=_amount(bankroll),
        goal=_amount(goal),
        stop_loss=_amount(stop),
        max_bet=_amount(maximum),
        min_bet=_amount(minimum),
        coups=int(coups),
    )
    return lab.Question(system, bet, limits, Game(game), decks)


def key_figures(figures: dict) -> None:
    a, b, c, d, e = metric_row(5)
    a.metric("Expected result", fmt.money(figures["expected_result"]))
    b.metric("Expected bets", fmt.number(figures["expected_bets"]))
    c.metric("P(goal)", fmt.percent(figures["p_goal"], "rate"))
    d.metric("Risk of ruin", fmt.percent(figures["risk_of_ruin"], "rate"))
    e.metric("Expected loss", fmt.money(figures["expected_loss"]), help="The house edge times the action")
    st.caption(
        f"Expected loss = house edge × expected amount wagered: {fmt.percent(figures['house_edge'], 'edge')} × "
        f"{fmt.money(figures['expected_wagered'])} = {fmt.money(figures['expected_loss'])}."
    )


def bands(summary: dict) -> pl.DataFrame:
    tested = summary.get("backtest")
    if summary["exact"] is None:  # too large a chain: the back-test alone
        return pl.DataFrame(tested["bands"]).select(session="band", back_test="share")
    exact_bands = summary["exact"]["bands"]
    if tested is None:
        return pl.DataFrame({"session": list(exact_bands), "exact": list(exact_bands.values())})
    return (
        pl.DataFrame(tested["bands"])
        .rename({"band": "session", "share": "back_test"})
        .select("session", "exact", "back_test", "z")
    )


def render() -> None:
    st.title("Systems lab")
    st.caption(PLAIN_WORDS)
    try:
        question = ask()
        summary = exact(question)
    except ValueError as error:
        st.error(str(error))
        return
    st.subheader("Exactly, on independent coups")
    known = summary["exact"] is not None
    if known:
        key_figures(summary["exact"])
    else:
        st.info(f"{summary['exact_omitted'].capitalize()}: the back-test below answers alone.")
    st.subheader("On the filtered shoes")
    missing = (
        f"No {fmt.name(question.game.value)} shoe of {question.decks} decks matches the filters: nothing to back-test."
    )
    try:
        shoes = systems.shoes(filters.current(), question.game.value, question.decks)
    except query.Unavailable as error:
        shoes, missing = (), f"{error} Run `{error.command}` to back-test on the warehouse's shoes."
    except filters.Empty:
        shoes = ()
    if not shoes:
        if known:
            charts.show(lab.chart(summary, "How likely is each session result? (exact)", charts.currency()))
            fmt.table(bands(summary), hide_index=True)
        st.info(missing)
        return
    tested, results = backtest(question, shoes)
    title = (
        "How likely is each session result? Exact bars, back-test dots"
        if known
        else "How did the sessions end on these shoes?"
    )
    charts.show(lab.chart({**tested, "backtest_results": results}, title, charts.currency()))
    fmt.table(bands(tested), hide_index=True)
    t = tested["backtest"]
    exactly = f" (exactly {fmt.money(summary['exact']['expected_result'])})" if known else ""
    st.caption(
        f"One session per shoe (its first {question.limits.coups} coups, as the exact session) on "
        f"{fmt.count(t['sessions'])} {fmt.name(question.game.value)} shoes "
        f"of {question.decks} decks: mean result {fmt.money(t['mean_result'])}{exactly}, mean amount wagered "
        f"{fmt.money(t['mean_wagered'])}."
        + (
            " z: how many standard errors the shoes' share lies from the exact probability (within ±2 by chance "
            "alone, about 19 times in 20)."
            if known
            else ""
        )
    )
    if question.follower:
        st.subheader("Does the pattern predict?")
        rows = calibration(shoes, question.game, question.decks)
        if rows.height:
            charts.show(calibrated_chart(rows))
        fmt.table(rows, hide_index=True)
        st.caption(
            "Each pattern's call on these shoes: how often it won against the rate the exact odds give the side "
            "it called, with the z and the exact binomial p-value. A small p-value on one row of many is what "
            "chance gives too."
        )


render()
