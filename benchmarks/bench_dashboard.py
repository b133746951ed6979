"""Dashboard page render time on a ten-million-coup warehouse: each page run under Streamlit's AppTest
with the query cache cleared first (a cold render, as the first analyst after a publish sees it), then
again warm. The baseline is the 1 s budget a page has."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from benchmarks.bench_marts import QUICK_COUPS, QUICK_TABLES, simulated_warehouse
from benchmarks.report import Row, figure, publish, quick_requested
from dashboards.pages import PAGES
from models.metrics.build import build
from models.warehouse.store import read

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "dashboards" / "app.py")
BUDGET_SECONDS = 1.0
REPEAT = 3


def render_seconds(page: str, interact=None) -> tuple[list[float], float]:
    """REPEAT cold renders of `page` (entry point, filters and page), and one warm one."""
    at = AppTest.from_file(APP, default_timeout=600).run()  # imports and first-run costs, not timed
    at.switch_page(f"views/{page}").run()
    if interact:
        interact(at)
    cold = []
    for _ in range(REPEAT):
        st.cache_data.clear()
        start = time.perf_counter()
        at.run()
        cold.append(time.perf_counter() - start)
        if at.exception:
            raise RuntimeError(f"{page}: {at.exception[0].value}")
    start = time.perf_counter()
    at.run()
    return cold, time.perf_counter() - start


def pick_first_dealer(at: AppTest) -> None:
    box = at.selectbox(key="drill_dealer")
    box.set_value(box.options[1]).run()


def search_top_player(at: AppTest) -> None:
    """The profile of the player the list ranks first (the one with the most sessions to draw, often)."""
    at.text_input(key="player_search").input(at.dataframe[0].value["player_id"].iloc[0]).run()


def round_commission_down(at: AppTest) -> None:
    at.radio(key="what_if_policy").set_value("down").run()


def measure(db: Path, quick: bool = False) -> None:
    """Every page's cold render (the best of REPEAT; quick: their median) and warm one over `db`."""
    os.environ["BANCO_DB"] = str(db)
    con = read(db)
    coups, wagers = con.execute(
        "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets)"
    ).fetchall()[0]
    con.close()
    rows = []
    cases = [(name, title, None) for name, title, _ in PAGES]
    cases.append(("commission.py", "Commission + what-if rounded down", round_commission_down))
    cases.append(("tables.py", "Tables and dealers + a dealer drill-down", pick_first_dealer))
    cases.append(("players.py", "Players + the top player's profile", search_top_player))
    for name, title, interact in cases:
        colds, warm = render_seconds(name, interact)
        cold, spread = figure(colds, quick=quick)
        target = "<= 1 s" if quick else f"<= 1 s (warm {warm:.2f} s)"  # a quick run's targets stay put
        rows.append(Row(title, cold, BUDGET_SECONDS, "s", target, spread=spread))
        print(f"  {title}: cold {cold:.3f} s, warm {warm:.3f} s", flush=True)
    publish(
        "dashboard",
        f"Dashboard pages over {coups:,} coups and {wagers:,} wagers (AppTest, cold cache, "
        f"{'median' if quick else 'best'} of {REPEAT})",
        rows,
        "the 1 s budget per page (ratio > 1: within it)",
        quick=quick,
    )


def main(quick: bool = False) -> None:
    """Over BANCO_BENCH_DASHBOARD_DB, or a warehouse of BANCO_BENCH_DASHBOARD_COUPS made and built here
    (quick: the marts benchmark's quick warehouse, never a kept one)."""
    existing = os.environ.get("BANCO_BENCH_DASHBOARD_DB")  # a built warehouse to reuse, e.g. from an earlier run
    if existing and not quick:
        measure(Path(existing))
        return
    coups = QUICK_COUPS if quick else int(os.environ.get("BANCO_BENCH_DASHBOARD_COUPS", 10_000_000))
    with tempfile.TemporaryDirectory(dir=ROOT / "data") as tmp:
        db, _ = simulated_warehouse(Path(tmp), coups, QUICK_TABLES if quick else 50)
        build(db)
        measure(db, quick)


if __name__ == "__main__":
    main(quick_requested())
