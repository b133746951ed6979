"""The main job: simulate a demo month if nothing has landed, ingest the landing folder, build the
marts, and report what the warehouse now holds."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from models.game.games import Game
from models.logs.read import looks_like_round_log
from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import read

DEMO_DAYS = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--landing", type=Path, default=Path("data/landing"), help="folder of incoming round logs")
    parser.add_argument("--demo-days", type=int, default=DEMO_DAYS, help="days of demo play when nothing has landed")


def demo(landing: Path, days: int) -> str:
    """A month of six tables, every game, with bets and a small known rate of misdeals."""
    start = dt.date.today().replace(day=1) - dt.timedelta(days=days)
    sim = Simulation(shoes=days * 6 * 8, tables=6, shoes_per_day=8, games=tuple(Game), start=start, seed=2026)
    summary = write_simulation(sim, landing, misdeal_rate=0.002)
    return summary.line()


def run(args: argparse.Namespace) -> int:
    db = Path(args.db)
    landed = args.landing.exists() and any(looks_like_round_log(path) for path in args.landing.rglob("*"))
    if not landed:
        print(f"nothing has landed in {args.landing}: dealing a demo month there")
        print("  " + demo(args.landing, args.demo_days))
    results = ingest(db, [args.landing])
    new = [r for r in results if r.status == "ok"]
    print(
        f"ingested {len(new)} new files ({sum(r.status == 'skipped' for r in results)} already in, "
        f"{sum(r.status == 'failed' for r in results)} failed): {sum(r.accepted for r in new):,} rows accepted, "
        f"{sum(sum(r.quarantined.values()) for r in new):,} quarantined, {sum(r.duplicates for r in new):,} duplicates"
    )
    marts = build(db)
    print(f"built {len(marts)} marts")
    con = read(db)
    try:
        print(
            con.sql(
                "SELECT game, count(*) AS coups, count(DISTINCT table_id) AS tables, "
                "round(avg((outcome = 'B')::INT), 4) AS banker, round(avg((outcome = 'P')::INT), 4) AS player, "
                "round(avg((outcome = 'T')::INT), 4) AS tie FROM core.rounds GROUP BY game ORDER BY game"
            ).pl()
        )
        print(
            con.sql(
                "SELECT game, sum(handle) AS handle, sum(house_win) AS house_win, round(sum(theo), 2) AS theo, "
                "round(100 * sum(house_win) / sum(handle), 2) AS hold_pct "
                "FROM marts.table_day GROUP BY game ORDER BY game"
            ).pl()
        )
    finally:
        con.close()
    print(f'\nwarehouse: {db} (query it: banco sql "SELECT * FROM marts.table_day LIMIT 10")')
    return 0
