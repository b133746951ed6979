"""Shared shape of every benchmark's output: a table with baseline and ratio, saved as JSON."""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Row:
    case: str
    measured: float
    baseline: float
    unit: str
    target: str = ""
    higher_is_better: bool = False  # throughputs; times and memory are lower-is-better
    #: (worst - best) / measured over the repeats the figure sums up: the run's own noise (0: one run).
    spread: float = 0.0
    #: What names the row from one run to the next where its case names a size the data decides.
    key: str = ""

    @property
    def ratio(self) -> float:
        """How many times better than the baseline."""
        better, worse = (self.measured, self.baseline) if self.higher_is_better else (self.baseline, self.measured)
        return better / worse if worse else float("inf")


def quick_requested(argv: Sequence[str] = sys.argv[1:]) -> bool:
    """Whether a benchmark was started as `python -m benchmarks.bench_NAME --quick` (its small sizes)."""
    return "--quick" in argv


def timings(function: Callable[[], object], repeat: int = 5, number: int = 1) -> list[float]:
    """`repeat` timings of `number` calls, each per call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        times.append((time.perf_counter() - start) / number)
    return times


def best_seconds(function: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """The fastest of `repeat` timings of `number` calls, per call: the least noisy estimate."""
    return min(timings(function, repeat, number))


def figure(samples: Sequence[float], *, higher_is_better: bool = False, quick: bool = False) -> tuple[float, float]:
    """The figure of several runs and their spread: a full run's best (the least disturbed), a quick
    run's median (a quick run compares with the last one: an unlucky or lucky single run must not move it)."""
    best = max(samples) if higher_is_better else min(samples)
    value = statistics.median(samples) if quick else best
    return value, (max(samples) - min(samples)) / value if value else 0.0


def publish(
    name: str,
    title: str,
    rows: list[Row],
    baseline_name: str,
    *,
    quick: bool = False,
    stages: dict[str, dict[str, float]] | None = None,
) -> None:
    """Print the table and save it as benchmarks/results/NAME.json (NAME.quick.json for a quick run);
    `stages`: where each case's time went (seconds by stage, per case), printed and saved beside."""
    print(f"\n{title}\n(baseline: {baseline_name}; ratio = how many times better than the baseline)")
    print(f"{'case':<46}{'measured':>12}{'baseline':>12}{'ratio':>10}  {'unit':<10}target")
    for row in rows:
        print(f"{row.case:<46}{row.measured:>12.4g}{row.baseline:>12.4g}{row.ratio:>9.1f}x  {row.unit:<10}{row.target}")
    for case, seconds in (stages or {}).items():
        print(f"\n{case}: seconds by stage")
        for stage, spent in sorted(seconds.items(), key=lambda item: -item[1]):
            print(f"  {stage:<44}{spent:>8.2f}")
    RESULTS.mkdir(exist_ok=True)
    payload = {
        "benchmark": name,
        "title": title,
        "baseline": baseline_name,
        "quick": quick,
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "rows": [{**asdict(row), "ratio": row.ratio} for row in rows],
        **({"stages": stages} if stages else {}),
    }
    saved = RESULTS / f"{name}{'.quick' if quick else ''}.json"
    saved.write_text(json.dumps(payload, indent=2))
    print(f"saved {saved}")
