"""The Surveillance page under AppTest on the small real warehouse: the alerts against marts.surveillance_flags
within the filters, a player's evidence against marts.surveillance_sessions and core.bets, a shoe's timeline
against marts.coup_edges and that shoe's wagers; no alerts, no cards, no bets, filters without edges, and a
warehouse built before the surveillance marts."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pytest

from dashboards import fmt
from models import display
from models.game.paytable import BETS
from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from tests.dashboards.test_pages import open_app, rows, scalar, table_with

MARTS = (
    "marts.coup_edges",
    "marts.wager_edges",
    "marts.surveillance_sessions",
    "marts.surveillance_player_day",
    "marts.surveillance_flags",
)
KEY = ("gaming_day", "player_id", "rule", "scope", "table_id", "session")
#: A wager's player edge straight from the coup's edges: minus the house edge of its bet.
PLAYER_EDGE = "-(CASE b.bet " + " ".join(f"WHEN '{bet}' THEN e.edge_{bet}" for bet in BETS) + " END)"


def plain(value):
    """A shown cell as the warehouse holds it: a missing one as None, a date as a date, a count as an int."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, pd.Timestamp | dt.datetime):
        return value.date()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def keys(frame: pd.DataFrame) -> list[tuple]:
    return [tuple(plain(value) for value in row) for row in frame[list(KEY)].itertuples(index=False)]


def alerts(at) -> pd.DataFrame:
    return table_with(at, "gaming_day", "player_id", "rule", "scope", "detail")


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def flagged(db: Path, where: str = "TRUE") -> list[tuple]:
    """The flags' keys as the page shows them: each rule and scope by its name."""
    found = rows(db, f"SELECT {', '.join(KEY)} FROM marts.surveillance_flags WHERE {where}")
    words = [KEY.index("rule"), KEY.index("scope")]
    return [tuple(display.name(v) if i in words else v for i, v in enumerate(row)) for row in found]


def test_the_alerts_are_the_flags_of_the_filtered_days(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "surveillance")
    assert at.title[0].value == "Surveillance"
    every = flagged(warehouse)
    assert every, "the fixture's advantage players should be flagged"
    shown = alerts(at)
    assert sorted(keys(shown), key=str) == sorted(every, key=str)
    assert shown["gaming_day"].is_monotonic_decreasing  # newest first
    # a player's day counted once however many rules and sessions flag it; the alerts themselves in the help
    assert metric(at, "Player-days flagged") == fmt.count(
        len({(row[KEY.index("player_id")], row[KEY.index("gaming_day")]) for row in every})
    )
    assert at.metric[0].help.startswith(f"{fmt.count(len(every))} alerts")
    day = max(row[0] for row in every)
    at.date_input(key="days").set_value((day, day)).run()
    assert not at.exception
    assert sorted(keys(alerts(at)), key=str) == sorted(flagged(warehouse, f"gaming_day = '{day}'"), key=str)


def test_a_table_filter_keeps_its_sessions_flags_and_the_days_of_players_who_sat_there(warehouse, monkeypatch):
    table = scalar(warehouse, "SELECT min(table_id) FROM marts.surveillance_flags WHERE scope = 'session'")
    at = open_app(warehouse, monkeypatch, "surveillance")
    at.multiselect(key="tables").set_value([table]).run()
    assert not at.exception
    sat = f"SELECT player_id, gaming_day FROM marts.surveillance_sessions WHERE table_id = '{table}'"
    days = f"scope = 'player_day' AND (player_id, gaming_day) IN ({sat})"
    expected = flagged(warehouse, f"(scope = 'session' AND table_id = '{table}') OR ({days})")
    assert sorted(keys(alerts(at)), key=str) == sorted(expected, key=str)


def test_a_flagged_players_evidence_is_their_sessions_summed(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "surveillance")
    player = alerts(at)["player_id"].iloc[0]  # the alert chosen first: the newest
    assert f"#### {player}" in [m.value for m in at.markdown]
    mine = f"FROM marts.surveillance_sessions WHERE player_id = '{player}'"
    wagers, advantage, edge_won, at_random, house_win, sessions = rows(
        warehouse,
        "SELECT sum(wagers), sum(advantage_wagers), sum(edge_won), sum(expected_edge_won), sum(house_win), count(*) "
        f"{mine}",
    )[0]
    assert metric(at, "Sessions") == fmt.count(sessions)
    assert metric(at, "Wagers") == fmt.count(wagers)
    assert metric(at, "At an advantage") == fmt.percent(advantage / wagers, "share")
    assert metric(at, "Edge won") == fmt.money(edge_won)
    assert metric(at, "Edge won by chance") == fmt.money(at_random)
    assert metric(at, "House win") == fmt.money(house_win)
    shown = table_with(at, "gaming_day", "table_id", "session", "coups_present")
    assert len(shown) == sessions and shown["wagers"].sum() == wagers
    assert float(shown["edge_won"].sum()) == pytest.approx(float(edge_won))
    placed = table_with(at, "table_id", "shoe_id", "round_no", "player_edge")
    assert len(placed) == min(scalar(warehouse, f"SELECT count(*) FROM core.bets WHERE player_id = '{player}'"), 2000)
    expected = {  # keyed as the page shows a wager: its bet by name
        f"{key}{display.name(bet)}": edge
        for key, bet, edge in rows(
            warehouse,
            f"SELECT b.table_id || b.shoe_id || b.round_no || b.seat, b.bet, {PLAYER_EDGE} FROM core.bets b "
            f"JOIN marts.coup_edges e USING (table_id, shoe_id, round_no) WHERE b.player_id = '{player}'",
        )
    }
    for row in placed.itertuples(index=False):
        edge = expected.get(f"{row.table_id}{row.shoe_id}{row.round_no}{row.seat}{row.bet}")
        assert plain(row.player_edge) == (None if edge is None else pytest.approx(100 * edge)), row  # in percent


def test_the_shoe_timeline_is_the_shoes_edges_and_wagers(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "surveillance")
    first = alerts(at).iloc[0]
    day, player, table = plain(first["gaming_day"]), first["player_id"], plain(first["table_id"])
    at_table = f" AND e.table_id = '{table}'" if table else ""
    best = rows(  # the flag's best evidence: that day's shoe where the player's wagers were worth most to them
        warehouse,
        f"SELECT b.table_id, b.shoe_id FROM core.bets b JOIN marts.coup_edges e USING (table_id, shoe_id, round_no) "
        f"WHERE b.player_id = '{player}' AND e.gaming_day = '{day}'{at_table} "
        f"GROUP BY ALL ORDER BY sum(b.amount * {PLAYER_EDGE}) DESC NULLS LAST, 1, 2 LIMIT 1",
    )[0]
    chosen = tuple(box.value for box in at.selectbox if box.key.startswith(("surveillance_table", "surveillance_shoe")))
    assert chosen == best
    shoe = f"table_id = '{best[0]}' AND shoe_id = '{best[1]}'"
    edges = table_with(at, "round_no", "cards_seen", "cards_left", "best_bet")
    expected = pl.DataFrame(
        rows(warehouse, f"SELECT round_no, -edge_dragon7, -edge_tie FROM marts.coup_edges WHERE {shoe} ORDER BY 1"),
        schema=["round_no", "dragon7", "tie"],
        orient="row",
    )
    assert edges["round_no"].tolist() == expected["round_no"].to_list()
    percent = expected.with_columns(pl.col("tie", "dragon7") * 100)  # edges are shown in percent
    assert edges["tie"].tolist() == pytest.approx(percent["tie"].to_list())
    if expected["dragon7"].null_count() < len(expected):  # a game with Dragon 7 on its table
        assert edges["dragon7"].tolist() == pytest.approx(percent["dragon7"].to_list())
    placed = table_with(at, "round_no", "seat", "player_id", "bet", "amount")
    logged = rows(warehouse, f"SELECT round_no, player_id, bet, amount FROM core.bets WHERE {shoe} ORDER BY ALL")
    shown = sorted((int(r.round_no), r.player_id, r.bet, float(r.amount)) for r in placed.itertuples(index=False))
    assert shown == sorted((n, p, display.name(bet), float(amount)) for n, p, bet, amount in logged)
    assert len(at.get("vega_lite_chart")) == 2  # the alerts per day, the shoe's timeline


def test_any_player_can_be_searched(warehouse, monkeypatch):
    player = scalar(
        warehouse,
        "SELECT min(player_id) FROM marts.surveillance_sessions "
        "WHERE player_id NOT IN (SELECT player_id FROM marts.surveillance_flags)",
    )
    at = open_app(warehouse, monkeypatch, "surveillance")
    at.text_input(key="surveillance_search").input(player).run()
    assert not at.exception and f"#### {player}" in [m.value for m in at.markdown]
    sessions = scalar(warehouse, f"SELECT count(*) FROM marts.surveillance_sessions WHERE player_id = '{player}'")
    assert len(table_with(at, "gaming_day", "table_id", "session", "coups_present")) == sessions
    at.text_input(key="surveillance_search").input("NOBODY-9").run()
    assert not at.exception and f"No rated player matches “{fmt.plain('NOBODY-9')}”" in at.warning[0].value


def test_filters_without_edges_say_which_shoes_have_them(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "surveillance")
    at.multiselect(key="games").set_value(["chemin_de_fer"]).run()  # player-banked: no side bets, no edges
    assert not at.exception and "The filtered shoes have no edges" in at.info[0].value


def copied(warehouse: Path, folder: Path, *statements: str) -> Path:
    """A copy of the serving snapshot changed by `statements`: its views read the fixture's data files, in the
    folder a reader may read (the warehouse's tables, linked beside the copy)."""
    db = folder / "banco.duckdb"
    serving = db.with_name("banco.serving.duckdb")
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), serving)
    db.with_name("banco.iceberg").symlink_to(warehouse.with_name("banco.iceberg"), target_is_directory=True)
    con = duckdb.connect(str(serving))
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()
    return db


def test_days_without_flags_say_what_was_tested(warehouse, tmp_path, monkeypatch):
    db = copied(warehouse, tmp_path, "DELETE FROM marts.surveillance_flags")
    at = open_app(db, monkeypatch, "surveillance")
    sessions, tested, players = rows(
        db, "SELECT count(*), count(p_value), count(DISTINCT player_id) FROM marts.surveillance_sessions"
    )[0]
    (said,) = [s.value for s in at.success]
    assert said.startswith(
        f"No alerts in the filtered days: {fmt.count(sessions)} sessions of {fmt.count(players)} players were "
        f"looked at ({fmt.count(tested)} with side bets, tested for edge timing)"
    )
    assert not at.dataframe and not at.get("vega_lite_chart")


def test_a_warehouse_built_before_the_surveillance_marts_asks_for_a_build(warehouse, tmp_path, monkeypatch):
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    kinds = dict(
        con.execute(
            "SELECT table_schema || '.' || table_name, table_type FROM information_schema.tables "
            f"WHERE table_schema || '.' || table_name IN {MARTS}"
        ).fetchall()
    )
    con.close()
    drops = [f"DROP {'VIEW' if kind == 'VIEW' else 'TABLE'} {name}" for name, kind in kinds.items()]
    at = open_app(copied(warehouse, tmp_path, *drops), monkeypatch, "surveillance")
    assert "built before marts.coup_edges" in at.warning[0].value and at.code[0].value == "banco build"


@pytest.fixture(scope="module")
def outcomes_only(tmp_path_factory) -> Path:
    """A warehouse with bets whose round logs carry outcomes and totals but no cards (a third-party export)."""
    work = tmp_path_factory.mktemp("outcomes-only")
    sim = Simulation(shoes=4, tables=2, shoes_per_day=2, start=dt.date(2026, 11, 1), seed=13)
    write_simulation(sim, work / "landing")
    for path in (work / "landing").glob("rounds_*.parquet"):
        pl.read_parquet(path).with_columns(
            player_cards=pl.lit(None, pl.String), banker_cards=pl.lit(None, pl.String)
        ).write_parquet(path)
    db = work / "banco.duckdb"
    ingest(db, [work / "landing"])
    build(db)
    return db


def test_without_cards_there_is_nothing_to_watch(outcomes_only, monkeypatch):
    assert scalar(outcomes_only, "SELECT count(*) FROM core.bets") > 0
    at = open_app(outcomes_only, monkeypatch, "surveillance")
    assert "No coup of punto banco, super 6 or EZ baccarat has its cards logged" in at.info[0].value


def test_without_bets_the_page_says_it_needs_bet_logs(rounds_only, monkeypatch):
    at = open_app(rounds_only, monkeypatch, "surveillance")
    assert not at.exception and "No bets are logged" in at.info[0].value
