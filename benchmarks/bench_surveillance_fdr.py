"""The realised false-discovery proportion of the surveillance flags over many simulated fortnights.

Not a speed benchmark. Each run is the fortnight of `banco simulate --shoes 480 --tables 3
--advantage-share 0.02` at its own seed, ingested and built in a temporary folder. A flag is false
when the simulator's ground truth (`_players/`) says its player is ordinary. Per run, the false share
of its `edge_timing` player-day flags (the FDP, 0 when nothing is flagged); over the runs, their mean
with a bootstrap interval, and the pooled share with a Wilson interval. The same for distinct
players, which no per-day correction promises. Saved as benchmarks/results/surveillance_fdr.json.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats

from benchmarks.report import RESULTS, Row, publish, quick_requested
from models.metrics.build import build
from models.settings import DEFAULTS
from models.simulate.config import Population, Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import read

#: The issue's fortnight: 3 tables of punto banco, 10 shoes a day each, 2 % advantage players.
SHOES, TABLES, SHARE = 480, 3, 0.02
RUNS, FIRST_SEED = 20, 101
#: `--quick`: two runs of two days.
QUICK_RUNS, QUICK_SHOES = 2, 60
BOOTSTRAP = 10_000


def fortnight(root: Path, seed: int, shoes: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One run dealt, ingested and built: (its edge_timing player-day flags, the pool's kinds)."""
    sim = Simulation(shoes=shoes, tables=TABLES, seed=seed, population=Population(advantage_share=SHARE))
    summary = write_simulation(sim, root / "landing")
    db = root / "banco.duckdb"
    ingest(db, [root / "landing"])
    build(db)
    con = read(db)
    try:
        flags = con.sql(
            "SELECT gaming_day, player_id FROM marts.surveillance_flags "
            "WHERE rule = 'edge_timing' AND scope = 'player_day'"
        ).pl()
    finally:
        con.close()
    return flags, pl.read_parquet(summary.players).select("player_id", "kind")


def judged(flags: pl.DataFrame, kinds: pl.DataFrame) -> dict:
    """A run's flags and false flags, by player-day and by distinct player."""
    marked = flags.join(kinds, on="player_id", how="left").with_columns(false=pl.col("kind") == "ordinary")
    players = marked.group_by("player_id").agg(pl.col("false").first())
    return {
        "flags": marked.height,
        "false_flags": int(marked["false"].sum()),
        "players": players.height,
        "false_players": int(players["false"].sum()),
        "advantage_players": int((kinds["kind"] != "ordinary").sum()),
        "advantage_players_flagged": int((~players["false"]).sum()),
    }


def summary(runs: list[dict], unit: str) -> dict:
    """Mean FDP over the runs (bootstrap 95 % interval) and the pooled share (Wilson 95 %)."""
    false, total = (np.array([run[key] for run in runs]) for key in (f"false_{unit}", unit))
    fdp = np.where(total > 0, false / np.maximum(total, 1), 0.0)
    rng = np.random.default_rng(0)
    means = fdp[rng.integers(0, len(fdp), (BOOTSTRAP, len(fdp)))].mean(axis=1)
    low, high = stats.binomtest(int(false.sum()), max(int(total.sum()), 1)).proportion_ci(method="wilson")
    return {
        "mean_fdp": float(fdp.mean()),
        "mean_fdp_95": [float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))],
        "pooled": float(false.sum() / max(total.sum(), 1)),
        "pooled_95": [float(low), float(high)],
        "false": int(false.sum()),
        "total": int(total.sum()),
    }


def main(quick: bool = False) -> None:
    started = time.perf_counter()
    count, shoes = (QUICK_RUNS, QUICK_SHOES) if quick else (RUNS, SHOES)
    runs = []
    for seed in range(FIRST_SEED, FIRST_SEED + count):
        with tempfile.TemporaryDirectory(prefix="bench-fdr-") as work:
            runs.append({"seed": seed, **judged(*fortnight(Path(work), seed, shoes))})
        print(f"seed {seed}: {runs[-1]}", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    by_flag, by_player = summary(runs, "flags"), summary(runs, "players")
    if quick:
        rows = [
            Row(f"{count} runs of {shoes} shoes simulated, ingested, built", seconds, seconds, "s"),
            Row("false share of the flagged player-days", by_flag["pooled"], by_flag["pooled"], "of flags"),
        ]
        publish("surveillance_fdr", "Surveillance flags' false-discovery proportion", rows,
                "none, not a speed benchmark (each figure is its own baseline)", quick=True)  # fmt: skip
        return
    print(f"{count} runs of {shoes} shoes at {TABLES} tables (seeds {FIRST_SEED}..{FIRST_SEED + count - 1}), "
          f"{SHARE:.0%} advantage players, FDR {DEFAULTS.surveillance_fdr}, {seconds:.0f} s")  # fmt: skip
    for name, found in (("flagged player-days", by_flag), ("distinct players flagged", by_player)):
        print(
            f"  {name}: mean FDP {found['mean_fdp']:.2%} (95 % {found['mean_fdp_95'][0]:.2%} to "
            f"{found['mean_fdp_95'][1]:.2%}); pooled {found['false']} of {found['total']} = {found['pooled']:.2%} "
            f"(95 % {found['pooled_95'][0]:.2%} to {found['pooled_95'][1]:.2%})"
        )
    flagged = sum(run["advantage_players_flagged"] for run in runs)
    print(f"  advantage players flagged by edge_timing: {flagged} of {sum(run['advantage_players'] for run in runs)}")
    RESULTS.mkdir(exist_ok=True)
    payload = {
        "benchmark": "surveillance_fdr",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": seconds,
        "size": {"runs": count, "shoes": shoes, "tables": TABLES, "advantage_share": SHARE, "first_seed": FIRST_SEED},
        "fdr": DEFAULTS.surveillance_fdr,
        "player_days": by_flag,
        "players": by_player,
        "runs": runs,
    }
    (RESULTS / "surveillance_fdr.json").write_text(json.dumps(payload, indent=2, default=str))
    print(f"saved {RESULTS / 'surveillance_fdr.json'}")


if __name__ == "__main__":
    main(quick_requested())
