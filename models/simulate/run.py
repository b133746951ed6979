"""A whole simulation written to disk: chunks of rounds and bets files, and the fault labels."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numba
from numba.core import event

from models import collector
from models.simulate.config import Simulation
from models.simulate.engine import DEFAULT_CHUNK_COUPS, Chunk, simulate
from models.simulate.faults import inject
from models.simulate.output import write_frame

#: Fault labels go beside the logs, in a folder the ingester passes over (names starting with _).
FAULTS_FOLDER = "_faults"


@dataclass
class Summary:
    """What a run wrote."""

    shoes: int = 0
    coups: int = 0
    bets: int = 0
    faults: int = 0
    files: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    compiling: float = 0.0  # of `seconds`: building the compiled kernels, on their first use only

    def line(self) -> str:
        dealing = self.seconds - self.compiling
        rate = self.coups / dealing if dealing > 0 else 0.0
        faults = f", {self.faults:,} faults labelled" if self.faults else ""
        built = f"; {self.compiling:.1f} s of that built the compiled kernels, once" if self.compiling >= 1 else ""
        return (
            f"simulated {self.shoes:,} shoes: {self.coups:,} coups, {self.bets:,} wagers{faults}; "
            f"{len(self.files)} files in {self.seconds:.1f} s ({rate / 1e6:.2f} M coups/s{built})"
        )


def _stem(sim: Simulation, chunk: Chunk, index: int) -> str:
    first, last = (sim.start + dt.timedelta(days=day) for day in chunk.days)
    return f"{first:%Y%m%d}-{last:%Y%m%d}_seed{sim.seed}_{index:04d}"


@contextmanager
def _compile_timer() -> Iterator[Callable[[], float]]:
    """Within the block, numba's compile events are recorded; yields a function that gives the
    seconds spent compiling (none once the kernels are cached beside their modules)."""
    with event.install_recorder("numba:compile") as recorder:
        yield lambda: _outermost_seconds(recorder.buffer)


def _outermost_seconds(events: list) -> float:
    """The time between each outermost compile's start and end (a compile nests its callees')."""
    depth, began, total = 0, 0.0, 0.0
    for stamp, happened in events:
        if happened.is_start:
            began, depth = (stamp, 1) if depth == 0 else (began, depth + 1)
        else:
            depth -= 1
            total += stamp - began if depth == 0 else 0.0
    return total


def write_simulation(
    sim: Simulation,
    out: Path,
    fmt: str = "parquet",
    misdeal_rate: float = 0.0,
    chunk_coups: int = DEFAULT_CHUNK_COUPS,
    days: range | None = None,
    progress: Callable[[Summary], None] | None = None,
) -> Summary:
    """Simulate and write `rounds_*`, `bets_*` and (with faults) `faults_*` files into `out`."""
    (out / FAULTS_FOLDER).mkdir(parents=True, exist_ok=True)
    summary, started = Summary(), time.perf_counter()

    # One chunk's files are written (each in its own thread) while the next chunk is dealt on one
    # core fewer than the machine has: a dealing thread waiting for a core a writer holds would
    # stall the kernel's other threads. At most two chunks are ever in memory.
    dealers = max(1, numba.config.NUMBA_NUM_THREADS - 1)
    with ThreadPoolExecutor(max_workers=3) as writer, collector.paused(), _compile_timer() as compiling:
        pending: list[Future] = []
        for index, chunk in enumerate(simulate(sim, days=days, chunk_coups=chunk_coups, threads=dealers)):
            if misdeal_rate > 0:
                rounds, bets, labels = inject(chunk.rounds, chunk.bets, misdeal_rate, sim.seed)
            else:  # the Arrow tables as dealt: no Polars frames built
                rounds, bets, labels = chunk.rounds_table, chunk.bets_table, None
            stem = _stem(sim, chunk, index)
            frames = [
                (rounds, out / f"rounds_{stem}"),
                (bets, out / f"bets_{stem}"),
                (labels, out / FAULTS_FOLDER / f"faults_{stem}"),
            ]
            summary.files += [future.result() for future in pending]
            pending = [
                writer.submit(write_frame, frame, path, fmt)
                for frame, path in frames
                if frame is not None and len(frame)
            ]
            summary.shoes += chunk.shoes
            summary.coups += chunk.rounds_table.num_rows
            summary.bets += 0 if chunk.bets_table is None else chunk.bets_table.num_rows
            summary.faults += 0 if labels is None else labels.height
            summary.seconds, summary.compiling = time.perf_counter() - started, compiling()
            if progress:
                progress(summary)
        summary.files += [future.result() for future in pending]
        summary.compiling = compiling()
    summary.seconds = time.perf_counter() - started
    return summary
