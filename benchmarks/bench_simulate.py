"""Simulator throughput: the outcomes-only kernel, full round logs to Parquet, and peak memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numba

from benchmarks.report import Row, figure, publish, quick_requested
from models.game.games import Game
from models.simulate.config import Simulation
from models.simulate.dealing import new_deck
from models.simulate.kernels import count_outcomes
from models.simulate.reference import reference_shoe
from models.simulate.run import write_simulation
from models.simulate.strategies import by_total

ROOT = Path(__file__).resolve().parents[1]
MEMORY_COUPS = 100_000_000


@dataclass(frozen=True)
class Sizes:
    """How much each row deals, and how many runs its figure sums up."""

    kernel_shoes: int = 400_000
    one_thread_shoes: int = 200_000
    reference_shoes: int = 300
    log_shoes: int = 40_000
    log_runs: int = 1
    memory_coups: int = MEMORY_COUPS
    repeat: int = 3


#: `--quick`: about 3 M coups through the kernel, 160,000 coups of logs three times, 500,000 streamed.
QUICK = Sizes(40_000, 20_000, 30, 2_000, 3, 500_000, 5)


def outcomes_kernel(shoes: int, repeat: int = 3) -> list[float]:
    """Coups per second of the outcomes-only kernel, `repeat` runs (shared machines are noisy)."""
    draws = by_total(Game.PUNTO_BANCO)
    count_outcomes(1, 0, 100, new_deck(8), *draws, False)  # compile / load
    rates = []
    for _ in range(repeat):
        start = time.perf_counter()
        counts = count_outcomes(1, 0, shoes, new_deck(8), *draws, False)
        rates.append(counts[:, :3].sum() / (time.perf_counter() - start))
    return rates


def reference_coups_per_second(shoes: int) -> float:
    start = time.perf_counter()
    coups = sum(len(reference_shoe(1, shoe)) for shoe in range(shoes))
    return coups / (time.perf_counter() - start)


def reference_logs_per_second(shoes: int, out: Path) -> tuple[float, float]:
    """The reference simulator's coups as round-log rows (no bets), written to Parquet: coups per
    second, and CPU seconds per million coups."""
    import polars as pl

    start, cpu = time.perf_counter(), time.process_time()
    rows = [
        {"table_id": "T01", "shoe_id": f"S{shoe}", "round_no": k + 1,
         "player_cards": " ".join(map(str, player)), "banker_cards": " ".join(map(str, banker))}
        for shoe in range(shoes)
        for k, (player, banker) in enumerate(reference_shoe(1, shoe))
    ]  # fmt: skip
    pl.DataFrame(rows).write_parquet(out / "reference.parquet")
    return len(rows) / (time.perf_counter() - start), (time.process_time() - cpu) / len(rows) * 1e6


def full_logs_per_second(shoes: int, out: Path, runs: int = 1) -> tuple[list[float], list[float]]:
    """Coups per second of full logs to Parquet, and CPU seconds per million coups (all threads), of each
    of `runs` runs: the second is what a busy shared machine distorts least; 2 M coups/s on 2 cores
    allows 1.0."""
    write_simulation(Simulation(shoes=2), out / "warm")
    rates, cpus = [], []
    for run in range(runs):
        cpu = time.process_time()
        summary = write_simulation(Simulation(shoes=shoes, tables=20, seed=1), out / f"full-{run}")
        rates.append(summary.coups / summary.seconds)
        cpus.append((time.process_time() - cpu) / summary.coups * 1e6)
    return rates, cpus


def peak_memory(coups: int, out: Path) -> dict:
    """Stream `coups` coups with bets to Parquet in a child process; its peak resident memory."""
    shoes = coups // 81 + 1
    code = (
        "import json, resource, sys; from pathlib import Path;"
        "from models.simulate.config import Simulation; from models.simulate.run import write_simulation;"
        f"s = write_simulation(Simulation(shoes={shoes}, tables=50, shoes_per_day=10, seed=2), Path(sys.argv[1]));"
        "print(json.dumps({'coups': s.coups, 'seconds': s.seconds,"
        " 'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(out / "memory")], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(quick: bool = False) -> None:
    env = int(os.environ.get("BANCO_BENCH_MEMORY_COUPS", MEMORY_COUPS))
    sizes = QUICK if quick else Sizes(memory_coups=env)
    with tempfile.TemporaryDirectory(dir=ROOT / "data") as tmp:
        out = Path(tmp)
        reference = reference_coups_per_second(sizes.reference_shoes) / 1e6
        two, spread = figure(outcomes_kernel(sizes.kernel_shoes, sizes.repeat), higher_is_better=True, quick=quick)
        rows = [Row("outcomes-only kernel, 2 threads", two / 1e6, reference, "M coups/s", ">= 40", True, spread)]
        numba.set_num_threads(1)
        one, spread = figure(outcomes_kernel(sizes.one_thread_shoes, sizes.repeat), higher_is_better=True, quick=quick)
        rows.append(Row("outcomes-only kernel, 1 thread", one / 1e6, reference, "M coups/s", "", True, spread))
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        rates, cpus = full_logs_per_second(sizes.log_shoes, out, sizes.log_runs)
        rate, rate_spread = figure(rates, higher_is_better=True, quick=quick)
        cpu, cpu_spread = figure(cpus, quick=quick)
        reference_rate, reference_cpu = reference_logs_per_second(sizes.reference_shoes, out)
        rows += [
            Row("round logs with cards and bets to Parquet", rate / 1e6, reference_rate / 1e6,
                "M coups/s", ">= 2", True, rate_spread),
            Row("  CPU time of those logs, all threads", cpu, reference_cpu, "s/M coups", "<= 1.0 on 2 cores",
                spread=cpu_spread),
        ]  # fmt: skip
        memory = peak_memory(sizes.memory_coups, out)
        case = f"peak memory, {memory['coups']:,} coups streamed"
        rows.append(Row(case, memory["peak_mb"], 2048, "MB", "bounded", key="peak memory, coups streamed"))
    # the memory row's "baseline" is the 2 GB budget: its ratio is the headroom
    publish(
        "simulate",
        "Shoe simulator throughput and memory",
        rows,
        "pure-Python reference simulator (models/simulate/reference.py)",
        quick=quick,
    )


if __name__ == "__main__":
    main(quick_requested())
