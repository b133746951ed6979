"""The Decisions page under AppTest on the shared warehouse: its figures are marts.decisions' rows counted and
summed here straight from the serving snapshot; it says what is rated and that one deviation proves nothing;
the deciders and a game filter narrow it; the equilibrium's share once the mart holds one."""

from __future__ import annotations

import shutil

import duckdb
import polars as pl

from dashboards import fmt
from models.metrics.decision_styles import MIN_DECISIONS
from tests.dashboards.charts_data import assert_plots, layer, layers
from tests.dashboards.test_pages import metric, open_app, read, scalar

#: Every decision the snapshot rated, with whether it cost anything.
RATED = "SELECT *, cost > 0 AS deviated FROM marts.decisions"


def test_the_page_says_what_is_rated_and_that_one_deviation_is_no_evidence(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "decisions")
    assert at.title[0].value == "Decisions"
    assert "exact expected result of drawing and of standing" in at.markdown[0].value
    assert "for the cards left in the shoe at that moment" in at.markdown[0].value
    caution = at.info[0]
    assert caution.value.startswith("**A single deviation is no evidence.**")
    assert "The cost is an expectation" in caution.value and "luck dominates" in caution.value


def test_the_headline_counts_and_sums_the_rated_decisions(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "decisions")
    decided = read(warehouse, RATED)
    assert decided.height > 100 and decided["deviated"].sum() > 0  # the warehouse deals both games
    assert metric(at, "Decisions") == fmt.count(decided.height)
    assert metric(at, "Deviations") == fmt.count(decided["deviated"].sum())
    assert metric(at, "Expected cost") == fmt.money(scalar(warehouse, "SELECT sum(cost_money) FROM marts.decisions"))
    pure = decided.filter(pl.col("equilibrium_draw").is_in([0.0, 1.0]))
    followed = pure.filter((pl.col("equilibrium_draw") == 1) == (pl.col("choice") == "draw")).height
    share = fmt.percent(followed / pure.height, "share") if pure.height else fmt.MISSING
    assert metric(at, "Followed the equilibrium") == share


def test_each_player_is_their_decisions_summed_beside_their_style(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "decisions")
    (listed,) = [table.value for table in at.dataframe if "decider" in table.value.columns]
    styles = read(warehouse, "SELECT game, decider, player_id, style, evidence FROM marts.decision_styles")
    assert styles.height
    expected = (
        read(warehouse, RATED)
        .filter(pl.col("player_id").is_not_null())
        .group_by("player_id", "game", "decider")
        .agg(
            days=pl.col("gaming_day").n_unique(),
            decisions=pl.len(),
            deviations=pl.col("deviated").sum(),
            stake=pl.col("stake").sum().cast(pl.Float64),
            expected_cost=pl.col("cost_money").sum().cast(pl.Float64),
        )
        .join(styles, on=["game", "decider", "player_id"], how="left")
        .with_columns(pl.col("game", "decider", "style").map_elements(fmt.name, return_dtype=pl.String))
    )
    shown = pl.from_pandas(listed).with_columns(pl.col("stake", "expected_cost").cast(pl.Float64))
    by_player = ["player_id", "game", "decider"]
    columns = [*by_player, "days", "decisions", "deviations", "stake", "expected_cost", "style", "evidence"]
    assert shown.columns == columns
    assert shown.sort(by_player).to_dicts() == expected.select(columns).sort(by_player).to_dicts()
    assert shown["expected_cost"].to_list() == sorted(shown["expected_cost"], reverse=True)  # costliest first


def test_the_bank_tenures_are_the_costliest(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "decisions")
    (tenures,) = [table.value for table in at.dataframe if "tenure" in table.value.columns]
    costs = read(
        warehouse,
        "SELECT table_id, shoe_id, tenure, coalesce(sum(cost_money), 0)::DOUBLE AS expected_cost FROM marts.decisions "
        "WHERE decider = 'banker' GROUP BY ALL ORDER BY expected_cost DESC LIMIT 50",
    )
    assert [float(cost) for cost in tenures["expected_cost"]] == costs["expected_cost"].to_list()
    assert any(subheader.value == "Bank tenures" for subheader in at.subheader)


def test_the_deciders_and_a_game_narrow_every_figure(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "decisions")
    at.radio(key="decisions_deciders").set_value("Punters").run()
    assert not at.exception
    punters = scalar(warehouse, "SELECT count(*) FROM marts.decisions WHERE decider = 'punter'")
    assert metric(at, "Decisions") == fmt.count(punters)
    assert not [table for table in at.dataframe if "tenure" in table.value.columns]  # no bank, no tenures
    (listed,) = [table.value for table in at.dataframe if "decider" in table.value.columns]
    assert set(listed["decider"]) == {"Punter"}
    at.multiselect(key="games").set_value(["chemin_de_fer"]).run()
    counted = "SELECT count(*) FROM marts.decisions WHERE decider = 'punter' AND game = 'chemin_de_fer'"
    assert metric(at, "Decisions") == fmt.count(scalar(warehouse, counted))


def test_a_game_without_choices_says_so(warehouse, monkeypatch):
    at = open_app(warehouse, monkeypatch, "decisions")
    at.multiselect(key="games").set_value(["punto_banco"]).run()
    assert not at.exception and not at.metric and not at.dataframe
    assert any(info.value.startswith("No rated decisions in the filters") for info in at.info)


def test_players_per_style_are_the_styles_mart_counted(warehouse, tmp_path, monkeypatch):
    """The chart counts the players of each named style per game and decider; the caption those too few to
    name one. The shared warehouse's players decide too seldom for a style: a copy names some."""
    db = tmp_path / "banco.duckdb"
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), db.with_name("banco.serving.duckdb"))
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")))
    con.execute(
        "UPDATE marts.decision_styles SET style = CASE hash(player_id) % 3 WHEN 0 THEN 'equilibrium' "
        "WHEN 1 THEN 'always_stand' END, evidence = CASE WHEN hash(player_id) % 3 < 2 THEN 2.5 END"
    )
    con.close()
    at = open_app(db, monkeypatch, "decisions")
    styles = read(db, "SELECT * FROM marts.decision_styles")
    counted = (
        styles.filter(pl.col("style").is_not_null())
        .group_by("game", "decider", "style")
        .agg(players=pl.len(), decisions=pl.col("decisions").sum())
    )
    assert counted["style"].n_unique() == 2
    title = "Which way of playing best explains each player's choices?"
    bars = layer(layers(at), "bar", title, x="players")
    assert_plots(bars.data, counted)
    assert bars.encoding["y"]["title"] == "Best-fitting style" and bars.encoding["x"]["title"] == "Players"
    few, players = styles["style"].null_count(), styles.height
    caption = f"{fmt.count(few)} of {fmt.count(players)} players have fewer than {MIN_DECISIONS}"
    assert any(caption in c.value for c in at.caption)
    (listed,) = [table.value for table in at.dataframe if "style" in table.value.columns]
    assert set(listed["style"].dropna()) == {"Equilibrium", "Always stand"}


def test_the_share_that_followed_the_equilibrium(warehouse, tmp_path, monkeypatch):
    """Once marts.decisions holds the equilibrium's probabilities, the share of the decisions where it is pure
    (draws for sure or stands for sure) that made its choice; mixed cells are left out."""
    db = tmp_path / "banco.duckdb"
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), db.with_name("banco.serving.duckdb"))
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")))
    con.execute(
        "UPDATE marts.decisions SET equilibrium_draw = CASE round_no % 3 WHEN 0 THEN 1 WHEN 1 THEN 0 ELSE 0.5 END"
    )
    con.close()
    decided = read(db, RATED)
    pure = decided.filter(pl.col("round_no") % 3 != 2)
    followed = pure.filter((pl.col("round_no") % 3 == 0) == (pl.col("choice") == "draw")).height
    at = open_app(db, monkeypatch, "decisions")
    assert 0 < followed < pure.height < decided.height
    assert metric(at, "Followed the equilibrium") == fmt.percent(followed / pure.height, "share")


def test_before_the_equilibrium_is_rated_the_share_is_missing(warehouse, tmp_path, monkeypatch):
    db = tmp_path / "banco.duckdb"
    shutil.copyfile(warehouse.with_name("banco.serving.duckdb"), db.with_name("banco.serving.duckdb"))
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")))  # as a build before the solver stored it
    con.execute("UPDATE marts.decisions SET equilibrium_draw = NULL")
    con.close()
    at = open_app(db, monkeypatch, "decisions")
    assert metric(at, "Followed the equilibrium") == fmt.MISSING
    assert any("`banco build` adds them" in caption.value for caption in at.caption)
