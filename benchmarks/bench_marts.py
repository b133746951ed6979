"""Mart rebuild time over a warehouse of simulated coups with bets, one new gaming day, and a
straightforward per-row Python implementation of the same metrics as the baseline."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import tempfile
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from benchmarks.report import Row, figure, publish, quick_requested
from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import publish as publish_snapshot
from models.warehouse.store import read

ROOT = Path(__file__).resolve().parents[1]
BASELINE_COUPS = 200_000
#: `--quick`: about 25,000 coups on 8 tables (4 gaming days; a kept warehouse is not used), the three
#: builds three times over.
QUICK_COUPS, QUICK_TABLES, QUICK_REPEAT = 25_000, 8, 3


def per_row_marts(rounds: list[tuple], bets: list[tuple]) -> dict:
    """The baseline: tie counts, commission and table-day money by looping over rows in Python."""
    ties, coups = defaultdict(int), defaultdict(int)
    commission, handle, win, theo = (defaultdict(Decimal) for _ in range(4))
    day_of = {}
    for table_id, shoe_id, round_no, started_at, outcome in rounds:
        day = (started_at - dt.timedelta(hours=6)).date()
        day_of[table_id, shoe_id, round_no] = day
        coups[table_id, day] += 1
        ties[table_id, day] += outcome == "T"
    for table_id, shoe_id, round_no, amount, house_net, fee, expected in bets:
        key = table_id, day_of[table_id, shoe_id, round_no]
        commission[key] += fee
        handle[key] += amount
        win[key] += house_net
        theo[key] += expected
    return {"ties": ties, "coups": coups, "commission": commission, "handle": handle, "win": win, "theo": theo}


def baseline_seconds_per_coup(db: Path) -> float:
    con = read(db)
    rounds = con.execute(
        f"SELECT table_id, shoe_id, round_no, started_at, outcome FROM core.rounds LIMIT {BASELINE_COUPS}"
    ).fetchall()
    sample = f"(SELECT table_id, shoe_id, round_no FROM core.rounds LIMIT {BASELINE_COUPS})"
    bets = con.execute(
        "SELECT b.table_id, b.shoe_id, b.round_no, b.amount, b.house_net, b.commission, b.theo FROM core.bets b "
        f"SEMI JOIN {sample} USING (table_id, shoe_id, round_no)"
    ).fetchall()
    con.close()
    start = time.perf_counter()
    per_row_marts(rounds, bets)
    return (time.perf_counter() - start) / len(rounds)


def simulated_warehouse(work: Path, coups: int, tables: int = 50) -> tuple[Path, float]:
    """A warehouse of about `coups` simulated coups with bets (10 shoes a table and day) in `work`,
    ingested but not built; returns its path and the ingest time in seconds."""
    sim = Simulation(shoes=coups // 81 + 1, tables=tables, shoes_per_day=10, seed=5)
    write_simulation(sim, work / "landing")
    db = work / "banco.duckdb"
    start = time.perf_counter()
    ingest(db, [work / "landing"])
    return db, time.perf_counter() - start


def prepare(work: Path, coups: int, tables: int = 50) -> tuple[Path, str]:
    """A warehouse of about `coups` simulated coups with bets, or the one named by
    BANCO_BENCH_MARTS_WAREHOUSE (`<folder>/banco.duckdb`, made there by the first run that names it:
    the simulation and ingest take minutes), its DuckDB file as the ingest left it."""
    kept = os.environ.get("BANCO_BENCH_MARTS_WAREHOUSE")
    if not kept:
        db, seconds = simulated_warehouse(work, coups, tables)
        return db, f"ingest took {seconds:.0f} s"
    db = Path(kept)
    if not db.exists():  # made where it is kept: its catalog names its files by their paths
        made, seconds = simulated_warehouse(db.parent, coups, tables)
        shutil.rmtree(made.parent / "landing")
        if made != db:
            raise SystemExit(f"BANCO_BENCH_MARTS_WAREHOUSE names {kept}: a new one is made as {made}")
    return as_ingested(db), f"{kept}, as ingested"


def as_ingested(db: Path) -> Path:
    """The warehouse at `db` with its DuckDB file as the ingest left it (kept beside it the first
    time): builds write that file only, and a warehouse cannot be copied elsewhere by its files."""
    pristine = db.with_name(f"{db.stem}.ingested{db.suffix}")
    if not pristine.exists():
        shutil.copyfile(db, pristine)
    shutil.copyfile(pristine, db)
    publish_snapshot(db)
    return db


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main(quick: bool = False) -> None:
    coups = QUICK_COUPS if quick else int(os.environ.get("BANCO_BENCH_MARTS_COUPS", 10_000_000))
    tables, repeat = (QUICK_TABLES, QUICK_REPEAT) if quick else (50, 1)
    if quick:
        os.environ.pop("BANCO_BENCH_MARTS_WAREHOUSE", None)
    with tempfile.TemporaryDirectory(dir=ROOT / "data") as tmp:
        db, origin = prepare(Path(tmp), coups, tables)
        con = read(db)
        stored, wagers, shoes, last_day = con.execute(
            "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets), "
            "(SELECT count(*) FROM core.shoes), (SELECT max(started_at - INTERVAL 6 HOUR)::DATE FROM core.rounds)"
        ).fetchall()[0]
        con.close()
        times: dict[str, list[float]] = {"full": [], "one_day": [], "again": []}
        for _ in range(repeat):
            times["full"].append(timed(lambda: build(db))[0])
            # the first day after a full rebuild, then the same day again (the steady state of a daily run)
            one_day, rows = timed(lambda: build(db, days=[last_day]))
            times["one_day"].append(one_day)
            times["again"].append(timed(lambda: build(db, days=[last_day]))[0])
        baseline = baseline_seconds_per_coup(db)
        day_coups = rows["marts.shoe_summary"] * (stored / max(1, shoes))
    day_baseline = baseline * day_coups
    (full, full_spread), (one_day, day_spread), (again, again_spread) = (
        figure(times[name], quick=quick) for name in ("full", "one_day", "again")
    )
    rows = [
        Row(f"full rebuild, {stored:,} coups", full, baseline * stored, "s", "<= 20", spread=full_spread,
            key="full rebuild"),
        Row(f"one gaming day after it, ~{day_coups:,.0f} coups", one_day, day_baseline, "s", "<= 1",
            spread=day_spread, key="one gaming day after it"),
        Row("the same gaming day again", again, day_baseline, "s", "<= 1", spread=again_spread),
    ]  # fmt: skip
    publish(
        "marts",
        f"Mart rebuilds over {stored:,} coups and {wagers:,} wagers ({origin})",
        rows,
        "a per-row Python loop computing only tie counts, commission and table-day money (a lower bound of a "
        f"per-row build of every mart), timed on {BASELINE_COUPS:,} coups and scaled",
        quick=quick,
    )


if __name__ == "__main__":
    main(quick_requested())
