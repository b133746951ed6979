"""Ingest throughput (Parquet and CSV, validation included) beside a row-by-row validator, and the
peak memory of ingesting one 10-million-coup file."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq

from benchmarks.naive_validator import ingest_naively
from benchmarks.report import Row, figure, publish, quick_requested
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.warehouse.ingest import ingest

ROOT = Path(__file__).resolve().parents[1]
MEMORY_COUPS = 10_000_000
BASELINE_ROWS = 100_000
REPEAT = 3


@dataclass(frozen=True)
class Sizes:
    """The coups of each file ingested, of the baseline's sample, and of the one large file."""

    coups: int = 1_000_000
    baseline_rows: int = BASELINE_ROWS
    memory_coups: int = MEMORY_COUPS


#: `--quick`: files of 200,000 coups (each ingested three times), a 10,000-row baseline, a 500,000-coup file.
QUICK = Sizes(200_000, 10_000, 500_000)


def write_rounds_file(path: Path, coups: int, seed: int) -> int:
    """One rounds file of about `coups` coups, written chunk by chunk (bounded memory)."""
    # from a year back: the 10-million-coup file's 247 days end in the past (a later time is quarantined)
    sim = Simulation(shoes=coups // 81 + 1, tables=50, seed=seed, bets=False, start=dt.date(2025, 11, 1))
    written, writer = 0, None
    for chunk in simulate(sim):
        if path.suffix == ".csv":
            frame = chunk.rounds.with_columns(pl.col("started_at").dt.to_string("%Y-%m-%dT%H:%M:%S%.3f%:z"))
            with open(path, "ab") as out:
                frame.write_csv(out, include_header=written == 0)
        else:
            table = chunk.rounds.to_arrow()
            writer = writer or pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table)
        written += chunk.rounds.height
    if writer:
        writer.close()
    return written


def ingest_rate(path: Path, workdir: Path, repeat: int = REPEAT) -> tuple[list[float], list[float], list[float]]:
    """Coups per second of wall-clock time, per CPU-second (all threads), and the time its Iceberg
    commits took, of each of `repeat` ingests into a fresh warehouse: on a shared machine the best run
    is the least disturbed, and the second measure counts the work done whatever the wall clock did."""
    rates, commits = [], []
    for run in range(repeat):
        db = workdir / f"{path.stem}-{path.suffix[1:]}-{run}.duckdb"
        start, cpu = time.perf_counter(), time.process_time()
        (result,) = ingest(db, [path])
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
        assert result.status == "ok", result.error
        rates.append((result.rows_read / seconds, result.rows_read / cpu_seconds))
        commits.append(result.commit_seconds)
    return [rate for rate, _ in rates], [rate for _, rate in rates], commits


def warm_up(workdir: Path) -> None:
    """One small ingest first: the process's one-time costs (the compiled checks loaded from their
    cache, the tableau lookup built) are not throughput. The memory row's child pays them cold."""
    small = workdir / "warm-up.parquet"
    write_rounds_file(small, 2_000, seed=3)
    ingest(workdir / "warm-up.duckdb", [small])


def naive_rate(path: Path, workdir: Path, repeat: int = REPEAT, rows: int = BASELINE_ROWS) -> tuple[float, float]:
    frame = (
        pl.read_parquet(path, n_rows=rows)
        if path.suffix == ".parquet"
        else pl.read_csv(path, n_rows=rows, infer_schema=False)
    )
    dicts = frame.with_columns(pl.col("started_at").cast(pl.String)).to_dicts()
    rates = []
    for run in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        ingest_naively(dicts, workdir / f"naive-{run}.duckdb")
        rates.append((len(dicts) / (time.perf_counter() - start), len(dicts) / (time.process_time() - cpu)))
    return max(rate for rate, _ in rates), max(rate for _, rate in rates)


def peak_memory(path: Path, workdir: Path) -> dict:
    code = (
        "import json, resource, sys, time; from pathlib import Path; from models.warehouse.ingest import ingest;"
        "start = time.perf_counter(); (r,) = ingest(Path(sys.argv[1]), [Path(sys.argv[2])]);"
        "print(json.dumps({'rows': r.rows_read, 'status': r.status, 'seconds': time.perf_counter() - start,"
        " 'commit_seconds': r.commit_seconds,"
        " 'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(workdir / "memory.duckdb"), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # the last line: anything before is chatter


def main(quick: bool = False) -> None:
    sizes = QUICK
    if not quick:
        coups, memory_coups = (os.environ.get(f"BANCO_BENCH_{what}_COUPS") for what in ("INGEST", "MEMORY"))
        sizes = Sizes(int(coups or Sizes.coups), memory_coups=int(memory_coups or MEMORY_COUPS))
    coups = sizes.coups
    with tempfile.TemporaryDirectory(dir=ROOT / "data") as tmp:
        work = Path(tmp)
        warm_up(work)
        rows = []
        for suffix, target in ((".parquet", ">= 2"), (".csv", ">= 1")):
            path = work / f"rounds{suffix}"
            write_rounds_file(path, coups, seed=1)
            walls, cpus, commits = ingest_rate(path, work)
            naive_wall, naive_cpu = naive_rate(path, work, rows=sizes.baseline_rows)
            (wall, wall_spread), (cpu, cpu_spread) = (
                figure(walls, higher_is_better=True, quick=quick),
                figure(cpus, higher_is_better=True, quick=quick),
            )
            commit, commit_spread = figure(commits, quick=quick)
            kind = suffix[1:]
            case = f"ingest {kind}, {coups:,} coups, {'median' if quick else 'best'} of {REPEAT}"
            rows.append(Row(case, wall / 1e6, naive_wall / 1e6, "M coups/s", target, True, wall_spread))
            rows.append(Row("  (per CPU-second, all threads)", cpu / 1e6, naive_cpu / 1e6, "M coups/s", "", True,
                            cpu_spread, key=f"ingest {kind}: per CPU-second"))  # fmt: skip
            # a fresh warehouse's first file: its commits include creating the six tables' first snapshots
            rows.append(Row("  (its Iceberg commits, the file's share)", commit / (coups / wall), 1.0, "of the time",
                            spread=commit_spread, key=f"ingest {kind}: its Iceberg commits' share"))  # fmt: skip
        big = work / "big.parquet"
        written = write_rounds_file(big, sizes.memory_coups, seed=2)
        memory = peak_memory(big, work)
        rows.append(Row(f"peak memory, one {written:,}-coup Parquet file", memory["peak_mb"], 2048, "MB", "< 2048",
                        key="peak memory, one large Parquet file"))  # fmt: skip
        rows.append(
            Row(
                "  (that file's ingest rate, in a new process)",
                memory["rows"] / memory["seconds"] / 1e6,
                rows[0].baseline,  # the naive validator's wall-clock rate
                "M coups/s",
                "",
                True,
            )
        )
        rows.append(Row("  (that file's Iceberg commits)", memory.get("commit_seconds", 0.0), 1.0, "s"))
        shutil.rmtree(work, ignore_errors=True)
    publish(
        "ingest",
        "Round-log ingestion into the warehouse, validation included",
        rows,
        "row-by-row Python validator (benchmarks/naive_validator.py)",
        quick=quick,
    )


if __name__ == "__main__":
    main(quick_requested())
