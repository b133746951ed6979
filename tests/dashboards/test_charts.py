"""What every page's charts plot equals the figures of the table or mart each claims to show, read here
straight from the serving snapshot (never through the page's own queries), off one AppTest session."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from scipy import stats
from streamlit.testing.v1 import AppTest

from dashboards import charts
from dashboards.charts import BEAD_PLATE, BIG_ROAD
from dashboards.charts import DERIVED_TITLES as DERIVED
from dashboards.pages import PAGES as PAGES_LISTED
from models.game.cards import parse_hand
from models.game.games import Game
from models.game.shoe import Composition
from models.metrics.roads import roads
from models.metrics.streaks import BY_RULE
from models.metrics.theory import outcome_rates
from models.odds.exact import exact_odds
from models.settings import Settings
from models.systems import lab
from models.systems.rules import Limits
from tests.dashboards.charts_data import assert_plots, describe, layer, layers
from tests.dashboards.test_pages import open_app, read, rows

APP = str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py")
PAGES = (
    "overview",
    "streaks",
    "commission",
    "ties",
    "tables",
    "decisions",
    "surveillance",
    "count_room",
    "shoe",
    "integrity",
)


class Drawn(dict):
    """Each page's layers (by page name, or page:pick after a pick), their charts' Vega-Lite specs, and the
    widgets' values that chose them."""

    picked: dict
    specs: dict


@pytest.fixture(scope="module")
def drawn(warehouse) -> Drawn:
    """One AppTest session walking every page with a chart, and the picks that draw the rest."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BANCO_DB", str(warehouse))
        return walk(warehouse)


def walk(db: Path) -> Drawn:
    """Every page with a chart, then the picks that draw more: a table's days, a player, a pattern follower."""
    found, picked = Drawn(), {}
    found.specs = {}
    at = AppTest.from_file(APP, default_timeout=120).run()

    def visit(name: str, page: str | None = None) -> AppTest:
        if page:
            at.switch_page(f"views/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        found[name] = layers(at)
        found.specs[name] = [json.loads(element.proto.spec) for element in at.get("vega_lite_chart")]
        return at

    for page in PAGES:
        visit(page, page)
        if page == "streaks":
            picked["streaks"] = [table.value for table in at.dataframe]
        if page == "shoe":
            picked["shoe"] = (at.selectbox(key="explorer_table").value, at.selectbox(key="explorer_shoe").value)
        if page == "surveillance":
            picked["surveillance"] = next(box.value for box in at.selectbox if box.key.startswith("surveillance_t"))
    at.switch_page("views/tables.py").run()
    at.selectbox(key="drill_table").set_value("T01").run()
    visit("tables:T01")
    busiest = "SELECT player_id FROM marts.player_sessions GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1"
    picked["player"] = rows(db, busiest)[0][0]
    at.switch_page("views/players.py").run()
    at.text_input(key="player_search").input(picked["player"]).run()
    visit("players")
    visit("odds", "odds")
    picked["odds"] = {key: at.selectbox(key=key).value for key in ("odds_game", "odds_table", "odds_shoe")} | {
        key: at.slider(key=key).value for key in ("odds_decks", "odds_after")
    }
    visit("systems", "systems")
    at.selectbox(key="systems_system").set_value("follow-winner").run()
    visit("systems:follow-winner")
    found.picked = picked
    return found


def test_every_page_with_a_chart_is_checked(drawn):
    """The SQL console and the Alerts page (tables of rules and deliveries) draw no chart; every other page
    is walked here, and draws at least one."""
    walked = {name.split(":")[0] for name, found in drawn.items() if found}
    assert walked == {Path(name).stem for name, _, _ in PAGES_LISTED} - {"sql", "alerts"}


def test_overview(drawn, warehouse):
    """Each outcome's share minus its exact expectation, with the exact 95 % interval from the coups counted
    (scipy's Clopper-Pearson), around a zero rule."""
    found = drawn["overview"]
    coups = read(warehouse, "SELECT game, decks, outcome, count(*) AS coups FROM core.rounds GROUP BY ALL")
    names = {"B": "Banker", "P": "Player", "T": "Tie"}
    counted = coups.group_by("outcome").agg(pl.col("coups").sum())
    total = int(coups["coups"].sum())
    rates = outcome_rates().select("game", "decks", B="p_banker", P="p_player", T="p_tie")
    by_shoe = coups.group_by("game", "decks").agg(pl.col("coups").sum()).with_columns(pl.col("decks").cast(pl.Int8))
    weighted = (
        by_shoe.join(rates, on=["game", "decks"])
        .select((pl.col(side) * pl.col("coups")).sum() / pl.col("coups").sum() for side in names)
        .row(0, named=True)
    )
    expected = []
    for outcome, n in counted.iter_rows():
        exact = stats.binomtest(n, total).proportion_ci(0.95, method="exact")
        p = weighted[outcome]
        expected.append((names[outcome], n / total - p, exact.low - p, exact.high - p))
    expected = pl.DataFrame(expected, schema=["outcome", "deviation", "low", "high"], orient="row")
    title = "Do Banker, Player and Tie come up as often as the odds say?"
    bars = layer(found, "bar", title, x="deviation")
    assert_plots(bars.data, expected)
    assert bars.encoding["x"]["axis"]["format"] == "+.2%"
    assert_plots(layer(found, "errorbar", title, x="low", x2="high").data, expected)
    assert_plots(layer(found, "rule", title, x="zero").data, pl.DataFrame({"zero": [0.0]}))
    assert not [each for each in found if each.encoding.get("yOffset")]  # no more paired bars
    held = read(
        warehouse,
        "SELECT gaming_day, sum(house_win) / sum(handle) AS Hold, sum(theo) / sum(handle) AS "
        "Theo FROM marts.table_day GROUP BY gaming_day",
    )
    assert_plots(
        layer(found, "line", "Is the hold tracking theo, day by day?").data,
        held.unpivot(index="gaming_day", variable_name="series", value_name="rate"),
    )
    daily = read(warehouse, "SELECT gaming_day, sum(coups) AS coups FROM marts.shoe_summary GROUP BY 1")
    assert daily["coups"].sum() == rows(warehouse, "SELECT count(*) FROM core.rounds")[0][0]
    assert_plots(layer(found, "bar", "How many coups were dealt each gaming day?").data, daily)


def test_streaks(drawn, warehouse):
    found = drawn["streaks"]
    tenures = read(
        warehouse,
        "SELECT game, decks, decided::BIGINT AS decided, ended_by = 'pass' AS passed FROM marts.banker_streaks",
    )
    rates = outcome_rates().select("game", "decks", "p_keep")
    held = (
        tenures.filter(pl.col("decided") >= 1, ~pl.col("game").is_in(BY_RULE))
        .with_columns(pl.col("decks").cast(rates.schema["decks"]))
        .join(rates, on=["game", "decks"])
    )
    per_length = []
    for length in range(1, 9):  # length 8 pools 8 or more: a tenure is at risk there once per decided coup from 8
        at_risk = (pl.col("decided") - 7).clip(0) if length == 8 else (pl.col("decided") >= length).cast(pl.Int64)
        passes = pl.col("passed") & ((pl.col("decided") >= 8) if length == 8 else (pl.col("decided") == length))
        per_length.append(
            held.group_by("game").agg(
                length=pl.lit(length, pl.Int64),
                passes=passes.sum().cast(pl.Float64),
                expected_passes=(at_risk * (1 - pl.col("p_keep"))).sum(),
            )
        )
    law = pl.concat(per_length).unpivot(index=["game", "length"], variable_name="series")
    shown = layer(found, "bar", y="value").data
    assert set(shown["game"]) == set(held["game"]) and not set(shown["game"]) & set(BY_RULE)
    assert_plots(shown, law)
    growth = read(
        warehouse,
        "SELECT least(decided, 10) AS decided, avg(bank_last / bank_first)::DOUBLE AS growth FROM "
        "marts.banker_streaks WHERE game = 'chemin_de_fer' AND bank_first > 0 GROUP BY 1",
    )
    assert_plots(layer(found, "line", y="growth").data, growth)


def test_streaks_leave_out_the_banks_that_pass_by_rule(drawn, warehouse):
    """banco and baccarat_banque tenures are in the mart, but neither in the fit nor among the longest."""
    ruled = ", ".join(f"'{game}'" for game in BY_RULE)
    assert rows(warehouse, f"SELECT count(DISTINCT game) FROM marts.banker_streaks WHERE game IN ({ruled})")[0][0] == 2
    assert rows(warehouse, f"SELECT count(*) FROM marts.tenure_fit WHERE game IN ({ruled})")[0][0] == 0
    shown = [table for table in drawn.picked["streaks"] if "game" in table.columns and "holder" in table.columns]
    assert len(shown) == 1 and not set(shown[0]["game"]) & set(BY_RULE)  # the longest tenures
    longest = rows(
        warehouse,
        f"SELECT decided FROM marts.banker_streaks WHERE game NOT IN ({ruled}) ORDER BY decided DESC LIMIT 20",
    )
    assert shown[0]["decided"].tolist() == [decided for (decided,) in longest]


def test_commission(drawn, warehouse):
    revenue = read(
        warehouse,
        "SELECT gaming_day, game, sum(commission + cagnotte) AS revenue FROM marts.commission GROUP BY ALL",
    )
    assert_plots(
        layer(drawn["commission"], "bar", "How much commission did each gaming day bring in, by game?").data, revenue
    )


def test_ties(drawn, warehouse):
    found = drawn["ties"]
    groups = read(
        warehouse,
        "SELECT table_id, gaming_day::VARCHAR AS gaming_day, coups, tie_rate, flagged FROM marts.tie_frequency",
    )
    assert_plots(layer(found, "circle", y="tie_rate").data, groups)
    (rate,) = rows(warehouse, "SELECT sum(coups * expected_rate) / sum(coups) FROM marts.tie_frequency")[0]
    assert_plots(layer(found, "rule", y="rate").data, pl.DataFrame({"rate": [rate]}))
    band = layer(found, "area", y="low").data
    n = band["coups"].to_numpy()
    assert band["coups"].min() <= groups["coups"].min()  # the funnel opens before the smallest group
    limits = pl.DataFrame(
        {"coups": n, "low": stats.binom.ppf(0.025, n, rate) / n, "high": stats.binom.isf(0.025, n, rate) / n}
    )
    assert_plots(band, limits)
    by_total = read(
        warehouse,
        "SELECT tie_total, sum(ties) AS ties, sum(expected_ties) AS expected_ties FROM marts.ties_by_total GROUP BY 1",
    )
    assert_plots(layer(found, "bar", y="ties").data, by_total.select("tie_total", "ties"))
    assert_plots(layer(found, "tick", y="expected_ties").data, by_total.select("tie_total", "expected_ties"))


#: A z of win against theo from summed wagers: (win - theo) over the square root of the summed variances.
Z = "(sum(house_win) - sum(theo)) / sqrt(sum(win_variance)) AS z"


def test_tables(drawn, warehouse):
    found = drawn["tables"]
    results = read(
        warehouse,
        f"SELECT table_id, handle, z FROM (SELECT table_id, {Z} FROM marts.table_day GROUP BY 1) "
        "JOIN (SELECT table_id, sum(amount) AS handle FROM core.bets GROUP BY 1) USING (table_id)",
    )
    assert_plots(layer(found, "circle", x="handle").data, results)
    bets = read(warehouse, f"SELECT bet, {Z} FROM marts.side_bets GROUP BY 1")
    assert_plots(layer(found, "bar", x="z").data, bets.drop_nulls("z"))
    paced = read(
        warehouse,
        "SELECT dealer_id, game, sum(coups_per_hour * minutes) / sum(house_median * minutes) AS pace_vs_median "
        "FROM marts.dealer_pace WHERE coups_per_hour IS NOT NULL AND dealer_id IS NOT NULL GROUP BY ALL",
    )
    title = "Which dealers deal slower or faster than the house?"
    dots = layer(found, "circle", title, x="vs_median")
    assert_plots(dots.data, paced)
    low, high = dots.encoding["x"]["scale"]["domain"]  # the house median at the centre, not a 69-71 strip
    assert low == -high and high >= 0.05 and high >= (paced["pace_vs_median"] - 1).abs().max()
    assert dots.encoding["y"]["sort"] == {"field": "pace_vs_median", "op": "mean", "order": "ascending"}
    assert_plots(layer(found, "rule", title, x="zero").data, pl.DataFrame({"zero": [0.0]}))
    spec = next(chart for chart in drawn.specs["tables"] if chart.get("title") == title)
    (calculated,) = [t for each in spec["layer"] for t in each.get("transform", [])]
    assert calculated == {"calculate": "datum.pace_vs_median - 1", "as": "vs_median"}  # 1.02 is +2 %
    held = read(
        warehouse,
        "SELECT gaming_day, sum(house_win) / sum(handle) AS Hold, sum(theo) / sum(handle) AS "
        "Theo FROM marts.table_day WHERE table_id = 'T01' GROUP BY 1",
    )
    shown = layer(drawn["tables:T01"], "line", "T01: is the hold tracking theo, day by day?").data
    assert_plots(shown, held.unpivot(index="gaming_day", variable_name="series", value_name="rate"))


def test_players(drawn, warehouse):
    found, player = drawn["players"], drawn.picked["player"]
    sessions = read(
        warehouse,
        "SELECT table_id, game, started_at, ended_at, house_win::DOUBLE AS house_win, theo::DOUBLE AS theo "
        f"FROM marts.player_sessions WHERE player_id = '{player}' ORDER BY started_at",
    )
    utc = [pl.col("started_at", "ended_at").dt.convert_time_zone("UTC")]
    shown = layer(found, "bar", "When, and at which tables, did they play?").data.with_columns(utc)
    assert_plots(shown, sessions.select("table_id", "game", "started_at", "ended_at").with_columns(utc))
    start = sessions.head(1).select(ended_at="started_at", house_win=pl.lit(0.0), theo=pl.lit(0.0))
    running = pl.concat([start, sessions.select("ended_at", pl.col("house_win", "theo").cum_sum())]).rename(
        {"house_win": "House win", "theo": "Theo"}
    )
    title = "Has the house won more or less from them than theo, session after session?"
    lines = layer(found, "line", title).data.with_columns(pl.col("ended_at").dt.convert_time_zone("UTC"))
    expected = running.with_columns(pl.col("ended_at").dt.convert_time_zone("UTC")).unpivot(
        index="ended_at", variable_name="series", value_name="amount"
    )
    assert_plots(lines, expected, rel=1e-6)


def test_surveillance(drawn, warehouse):
    found = drawn["surveillance"]
    flags = read(warehouse, "SELECT gaming_day, rule, count(*) AS alerts FROM marts.surveillance_flags GROUP BY ALL")
    assert_plots(layer(found, "bar", "How many player-days did each rule flag, day by day?").data, flags)
    table = drawn.picked["surveillance"]
    lines = layer(found, "line", y="player_edge")
    shoe = lines.title.removeprefix("When did each bet favour the player? Shoe ")
    drawn_bets = sorted(set(lines.data["bet"]))
    edges = read(
        warehouse,
        f"SELECT round_no, {', '.join(f'-edge_{bet} AS {bet}' for bet in drawn_bets)} FROM marts.coup_edges "
        f"WHERE table_id = '{table}' AND shoe_id = '{shoe}'",
    ).unpivot(index="round_no", variable_name="bet", value_name="player_edge")
    assert_plots(lines.data, edges.drop_nulls("player_edge"))
    wagers = read(
        warehouse,
        "SELECT round_no, player_id, bet, amount, player_edge FROM marts.wager_edges "
        f"WHERE table_id = '{table}' AND shoe_id = '{shoe}' AND player_edge IS NOT NULL",
    )
    assert_plots(layer(found, "circle", size="amount").data, wagers)


def test_count_room(drawn, warehouse):
    """Against marts.count_room itself, whatever other columns it gains: the count's win and the wagers'
    theo over the drop, in percent, pooled per gaming day."""
    days = read(
        warehouse,
        "SELECT gaming_day, 100 * sum(win) / sum(drop) AS hold_pct, 100 * sum(theo) / sum(drop) AS theo_hold_pct "
        "FROM marts.count_room GROUP BY 1",
    )
    shown = layer(drawn["count_room"], "line", "Is the count's hold tracking theo, day by day?").data
    assert_plots(shown, days.unpivot(index="gaming_day", variable_name="series", value_name="percent").drop_nulls())


def test_shoe_roads(drawn, warehouse):
    found = drawn["shoe"]
    table, shoe = drawn.picked["shoe"]
    outcomes = [o for (o,) in rows(
        warehouse, "SELECT outcome FROM core.rounds WHERE table_id = ? AND shoe_id = ? ORDER BY round_no", [table, shoe]
    )]  # fmt: skip
    drawn_roads = roads(outcomes)
    schema = {"column": pl.Int64, "row": pl.Int64, "mark": pl.String, "ties": pl.Int64}
    for title, cells in ((BEAD_PLATE, drawn_roads.bead_plate), (BIG_ROAD, drawn_roads.big_road)):
        dots = layer(found, "circle", title)
        assert_plots(dots.data, pl.DataFrame(cells, schema=schema, orient="row"))
        assert dots.encoding["color"]["scale"] == {
            "domain": ["B", "P", "T"],
            "range": ["#c0392b", "#2f6db5", "#2e8b57"],
        }
        assert "Banker" in dots.encoding["color"]["legend"]["labelExpr"]  # the colours' key, by name
    assert len(drawn_roads.bead_plate) == len(outcomes)
    for name, cells in (
        ("big_eye_boy", drawn_roads.big_eye_boy),
        ("small_road", drawn_roads.small_road),
        ("cockroach_pig", drawn_roads.cockroach_pig),
    ):
        marks = layer(found, "point", DERIVED[name])
        assert_plots(marks.data, pl.DataFrame(cells, schema=schema, orient="row"))
        assert marks.encoding["color"]["scale"] == {"domain": ["R", "B"], "range": ["#c0392b", "#2f6db5"]}
        assert "repeats" in marks.encoding["color"]["legend"]["labelExpr"]
    shapes = {name: layer(found, "point", title).style for name, title in DERIVED.items()}
    assert shapes["big_eye_boy"]["shape"] == "circle" and shapes["big_eye_boy"]["filled"] is False  # hollow
    assert shapes["small_road"]["shape"] == "circle" and shapes["small_road"]["filled"] is True  # dots
    slash = shapes["cockroach_pig"]["shape"]  # an SVG path from bottom left to top right
    assert slash.startswith("M -") and " L " in slash and shapes["cockroach_pig"]["filled"] is False


def test_decisions(drawn, warehouse):
    """The 20 named players whose choices gave up the most in money (ties by id), each one's cost as punter and
    as banker, summed from marts.decisions."""
    per = read(
        warehouse,
        "SELECT player_id, decider, coalesce(sum(cost_money), 0)::DOUBLE AS expected_cost FROM marts.decisions "
        "WHERE player_id IS NOT NULL GROUP BY ALL",
    )
    totals = (
        per.group_by("player_id")
        .agg(pl.col("expected_cost").sum())
        .sort(["expected_cost", "player_id"], descending=[True, False])
    )
    top = per.filter(pl.col("player_id").is_in(totals["player_id"].head(20).to_list()))
    bars = layer(drawn["decisions"], "bar", "Who gave up the most by their choices?", x="expected_cost")
    assert_plots(bars.data, top)
    assert bars.encoding["x"]["title"] == f"Expected cost of their choices ({Settings.from_env().currency})"
    assert bars.encoding["y"]["sort"] == {"field": "expected_cost", "op": "sum", "order": "descending"}
    cells = read(
        warehouse,
        "SELECT game, decider, total, facing, count(*) AS decisions, count(*) FILTER (cost > 0) AS deviations, "
        "sum(cost_money)::DOUBLE AS expected_cost FROM marts.decisions GROUP BY ALL",
    )
    ranked = cells.filter(pl.col("expected_cost") > 0).sort("expected_cost", descending=True)["expected_cost"]
    assert ranked.len() > 15 and ranked[14] > ranked[15]  # the 15 costliest, no tie at the cut
    where = layer(drawn["decisions"], "bar", "Where did the choices give up the most?", x="expected_cost")
    assert_plots(where.data, cells.filter(pl.col("expected_cost") >= ranked[14]))


def test_integrity(drawn, warehouse):
    counted = pl.concat(
        read(warehouse, f"SELECT '{kind}' AS kind, reason, count(*) AS rows FROM quarantine.{table} GROUP BY ALL")
        for kind, table in (("rounds", "rounds"), ("bets", "bets"), ("table events", "table_events"))
    )
    shown = layer(drawn["integrity"], "bar", y="rows").data.group_by("kind", "reason").agg(pl.col("rows").sum())
    assert_plots(shown, counted)


def test_each_kind_of_quarantine_has_its_own_axis(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "integrity")
    (chart,) = (json.loads(element.proto.spec) for element in at.get("vega_lite_chart"))
    assert chart["resolve"]["scale"]["y"] == "independent"  # a few rounds beside many bets still show


def test_odds(drawn, warehouse):
    found, picked = drawn["odds"], drawn.picked["odds"]
    full, mid = (each.data for each in found if each.title == "On which total does a tie fall?")
    game = Game(picked["odds_game"])
    totals = pl.DataFrame({"total": range(10)})
    exact = exact_odds(Composition.full(picked["odds_decks"]), game).p_tie_by_total
    assert_plots(full, totals.with_columns(probability=pl.Series(exact)))
    hands = rows(
        warehouse,
        "SELECT player_cards, banker_cards, player2_cards, decks, game FROM core.rounds "
        "WHERE table_id = ? AND shoe_id = ? ORDER BY round_no LIMIT ?",
        [picked["odds_table"], picked["odds_shoe"], picked["odds_after"]],
    )
    seen = [card for row in hands for text in row[:3] for card in parse_hand(text)]
    left = exact_odds(Composition.full(hands[0][3]).remove(seen), Game(hands[0][4])).p_tie_by_total
    assert_plots(mid, totals.with_columns(probability=pl.Series(left)))


def warehouse_shoes(db: Path, game: str = "punto_banco", decks: int = 8) -> list[list[str]]:
    return [list(outcomes) for (outcomes,) in rows(
        db, "SELECT list(outcome ORDER BY round_no) FROM core.rounds WHERE game = ? AND decks = ? "
            "GROUP BY table_id, shoe_id ORDER BY table_id, shoe_id", [game, decks],
    )]  # fmt: skip


def binned(bins: pl.DataFrame, values: list[float], weights: list[float]) -> pl.DataFrame:
    """Each bin's (from, to) sum of `weights` of the `values` inside it, the last bin closed on the right."""
    last = bins["to"].max()
    sums = [
        sum(w for v, w in zip(values, weights, strict=True) if low <= v < high or (high == last and v == high))
        for low, high in bins.select("from", "to").iter_rows()
    ]
    return bins.select("from").with_columns(probability=pl.Series(sums, dtype=pl.Float64))


def test_systems_back_test(drawn, warehouse):
    """The dots are the back-test's sessions counted per bin over all sessions (not 1/240 each), the bars
    the exact probabilities summed per bin."""
    found = drawn["systems"]
    question = lab.Question("flat", "banker", Limits(max_bet=Settings.from_env().max_bet), Game.PUNTO_BANCO, 8)
    results = [float(r) for r in lab.run_backtest(question, warehouse_shoes(warehouse))["result"].to_list()]
    dots = layer(found, "point", y="probability").data
    expected = binned(dots, results, [1 / len(results)] * len(results))
    assert_plots(dots, expected)
    assert dots["probability"].sum() == pytest.approx(1.0)
    assert dots["probability"].n_unique() > 1  # sessions bunch where chance puts them
    distribution = lab.exact(question).distribution
    bars = layer(found, "bar", y="probability").data
    values = [float(value) for value in distribution]
    assert_plots(bars, binned(bars, values, [float(p) for p in distribution.values()]))


def test_systems_calibration(drawn, warehouse):
    """A pattern follower's calls on the warehouse's shoes: each pattern and side's win rate, its interval
    and the exact rate, as models/systems/calibration.py computes them on the shoes read here."""
    found = drawn["systems:follow-winner"]
    called = lab.calibrate(warehouse_shoes(warehouse), Game.PUNTO_BANCO, 8)
    columns = ["pattern", "side", "calls", "win_rate", "ci_low", "ci_high", "expected_rate"]
    assert_plots(layer(found, "point", x="win_rate").data, called.select(columns))
    assert_plots(layer(found, "rule", x="ci_low").data, called.select(columns))


#: The roads are grids of cells: no axis to title (a column is a column of the scoreboard, not a unit).
GRIDS = {charts.BEAD_PLATE, charts.BIG_ROAD, *charts.DERIVED_TITLES.values()}


def test_every_chart_asks_its_question_and_titles_its_axes(drawn):
    """Each chart every page draws has a title, and its x and y axes a title each (a layered axis takes its
    title from any layer that gives one); the roads' grids alone draw no axes."""
    untitled, bare = [], []
    for page, found in drawn.items():
        for chart in {each.chart for each in found}:
            drawn_layers = [each for each in found if each.chart == chart]
            if not all(each.title for each in drawn_layers):
                untitled.append((page, chart, describe(drawn_layers)))
                continue
            for channel in ("x", "y"):
                encoded = [each.encoding[channel] for each in drawn_layers if "field" in each.encoding.get(channel, {})]
                titled = any(each.get("title") for each in encoded)
                gridded = all(each.get("axis", {}) is None for each in encoded) and drawn_layers[0].title in GRIDS
                if encoded and not (titled or gridded):
                    bare.append((page, drawn_layers[0].title, channel))
    assert not untitled and not bare, (untitled, bare)


def test_money_axes_name_the_currency(warehouse, monkeypatch):
    """A money axis says which money: BANCO_CURRENCY as the dashboard reads it."""
    monkeypatch.setenv("BANCO_CURRENCY", "CHF")
    at = open_app(warehouse, monkeypatch, "tables")
    found = layers(at)
    handle = layer(found, "circle", x="handle")
    assert handle.encoding["x"]["title"] == "Handle (CHF)"
    at = open_app(warehouse, monkeypatch, "commission")
    revenue = layer(layers(at), "bar", y="revenue")
    assert revenue.encoding["y"]["title"] == "Commission and cagnotte (CHF)"
