"""Simulator throughput: the outcomes-only kernel, full round logs to Parquet, and peak memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from benchmarks.report import Row, publish
from models.game.games import Game
from models.game.tableau import draw_table
from models.simulate.config import Simulation
from models.simulate.dealing import new_deck
from models.simulate.kernels import count_outcomes
from models.simulate.reference import reference_shoe
from models.simulate.run import write_simulation

ROOT = Path(__file__).resolve().parents[1]
MEMORY_COUPS = 100_000_000


def outcomes_kernel(shoes: int, repeat: int = 3) -> float:
    """Coups per second of the outcomes-only kernel: the best of `repeat` runs (shared machines are noisy)."""
    table = draw_table(Game.PUNTO_BANCO)
    count_outcomes(1, 0, 100, new_deck(8), table.player, table.banker, False)  # compile / load
    rates = []
    for _ in range(repeat):
        start = time.perf_counter()
        counts = count_outcomes(1, 0, shoes, new_deck(8), table.player, table.banker, False)
        rates.append(counts[:, :3].sum() / (time.perf_counter() - start))
    return max(rates)


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


def full_logs_per_second(shoes: int, out: Path) -> tuple[float, float]:
    """Coups per second of full logs to Parquet, and CPU seconds per million coups (all threads):
    the second is what a busy shared machine distorts least; 2 M coups/s on 2 cores allows 1.0."""
    write_simulation(Simulation(shoes=2), out / "warm")
    cpu = time.process_time()
    summary = write_simulation(Simulation(shoes=shoes, tables=20, seed=1), out / "full")
    return summary.coups / summary.seconds, (time.process_time() - cpu) / summary.coups * 1e6


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


def main() -> None:
    with tempfile.TemporaryDirectory(dir=ROOT / "data") as tmp:
        out = Path(tmp)
        rows = [
            Row("outcomes-only kernel, 2 threads", outcomes_kernel(400_000) / 1e6,
                reference_coups_per_second(300) / 1e6, "M coups/s", ">= 40", True),
        ]  # fmt: skip
        numba.set_num_threads(1)
        rows.append(
            Row(
                "outcomes-only kernel, 1 thread",
                outcomes_kernel(200_000) / 1e6,
                rows[0].baseline,
                "M coups/s",
                "",
                True,
            )
        )
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        rate, cpu = full_logs_per_second(40_000, out)
        reference_rate, reference_cpu = reference_logs_per_second(300, out)
        rows += [
            Row("round logs with cards and bets to Parquet", rate / 1e6, reference_rate / 1e6,
                "M coups/s", ">= 2", True),
            Row("  CPU time of those logs, all threads", cpu, reference_cpu, "s/M coups", "<= 1.0 on 2 cores"),
        ]  # fmt: skip
        memory_coups = int(os.environ.get("BANCO_BENCH_MEMORY_COUPS", MEMORY_COUPS))
        memory = peak_memory(memory_coups, out)
        rows.append(Row(f"peak memory, {memory['coups']:,} coups streamed", memory["peak_mb"], 2048, "MB", "bounded"))
    # the memory row's "baseline" is the 2 GB budget: its ratio is the headroom
    publish(
        "simulate",
        "Shoe simulator throughput and memory",
        rows,
        "pure-Python reference simulator (models/simulate/reference.py)",
    )


if __name__ == "__main__":
    main()
