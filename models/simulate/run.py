"""A whole simulation written to disk: chunks of rounds and bets files, the fault labels, the players."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
from numba.core import event

from models import collector
from models.progress import Progress, quiet
from models.simulate.cage import Purses
from models.simulate.config import Simulation
from models.simulate.count import table_events
from models.simulate.engine import DEFAULT_CHUNK_COUPS, Chunk, simulate
from models.simulate.faults import inject
from models.simulate.output import write_frame
from models.simulate.players import draw_players
from models.warehouse.shards import Sharding

#: Fault labels go beside the logs, in a folder the ingester passes over (names starting with _).
FAULTS_FOLDER = "_faults"
#: The pool's habits (players.POOL_SCHEMA), the ground truth the player marts are checked against.
PLAYERS_FOLDER = "_players"
#: The stage progress is told of.
DEALING = "dealing shoes"


@dataclass
class Summary:
    """What a run wrote."""

    shoes: int = 0
    coups: int = 0
    bets: int = 0
    faults: int = 0
    events: int = 0  # table events (opener, closer, fill, credit, drop, marker, marker_payment)
    count_faults: int = 0
    files: list[Path] = field(default_factory=list)  # the round logs and fault labels
    players: Path | None = None  # the pool's ground truth
    seconds: float = 0.0
    compiling: float = 0.0  # of `seconds`: building the compiled kernels, on their first use only

    def line(self) -> str:
        dealing = self.seconds - self.compiling
        rate = self.coups / dealing if dealing > 0 else 0.0
        faults = f", {self.faults:,} faults labelled" if self.faults else ""
        faults += f", {self.events:,} table events" if self.events else ""
        faults += f", {self.count_faults:,} count faults labelled" if self.count_faults else ""
        built = f"; {self.compiling:.1f} s of that built the compiled kernels, once" if self.compiling >= 1 else ""
        return (
            f"simulated {self.shoes:,} shoes: {self.coups:,} coups, {self.bets:,} wagers{faults}; "
            f"{len(self.files)} files in {self.seconds:.1f} s ({rate / 1e6:.2f} M coups/s{built})"
        )


def _stem(sim: Simulation, chunk: Chunk, index: int) -> str:
    first, last = (sim.start + dt.timedelta(days=day) for day in chunk.days)
    return f"{first:%Y%m%d}-{last:%Y%m%d}_seed{sim.seed}_{index:04d}"


def _shard_numbers(frame: pl.DataFrame | pa.Table, sharding: Sharding) -> np.ndarray:
    """Each row's shard, as its place in `sharding.names`, worked out once for each distinct table id."""
    table_ids = frame["table_id"].to_arrow() if isinstance(frame, pl.DataFrame) else frame["table_id"]
    parts = [np.zeros(0, dtype=np.int32)]
    # as dealt, the column is dictionary-encoded already: nothing is hashed
    for chunk in pa.chunked_array(pc.dictionary_encode(table_ids)).chunks:
        of_entry = [sharding.names.index(sharding.of(table)) for table in chunk.dictionary.to_pylist()]
        parts.append(np.array(of_entry, dtype=np.int32)[chunk.indices.to_numpy(zero_copy_only=False)])
    return np.concatenate(parts)


def _write_rows(frame: pl.DataFrame | pa.Table, rows: np.ndarray | None, path: Path, fmt: str) -> Path:
    """Write the rows of `frame` that `rows` picks, all of them when it is None; the copy is made here,
    in a writer's thread, so that dealing the next chunk does not wait for it."""
    if rows is not None:
        frame = frame.filter(pa.array(rows) if isinstance(frame, pa.Table) else pl.Series(rows))
    return write_frame(frame, path, fmt)


def _log_files(frame: pl.DataFrame | pa.Table | None, path: Path, sharding: Sharding | None) -> list[tuple]:
    """`_write_rows`'s (frame, rows, path) for each file a frame is written as: itself whole or, with a
    sharding of two or more, one file for each shard it has rows of (`<name>_s0`, ...). None for no rows."""
    if frame is None or not len(frame):
        return []
    if sharding is None or sharding.count == 1:
        return [(frame, None, path)]
    numbers = _shard_numbers(frame, sharding)
    held = np.bincount(numbers, minlength=sharding.count)
    return [
        (frame, numbers == index, path.with_name(f"{path.name}_{name}"))
        for index, name in enumerate(sharding.names)
        if held[index]
    ]


def _count_and_write(
    sim: Simulation,
    chunk: Chunk,
    purses: Purses,
    rate: float,
    out: Path,
    stem: str,
    sharding: Sharding | None,
    fmt: str,
) -> tuple[list[Path], int, int]:
    """A chunk's table events and count-fault labels, worked out and written in a writer's thread (from
    the chunk as dealt: a misdeal in the logs is no change at the table); the files, events and labels."""
    counted = table_events(sim, chunk.rounds_table, chunk.bets_table, chunk.days[0], purses, rate)
    files = [
        *_log_files(counted.events, out / f"table_events_{stem}", sharding),
        *_log_files(counted.labels, out / FAULTS_FOLDER / f"count_faults_{stem}", None),
    ]
    return [_write_rows(*file, fmt) for file in files], counted.events.height, counted.labels.height


def _collect(summary: Summary, pending: list[Future]) -> None:
    """Wait for a chunk's writes; their files (and table events and count faults) into the summary."""
    for future in pending:
        done = future.result()
        if isinstance(done, tuple):
            files, events, count_faults = done
            summary.files += files
            summary.events += events
            summary.count_faults += count_faults
        else:
            summary.files.append(done)


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
    progress: Progress = quiet,
    sharding: Sharding | None = None,
    events: bool = True,
    count_fault_rate: float = 0.0,
) -> Summary:
    """Simulate and write `rounds_*`, `bets_*`, (with faults) `faults_*` and (with bets) the pool's
    `_players/players_seed<S>` files into `out`; with bets and `events`, the tables' count-room
    events `table_events_*` (models/simulate/count.py), a share `count_fault_rate` of the
    table-shifts given one fault, labelled in `_faults/count_faults_*`.

    With a `sharding` of two or more shards, each chunk's rounds and bets are written as one file
    pair per shard (`rounds_<stem>_s0`, ...), so each shard's worker ingests files of its own tables
    only; so are the table events. The fault labels stay one file a chunk. `progress` is told the
    shoes dealt after each chunk.
    """
    if not 0.0 <= count_fault_rate <= 1.0:
        raise ValueError(f"the count-fault rate is a share of table-shifts, 0 to 1, got {count_fault_rate}")
    (out / FAULTS_FOLDER).mkdir(parents=True, exist_ok=True)
    summary, started = Summary(), time.perf_counter()
    purses = None
    if sim.bets:
        (out / PLAYERS_FOLDER).mkdir(exist_ok=True)
        players = draw_players(sim)
        summary.players = write_frame(players.frame(), out / PLAYERS_FOLDER / f"players_seed{sim.seed}", fmt)
        purses = Purses.of(players, sim.seed) if events else None

    # One chunk's files are written (each in its own thread) and its table events worked out while the
    # next chunk is dealt on one core fewer than the machine has: a dealing thread waiting for a core a
    # writer holds would stall the kernel's other threads. At most two chunks are ever in memory. The
    # events have a thread of their own: its malloc arena keeps the same large arrays chunk after chunk
    # (spread over the writers' threads, each chunk faulted in fresh pages, a tenth of the CPU time).
    dealers = max(1, numba.config.NUMBA_NUM_THREADS - 1)
    writer, counter = ThreadPoolExecutor(max_workers=3), ThreadPoolExecutor(max_workers=1)
    with writer, counter, collector.paused(), _compile_timer() as compiling:
        pending: list[Future] = []
        progress(DEALING, 0, sim.shoes, f"{sim.tables} tables, {sim.days} days")
        for index, chunk in enumerate(simulate(sim, days=days, chunk_coups=chunk_coups, threads=dealers)):
            if misdeal_rate > 0:
                rounds, bets, labels = inject(chunk.rounds, chunk.bets, misdeal_rate, sim.seed)
            else:  # the Arrow tables as dealt: no Polars frames built
                rounds, bets, labels = chunk.rounds_table, chunk.bets_table, None
            stem = _stem(sim, chunk, index)
            frames = [
                *_log_files(rounds, out / f"rounds_{stem}", sharding),
                *_log_files(bets, out / f"bets_{stem}", sharding),
                *_log_files(labels, out / FAULTS_FOLDER / f"faults_{stem}", None),
            ]
            _collect(summary, pending)
            counting = []  # started first, its files listed last
            if purses is not None:
                counting = [
                    counter.submit(_count_and_write, sim, chunk, purses, count_fault_rate, out, stem, sharding, fmt)
                ]
            pending = [writer.submit(_write_rows, frame, rows, path, fmt) for frame, rows, path in frames] + counting
            summary.shoes += chunk.shoes
            summary.coups += chunk.rounds_table.num_rows
            summary.bets += 0 if chunk.bets_table is None else chunk.bets_table.num_rows
            summary.faults += 0 if labels is None else labels.height
            summary.seconds, summary.compiling = time.perf_counter() - started, compiling()
            dealt = f"day {chunk.days[1] + 1} of {sim.days}, {summary.coups:,} coups"
            progress(DEALING, summary.shoes, sim.shoes, dealt)
        _collect(summary, pending)
        summary.compiling = compiling()
    summary.seconds = time.perf_counter() - started
    return summary
