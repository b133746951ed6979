"""The marts' nightly cycle over a warehouse of simulated coups with bets: the first build, every day
again with the edges kept, a build with nothing new, one new gaming day and that day again, each
with its peak memory and its time by stage; the baseline, a per-row Python loop of a few metrics."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from benchmarks.report import Row, figure, publish, quick_requested
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import publish as publish_snapshot
from models.warehouse.store import read

ROOT = Path(__file__).resolve().parents[1]
BASELINE_COUPS = 200_000
#: `--quick`: about 25,000 coups on 8 tables (4 gaming days; a kept warehouse is not used), the
#: cycle three times over.
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
    ingested but not built, its last gaming day's logs held back in `work/last` (what a nightly run
    brings); returns its path and the ingest time in seconds."""
    sim = Simulation(shoes=coups // 81 + 1, tables=tables, shoes_per_day=10, seed=5)
    days = -(-sim.shoes // (sim.tables * sim.shoes_per_day))
    write_simulation(sim, work / "landing", days=range(0, days - 1))
    write_simulation(sim, work / "last", days=range(days - 1, days))
    db = work / "banco.duckdb"
    start = time.perf_counter()
    ingest(db, [work / "landing"])
    return db, time.perf_counter() - start


def prepare(work: Path, coups: int, tables: int = 50) -> tuple[Path, str]:
    """A warehouse of about `coups` simulated coups with bets but the last day's, or the one named by
    BANCO_BENCH_MARTS_WAREHOUSE (`<folder>/banco.duckdb`, made there by the first run that names it:
    the simulation and ingest take minutes), as the ingest left it."""
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
        _snapshot(db)
    return _restore(db), f"{kept}, as ingested"


def _snapshot(db: Path) -> None:
    """Keep the warehouse as the ingest left it: its DuckDB file and its Iceberg tables' catalog,
    each with its write-ahead log where it has one."""
    for path in _state(db):
        kept = path.with_name(f"{path.name}.ingested")
        if path.exists():
            shutil.copyfile(path, kept)
        else:
            kept.unlink(missing_ok=True)


def _restore(db: Path) -> Path:
    """The warehouse at `db` as `_snapshot` kept it (the last day's ingest adds data files, which
    stay unread once the catalog is back)."""
    for path in _state(db):
        kept = path.with_name(f"{path.name}.ingested")
        if kept.exists():
            shutil.copyfile(kept, path)
        else:  # a log begun since would be replayed onto the file kept
            path.unlink(missing_ok=True)
    publish_snapshot(db)
    return db


def _state(db: Path) -> list[Path]:
    catalog = db.with_name(f"{db.stem}.catalog.db")
    logs = [catalog.with_name(f"{catalog.name}-{suffix}") for suffix in ("wal", "shm")]
    return [db, db.with_name(f"{db.name}.wal"), catalog, *logs]


def stage(db: Path, step: str) -> tuple[dict, float, float]:
    """Run one step of the nightly cycle on `db` in a process of its own (`python -m
    benchmarks.marts_step`): its report, its peak memory in MB and its CPU seconds (every thread)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.marts_step", str(db), step], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"the marts benchmark's step {step} failed (exit {child.returncode})")
    return json.loads(out.strip().splitlines()[-1]), usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


#: The nightly cycle's steps, in order (benchmarks/marts_step.py): the first build (every coup's edges
#: computed), every day again with the edges kept, a build with nothing new, the held-back day
#: ingested and built, that day again.
STEPS = ("first", "every_day", "nothing_new", "new_day", "same_day")


def main(quick: bool = False) -> None:
    coups = QUICK_COUPS if quick else int(os.environ.get("BANCO_BENCH_MARTS_COUPS", 10_000_000))
    tables, repeat = (QUICK_TABLES, QUICK_REPEAT) if quick else (50, 1)
    if quick:
        os.environ.pop("BANCO_BENCH_MARTS_WAREHOUSE", None)
    with tempfile.TemporaryDirectory(dir=ROOT / "data") as tmp:
        db, origin = prepare(Path(tmp), coups, tables)
        if not os.environ.get("BANCO_BENCH_MARTS_WAREHOUSE"):
            _snapshot(db)
        con = read(db)
        stored, wagers = con.execute(
            "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets)"
        ).fetchall()[0]
        con.close()
        times: dict[str, list[float]] = {step: [] for step in STEPS}
        peaks: dict[str, float] = dict.fromkeys(STEPS, 0.0)
        cpu: dict[str, float] = dict.fromkeys(STEPS, 0.0)
        stages: dict[str, dict[str, float]] = {}
        for _ in range(repeat):
            _restore(db)
            for step in STEPS:
                report, peak, used = stage(db, step)
                times[step].append(report["seconds"])
                peaks[step] = max(peaks[step], peak)
                cpu[step] = used  # the process's, imports included
                stages[step] = report["stages"]
                if step == "new_day":
                    day_coups = report["coups"]
        baseline = baseline_seconds_per_coup(db)
    day_baseline = baseline * day_coups
    figures = {step: figure(times[step], quick=quick) for step in STEPS}
    rows = [
        Row(f"first build, {stored:,} coups (edges computed)", *_at(figures["first"]), baseline * stored, "s",
            spread=figures["first"][1], key="first build"),
        Row("  its peak memory", peaks["first"], 4096, "MB", "<= 4,096", key="first build: peak memory"),
        Row("full rebuild, every day, edges kept", *_at(figures["every_day"]), baseline * stored, "s", "<= 20",
            spread=figures["every_day"][1], key="full rebuild"),
        Row("  its peak memory", peaks["every_day"], 4096, "MB", "<= 4,096", key="full rebuild: peak memory"),
        Row("  its CPU a million coups, all threads", cpu["every_day"] / stored * 1e6, baseline * 1e6, "s",
            key="full rebuild: CPU a million coups"),
        Row("full rebuild, nothing new", *_at(figures["nothing_new"]), baseline * stored, "s",
            spread=figures["nothing_new"][1], key="nothing new"),
        Row(f"one new gaming day, ~{day_coups:,} coups", *_at(figures["new_day"]), day_baseline, "s", "<= 1",
            spread=figures["new_day"][1], key="one gaming day after it"),
        Row("the same gaming day again", *_at(figures["same_day"]), day_baseline, "s", "<= 1",
            spread=figures["same_day"][1]),
        Row("  peak memory of a day", max(peaks["new_day"], peaks["same_day"]), 4096, "MB",
            key="a day: peak memory"),
    ]  # fmt: skip
    publish(
        "marts",
        f"The nightly cycle over {stored:,} coups and {wagers:,} wagers ({origin}); each step in a process of its own",
        rows,
        "a per-row Python loop computing only tie counts, commission and table-day money (a lower bound of a "
        f"per-row build of every mart), timed on {BASELINE_COUPS:,} coups and scaled; memory: 4 GB",
        quick=quick,
        stages={f"{step} ({times[step][-1]:.1f} s)": stages[step] for step in ("first", "every_day", "new_day")},
    )


def _at(figured: tuple[float, float]) -> tuple[float]:
    return (figured[0],)


if __name__ == "__main__":
    main(quick_requested())
