"""Shared shape of every benchmark's output: a table with baseline and ratio, saved as JSON."""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Row:
    case: str
    measured: float
    baseline: float
    unit: str
    target: str = ""
    higher_is_better: bool = False  # throughputs; times and memory are lower-is-better

    @property
    def ratio(self) -> float:
        """How many times better than the baseline."""
        better, worse = (self.measured, self.baseline) if self.higher_is_better else (self.baseline, self.measured)
        return better / worse if worse else float("inf")


def best_seconds(function: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """The fastest of `repeat` timings of `number` calls, per call: the least noisy estimate."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        times.append((time.perf_counter() - start) / number)
    return float(np.min(times))


def publish(name: str, title: str, rows: list[Row], baseline_name: str) -> None:
    """Print the table and save it as benchmarks/results/NAME.json."""
    print(f"\n{title}\n(baseline: {baseline_name}; ratio = how many times better than the baseline)")
    print(f"{'case':<46}{'measured':>12}{'baseline':>12}{'ratio':>10}  {'unit':<10}target")
    for row in rows:
        print(f"{row.case:<46}{row.measured:>12.4g}{row.baseline:>12.4g}{row.ratio:>9.1f}x  {row.unit:<10}{row.target}")
    RESULTS.mkdir(exist_ok=True)
    payload = {
        "benchmark": name,
        "title": title,
        "baseline": baseline_name,
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "rows": [{**asdict(row), "ratio": row.ratio} for row in rows],
    }
    (RESULTS / f"{name}.json").write_text(json.dumps(payload, indent=2))
    print(f"saved {RESULTS / f'{name}.json'}")
