"""Every page under AppTest on a small real warehouse: no exception, and the numbers it shows equal the
same figures queried directly from the serving snapshot; then the empty and broken states."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from decimal import Decimal
from pathlib import Path

import duckdb
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from dashboards import filters, fmt
from models import display
from models.game.cards import parse_hand
from models.game.paytable import DEFAULT_PAYTABLE
from models.game.shoe import Composition
from models.metrics.money import table_day
from models.metrics.roads import ask
from models.metrics.ties import ALPHA
from models.odds.exact import exact_odds
from models.systems.calibration import calibration, pooled
from models.warehouse.ingest import ingest
from models.warehouse.settlement import house_expectation

APP = str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py")


def open_app(db: Path, monkeypatch, page: str | None = None) -> AppTest:
    monkeypatch.setenv("BANCO_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=120).run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    values = [m.value for m in at.metric if m.label == label]
    assert values, f"no metric {label!r} among {[m.label for m in at.metric]}"
    return values[0]


def table_with(at: AppTest, *columns: str):
    """The one table shown whose columns begin with `columns[0]` and include the rest, as a pandas frame."""
    (found,) = [
        t.value for t in at.dataframe if t.value.columns[0] == columns[0] and set(columns) <= set(t.value.columns)
    ]
    return found


def scalar(db: Path, sql: str):
    con = duckdb.connect(str(db.with_name(f"{db.stem}.serving{db.suffix}")), read_only=True)
    try:
        return con.execute(sql).fetchall()[0][0]
    finally:
        con.close()


@pytest.mark.slow
def test_overview_shows_the_warehouse_totals(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch)
    assert at.title[0].value == "Overview"
    assert metric(at, "Coups") == fmt.count(scalar(warehouse, "SELECT count(*) FROM core.rounds"))
    assert metric(at, "Tables") == fmt.count(scalar(warehouse, "SELECT count(DISTINCT table_id) FROM core.rounds"))
    assert metric(at, "Handle") == fmt.money(scalar(warehouse, "SELECT sum(amount) FROM core.bets"))
    assert metric(at, "House win") == fmt.money(scalar(warehouse, "SELECT sum(house_net) FROM core.bets"))
    assert metric(at, "Commission revenue") == fmt.money(scalar(warehouse, "SELECT sum(commission) FROM core.bets"))
    shares = at.dataframe[0].value.set_index("outcome")["coups"]
    assert shares["Tie"] == scalar(warehouse, "SELECT count(*) FROM core.rounds WHERE outcome = 'T'")
    # the days' quarantined coups said beside the money, as the quarantine holds them
    quarantined = scalar(warehouse, "SELECT count(*) FROM quarantine.rounds WHERE reason <> 'conflicting_duplicate'")
    assert quarantined > 0
    assert any(c.value.startswith(f"{fmt.count(quarantined)} coups of these days were quarantined") for c in at.caption)


def test_a_game_filter_narrows_every_figure(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch)
    at.multiselect(key="games").set_value(["super6"]).run()
    assert not at.exception
    coups = scalar(warehouse, "SELECT count(*) FROM core.rounds WHERE game = 'super6'")
    assert metric(at, "Coups") == fmt.count(coups)
    handle = scalar(warehouse, "SELECT sum(amount) FROM core.bets WHERE game = 'super6'")
    assert metric(at, "Handle") == fmt.money(handle)


def test_streaks_count_the_tenures(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "streaks")
    assert metric(at, "Tenures") == fmt.count(scalar(warehouse, "SELECT count(*) FROM marts.banker_streaks"))
    passed = scalar(warehouse, "SELECT count(*) FROM marts.banker_streaks WHERE ended_by = 'pass'")
    assert metric(at, "Passed") == fmt.count(passed)
    hazard = at.dataframe[0].value
    (longest,) = [table for table in at.dataframe if "gaming_day" in table.value.columns]
    shown = json.loads(longest.proto.columns)  # a gaming day shows as a date, not as a midnight
    assert shown["gaming_day"]["type_config"] == {"type": "date", "format": "YYYY-MM-DD"}
    counted = scalar(
        warehouse,
        "SELECT count(*) FROM marts.banker_streaks WHERE ended_by = 'pass' AND decided >= 1 "
        "AND game NOT IN ('banco', 'baccarat_banque')",
    )
    assert hazard["passes"].sum() == counted


def test_commission_and_its_what_if(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "commission")
    taken = scalar(warehouse, "SELECT sum(commission) FROM core.bets")
    assert metric(at, "Commission revenue") == fmt.money(taken)
    at.number_input(key="what_if_rate").set_value(0.04).run()
    staked = scalar(warehouse, "SELECT sum(amount) FROM core.bets WHERE bet = 'banker' AND commission > 0")
    assert metric(at, "Commission at 4.00 %, exact") == fmt.money(staked * Decimal("0.04"))
    assert metric(at, "As taken (logged, exact)") == fmt.money(taken)
    at.number_input(key="what_if_rate").set_value(0.05).run()
    at.radio(key="what_if_policy").set_value("down").run()
    at.selectbox(key="what_if_unit").set_value("1").run()
    assert not at.exception
    floored = scalar(
        warehouse, "SELECT sum(floor(amount * 0.05)) FROM core.bets WHERE bet = 'banker' AND commission > 0"
    )
    assert metric(at, "Commission at 5.00 %, down to 1") == fmt.money(Decimal(floored))


def test_ties_against_the_exact_rate(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "ties")
    assert metric(at, "Ties") == fmt.count(scalar(warehouse, "SELECT count(*) FROM core.rounds WHERE outcome = 'T'"))
    groups = scalar(warehouse, "SELECT count(*) FROM marts.tie_frequency")
    flagged = scalar(warehouse, "SELECT count(*) FROM marts.tie_frequency WHERE flagged")
    assert metric(at, "Flagged groups") == f"{flagged} of {groups}"
    at.radio(key="ties_groups").set_value("Shoe").run()
    assert not at.exception
    shoes = scalar(warehouse, "SELECT count(*) FROM marts.tie_frequency_by_shoe")
    assert metric(at, "Flagged groups").endswith(f"of {shoes}")


def test_a_flagged_tie_group_shows_the_q_value_that_flags_it(warehouse, tmp_path, monkeypatch):
    for mart in ("tie_frequency", "tie_frequency_by_shoe", "tie_frequency_by_dealer"):  # as the build stored them
        decided = f"SELECT count(*) FROM marts.{mart} WHERE flagged IS DISTINCT FROM q_value < {ALPHA}"
        assert scalar(warehouse, decided) == 0
    db = tmp_path / "banco.duckdb"
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), db.with_name("banco.serving.duckdb"))
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")))  # one group far from the exact rate
    con.execute(
        "UPDATE marts.tie_frequency SET p_value = 0.00002, q_value = 0.0004, flagged = true WHERE (table_id, "
        "gaming_day) = (SELECT (table_id, gaming_day) FROM marts.tie_frequency ORDER BY ALL LIMIT 1)"
    )
    con.close()
    at = open_app(db, monkeypatch, "ties")
    flagged = table_with(at, "table_id", "p_value", "q_value", "flagged")
    assert [display.p_value(0.00002), display.p_value(0.0004)] in flagged[["p_value", "q_value"]].values.tolist()
    assert display.p_value(0.00002) == "< 0.0001" and display.p_value(0.0004) == "0.0004"
    assert any("q-value (its p-value after" in c.value and f"below {ALPHA:g}" in c.value for c in at.caption)


def test_tables_and_a_dealer_drill_down(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "tables")
    tables = at.dataframe[0].value.set_index("table_id")
    assert float(tables.loc["T01", "handle"]) == float(
        scalar(warehouse, "SELECT sum(amount) FROM core.bets WHERE table_id = 'T01'")
    )
    assert tables.loc["T01", "coups"] == scalar(warehouse, "SELECT count(*) FROM core.rounds WHERE table_id = 'T01'")
    dealer = scalar(warehouse, "SELECT min(dealer_id) FROM core.rounds")
    at.selectbox(key="drill_dealer").set_value(dealer).run()
    assert not at.exception
    dealt = scalar(warehouse, f"SELECT count(*) FROM core.rounds WHERE dealer_id = '{dealer}'")
    assert metric(at, "Coups dealt") == fmt.count(dealt)
    handle = scalar(
        warehouse,
        "SELECT sum(b.amount) FROM core.bets b JOIN core.rounds r USING (table_id, shoe_id, round_no) "
        f"WHERE r.dealer_id = '{dealer}'",
    )
    assert metric(at, "Handle") == fmt.money(handle)
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    placed = con.sql(
        "SELECT r.dealer_id, b.game, r.decks, b.bet, b.amount, b.house_net, b.theo FROM core.bets b "
        f"JOIN core.rounds r USING (table_id, shoe_id, round_no) WHERE r.dealer_id = '{dealer}'"
    ).pl()
    con.close()
    variance = house_expectation(DEFAULT_PAYTABLE).select("game", "decks", "bet", "house_variance")
    expected = table_day(placed.lazy(), variance.with_columns(pl.col("decks").cast(pl.Int8)), by=("dealer_id",))
    shown = table_with(at, "game", "wagers", "z").sort_values("game")
    z = expected.sort("game")["win_vs_theo_z"].fill_null(float("nan")).to_list()  # null where nothing varies
    assert shown["z"].tolist() == pytest.approx(z, nan_ok=True)
    at.selectbox(key="drill_dealer").set_value(None)
    at.selectbox(key="drill_table").set_value("T01").run()
    assert not at.exception
    days = table_with(at, "gaming_day", "wagers")
    assert len(days) == scalar(warehouse, "SELECT count(*) FROM marts.table_day WHERE table_id = 'T01'")
    assert float(days["handle"].sum()) == float(tables.loc["T01", "handle"])
    assert days["quarantined_coups"].sum() == scalar(
        warehouse, "SELECT count(*) FROM quarantine.rounds WHERE table_id = 'T01' AND reason <> 'conflicting_duplicate'"
    )


def test_side_bets_against_their_theoretical_hold(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "tables")
    side = table_with(at, "bet", "win_over_handle", "theo_over_handle").set_index("bet")
    placed = scalar(warehouse, "SELECT count(DISTINCT bet) FROM core.bets WHERE bet NOT IN ('banker', 'player')")
    assert len(side) == placed and "Tie" in side.index  # each bet by its name
    sums = "SELECT bet, sum(amount), sum(house_net), sum(theo) FROM core.bets WHERE bet NOT IN ('banker', 'player')"
    for bet, handle, win, theo in rows(warehouse, f"{sums} GROUP BY bet"):
        shown = side.loc[display.name(bet)]
        assert float(shown["handle"]) == pytest.approx(float(handle)), bet
        assert shown["win_over_handle"] == pytest.approx(100 * float(win / handle)), bet  # shown in percent
        assert shown["theo_over_handle"] == pytest.approx(100 * float(theo / handle)), bet


def test_dealer_pace_against_the_house_median(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "tables")
    pace = table_with(at, "dealer_id", "pace_vs_median").set_index(["dealer_id", "game"])
    for dealer, game, coups, per_hour in rows(warehouse, PACE_FROM_COUPS):
        assert pace.loc[(dealer, display.name(game)), "coups"] == coups
        assert pace.loc[(dealer, display.name(game)), "coups_per_hour"] == pytest.approx(per_hour)
    assert (pace["pace_vs_median"] > 0).all() and pace["quarantined"].sum() >= pace["tableau_violations"].sum()
    at.multiselect(key="dealers").set_value([dealer]).run()  # a dealer filter keeps that dealer's own rows
    assert not at.exception
    assert table_with(at, "dealer_id", "pace_vs_median")["dealer_id"].unique().tolist() == [dealer]


#: Each dealer's pace straight from the coups: a gap between consecutive coups of one shoe counts when
#: one dealer dealt both and it is no break (10 minutes, BANCO_PACE_BREAK_MINUTES' default).
PACE_FROM_COUPS = """
WITH gaps AS (
    SELECT dealer_id, game, epoch(started_at) - epoch(lag(started_at) OVER shoe) AS seconds,
        dealer_id = lag(dealer_id) OVER shoe AS same
    FROM core.rounds WINDOW shoe AS (PARTITION BY table_id, shoe_id ORDER BY round_no)
)
SELECT dealer_id, game, count(*) AS coups,
    count(*) FILTER (WHERE same AND seconds BETWEEN 0 AND 600)
        / (sum(seconds) FILTER (WHERE same AND seconds BETWEEN 0 AND 600) / 3600) AS per_hour
FROM gaps WHERE dealer_id IS NOT NULL GROUP BY ALL
"""


def read(db: Path, sql: str, params: list | None = None) -> pl.DataFrame:
    """A query's rows from the serving snapshot, opened read-only."""
    con = duckdb.connect(str(db.with_name(f"{db.stem}.serving{db.suffix}")), read_only=True)
    try:
        return con.sql(sql, params=params).pl()
    finally:
        con.close()


def rows(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    return read(db, sql, params).rows()


def test_shoe_explorer_shows_the_chosen_shoe(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "shoe")
    table, shoe = at.selectbox(key="explorer_table").value, at.selectbox(key="explorer_shoe").value
    coups = scalar(warehouse, f"SELECT count(*) FROM core.rounds WHERE table_id = '{table}' AND shoe_id = '{shoe}'")
    assert metric(at, "Coups") == fmt.count(coups)
    assert len(at.dataframe[0].value) == coups
    assert len(at.get("vega_lite_chart")) == 5  # the five roads


def test_shoe_explorer_asks_each_derived_road_and_says_how_asking_fared(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "shoe")
    table, shoe = at.selectbox(key="explorer_table").value, at.selectbox(key="explorer_shoe").value
    outcomes = [o for (o,) in rows(warehouse, f"SELECT outcome FROM core.rounds WHERE table_id = '{table}' "
                                              f"AND shoe_id = '{shoe}' ORDER BY round_no")]  # fmt: skip
    marks = {"R": ":red[●] red", "B": ":blue[●] blue"}
    asked = [m.value for m in at.markdown if m.value.startswith("**Ask**")]
    assert asked == [
        f"**Ask** · Banker next: {marks[cells['B']]} · Player next: {marks[cells['P']]}"
        for cells in ask(outcomes).values()
    ]  # a simulated shoe is long enough for every derived road
    shoes = rows(warehouse, "SELECT list(outcome ORDER BY round_no), any_value(game), max(decks) FROM core.rounds "
                            "GROUP BY table_id, shoe_id")  # fmt: skip
    frame = pl.DataFrame(
        shoes, schema={"outcomes": pl.List(pl.String), "game": pl.String, "decks": pl.Int8}, orient="row"
    )
    said = [c.value for c in at.caption if "ask cell names won" in c.value]
    for (road, name), words in zip((("big_eye_boy", "big eye boy"), ("small_road", "small road"),
                                    ("cockroach_pig", "cockroach pig")), said, strict=True):  # fmt: skip
        row = pooled(calibration(frame)).filter(pl.col("road") == road).row(0, named=True)
        assert words.startswith(
            f"Over the {fmt.count(len(shoes))} shoes in this warehouse, betting the side the {name}'s"
        )
        assert f"won {fmt.percent(row['win_rate'], 'rate')} of {fmt.count(row['calls'])} decided coups" in words
        assert f"gives {fmt.percent(row['expected_rate'], 'rate')} for that mix" in words
        assert words.endswith("they do not predict the next coup.")


def test_integrity_counts_the_quarantine(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "integrity")
    rejected = scalar(
        warehouse,
        "SELECT (SELECT count(*) FROM quarantine.rounds) + (SELECT count(*) FROM quarantine.bets) "
        "+ (SELECT count(*) FROM quarantine.table_events)",
    )
    assert rejected > 0
    assert metric(at, "Rows quarantined (filtered)") == fmt.count(rejected)
    assert metric(at, "Files ingested") == fmt.count(scalar(warehouse, "SELECT count(*) FROM meta.ingest_log"))


def test_odds_lab_full_and_mid_shoe(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "odds")
    assert metric(at, "Banker wins") == fmt.percent(exact_odds(Composition.full(8)).p_banker, "rate")
    at.slider(key="odds_decks").set_value(6).run()
    assert metric(at, "Tie") == fmt.percent(exact_odds(Composition.full(6)).p_tie, "rate")
    table, shoe = at.selectbox(key="odds_table").value, at.selectbox(key="odds_shoe").value
    at.slider(key="odds_after").set_value(10).run()
    assert not at.exception
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    hands = con.execute(
        "SELECT player_cards, banker_cards, player2_cards, decks, game FROM core.rounds "
        "WHERE table_id = ? AND shoe_id = ? ORDER BY round_no LIMIT 10",
        [table, shoe],
    ).fetchall()
    con.close()
    seen = [card for row in hands for text in row[:3] for card in parse_hand(text)]
    left = Composition.full(hands[0][3]).remove(seen)
    from models.game.games import Game

    expected = exact_odds(left, Game(hands[0][4])).p_banker
    assert [m.value for m in at.metric if m.label == "Banker wins"][1] == fmt.percent(expected, "rate")


def test_sql_console_runs_read_only_queries(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "sql")
    assert "filters do not apply here" in at.caption[0].value  # the sidebar stays, for the other pages
    tables = scalar(warehouse, "SELECT count(DISTINCT table_id) FROM core.rounds")
    assert len(at.dataframe[0].value) == tables  # the first example: one row per table
    assert at.get("download_button")
    example = at.selectbox(key="sql_example").value
    at.text_area(key=f"sql_text_{example}").set_value("DELETE FROM core.rounds").run()
    assert not at.exception and "read-only" in at.error[0].value
    assert scalar(warehouse, "SELECT count(*) FROM core.rounds") > 0
    at.text_area(key=f"sql_text_{example}").set_value("SELECT * FROM range(300000)").run()
    assert not at.exception and "200,000 rows" in at.warning[0].value  # fetched at most
    # types Polars cannot take (an interval) or CSV cannot hold (a list) are shown as text
    at.text_area(key=f"sql_text_{example}").set_value(
        "SELECT max(finished_at) - min(started_at) AS took, [1, 2] AS pair, 1 AS n, 2 AS n FROM meta.ingest_log"
    ).run()
    assert not at.exception and not at.error
    (row,) = at.dataframe[0].value.to_dict("records")
    assert row["pair"] == "[1,2]" and ":" in row["took"] and (row["n"], row["n_1"]) == (1, 2)


def test_without_bets_the_money_pages_say_they_need_bet_logs(rounds_only, monkeypatch):
    at = open_app(rounds_only, monkeypatch)
    assert metric(at, "Coups") == fmt.count(scalar(rounds_only, "SELECT count(*) FROM core.rounds"))
    assert metric(at, "Handle") == metric(at, "Commission revenue") == "—"  # unknown, not zero: an em dash
    assert "No bets in these days" in at.info[0].value
    for page in ("commission", "tables"):
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception and "No bets are logged" in at.info[0].value, page
    # the rounds alone answer the dealers' part of Tables and dealers, and the other pages
    assert "commission" not in at.dataframe[0].value.columns
    dealt = rows(rounds_only, "SELECT dealer_id, count(*) FROM core.rounds WHERE dealer_id IS NOT NULL GROUP BY 1")
    assert dict(zip(at.dataframe[0].value["dealer_id"], at.dataframe[0].value["coups"], strict=True)) == dict(dealt)
    paced = table_with(at, "dealer_id", "pace_vs_median")  # pace and errors come from the rounds too
    assert paced.groupby("dealer_id")["coups"].sum().to_dict() == dict(dealt)
    at.switch_page("views/ties.py").run()
    assert not at.exception and not at.info and metric(at, "Ties")


def test_no_warehouse_yet_says_what_to_run(tmp_path, monkeypatch):
    at = open_app(tmp_path / "banco.duckdb", monkeypatch)
    assert "No warehouse" in at.warning[0].value and at.code[0].value == "banco up"
    at.switch_page("views/odds.py").run()  # the odds of a full shoe need no warehouse
    assert not at.exception and metric(at, "Banker wins")


def test_filters_that_match_nothing_say_so(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch)
    at.multiselect(key="tables").set_value(["T01"]).run()  # T01 deals punto_banco (games in turn)
    at.multiselect(key="games").set_value(["super6"]).run()
    assert not at.exception and "Nothing matches" in at.info[0].value


def test_a_warehouse_without_marts_asks_for_a_build(warehouse, tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    ingest(db, [warehouse.parent / "landing"])
    at = open_app(db, monkeypatch)
    assert "no marts" in at.warning[0].value and at.code[0].value == "banco build"


def test_an_unreadable_snapshot_is_a_message_not_a_traceback(warehouse, tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), db.with_name("banco.serving.duckdb"))
    with db.with_name("banco.serving.duckdb").open("r+b") as snapshot:  # as if caught half-replaced
        snapshot.write(b"\0" * 8192)
    at = open_app(db, monkeypatch)
    assert "cannot be opened" in at.warning[0].value


def test_a_mart_built_before_its_newest_column_asks_for_a_build(warehouse, tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), db.with_name("banco.serving.duckdb"))
    older = duckdb.connect(str(db.with_name("banco.serving.duckdb")))  # as an earlier release stored it
    older.execute("ALTER TABLE marts.table_day DROP COLUMN win_over_handle")
    older.close()
    at = open_app(db, monkeypatch, "tables")
    assert "built by an earlier release" in at.warning[0].value and at.code[0].value == "banco build"


@pytest.mark.parametrize(
    "page",
    [
        "streaks",
        "commission",
        "ties",
        "tables",
        "players",
        "decisions",
        "surveillance",
        "count_room",
        "shoe",
        "integrity",
        "alerts",
        "sql",
    ],
)
def test_every_page_without_a_warehouse(tmp_path, monkeypatch, page):
    at = open_app(tmp_path / "banco.duckdb", monkeypatch, page)
    assert at.warning and at.code[0].value == "banco up"


def test_round_filters_follow_the_configured_gaming_day(monkeypatch):
    monkeypatch.setenv("BANCO_TIMEZONE", "Europe/Paris")
    monkeypatch.setenv("BANCO_DAY_START_HOUR", "8")
    since, until = filters.Filters(dt.date(2026, 7, 1), dt.date(2026, 7, 2)).instants()
    assert (since, until) == (  # 08:00 in Paris is 06:00 UTC in summer
        dt.datetime(2026, 7, 1, 6, tzinfo=dt.UTC),
        dt.datetime(2026, 7, 3, 6, tzinfo=dt.UTC),
    )


def test_each_setting_that_shapes_a_figure_is_said_beside_it(warehouse, monkeypatch):
    settings = {"BANCO_COMP_RATE": "0.25", "BANCO_SESSION_GAP_MINUTES": "45", "BANCO_PACE_BREAK_MINUTES": "12",
                "BANCO_SURVEILLANCE_FDR": "0.1"}  # fmt: skip
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    captions = lambda at: " ".join(c.value for c in at.caption)  # noqa: E731
    at = open_app(warehouse, monkeypatch, "players")
    assert "BANCO_COMP_RATE, set to 0.25 here" in captions(at)
    player = scalar(warehouse, "SELECT player_id FROM marts.players ORDER BY theo DESC LIMIT 1")
    at.text_input(key="player_search").input(player).run()
    assert "no wager at the table for more than 45 minutes (BANCO_SESSION_GAP_MINUTES)" in captions(at)
    at = open_app(warehouse, monkeypatch, "tables")
    assert "a gap of more than 12 minutes, BANCO_PACE_BREAK_MINUTES" in captions(at)
    at = open_app(warehouse, monkeypatch, "surveillance")
    assert "q is at most 0.1, the false-discovery rate BANCO_SURVEILLANCE_FDR" in captions(at)
