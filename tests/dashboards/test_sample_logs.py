"""Every page on a warehouse of the project's own sample logs, which hold what simulated shoes do not:
quarantined lines that are no JSON object, shoes of a few coups, scoreboard rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards.pages import PAGES
from models.metrics.build import build
from models.warehouse.ingest import ingest
from models.warehouse.store import read

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboards" / "app.py")


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    db = tmp_path_factory.mktemp("samples") / "banco.duckdb"
    ingest(db, [ROOT / "data" / "samples"])
    build(db)
    return db


@pytest.fixture
def app(samples, monkeypatch):
    monkeypatch.setenv("BANCO_DB", str(samples))
    return AppTest.from_file(APP, default_timeout=120).run()


@pytest.mark.slow
def test_every_page_renders_the_sample_logs(app):
    for name, _, _ in PAGES:
        app.switch_page(f"views/{name}").run()
        assert not app.exception, (name, [e.value for e in app.exception])


def test_the_integrity_page_shows_quarantined_text_that_is_no_json(samples, app):
    con = read(samples)
    not_json = con.sql("SELECT count(*) FROM quarantine.rounds WHERE NOT json_valid(raw)").fetchall()[0][0]
    con.close()
    assert not_json > 0  # the samples hold such a line: the page must show it, not fail on it
    app.switch_page("views/integrity.py").run()
    assert not app.exception, [e.value for e in app.exception]


@pytest.mark.slow
def test_the_shoe_explorer_draws_every_shoe_even_one_too_short_for_a_road(samples, app):
    con = read(samples)
    shoes = con.sql("SELECT table_id, shoe_id, coups FROM marts.shoe_summary ORDER BY ALL").fetchall()
    con.close()
    assert min(coups for _, _, coups in shoes) < 5  # a shoe with no derived road yet
    app.switch_page("views/shoe.py").run()
    for table, shoe, _ in shoes:
        app.selectbox(key="explorer_table").set_value(table).run()
        app.selectbox(key="explorer_shoe").set_value(shoe).run()
        assert not app.exception, (table, shoe, [e.value for e in app.exception])


def test_the_integrity_page_counts_quarantined_table_events(samples, app):
    con = read(samples)
    rejected = con.sql(
        "SELECT (SELECT count(*) FROM quarantine.rounds) + (SELECT count(*) FROM quarantine.bets), "
        "(SELECT count(*) FROM quarantine.table_events)"
    ).fetchall()[0]
    con.close()
    assert rejected[1] > 0  # the samples' table events hold a row for every reason
    app.switch_page("views/integrity.py").run()
    (shown,) = [m.value for m in app.metric if m.label == "Rows quarantined (filtered)"]
    assert shown == f"{sum(rejected):,}"
    kinds = set(app.dataframe[0].value["kind"])
    assert {"Rounds", "Bets", "Table events"} <= kinds  # by their names
