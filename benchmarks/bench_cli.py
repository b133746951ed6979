"""The command line's answer time, start to exit (issue #34): `banco --help`, `banco sql "SELECT 1"` on a small
warehouse, and `banco odds` with its odds kept and worked out afresh, against the interpreter starting alone.

Each command runs as a user runs it, the installed console script in a process of its own (`PYTHONPATH` as
given, so `--against` times each revision's own code). What each loads is tests/pipelines/test_cli_imports.py's.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.report import Row, figure, publish, quick_requested

BANCO = str(Path(sys.executable).with_name("banco"))
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "01_rounds_suited.csv"
TARGET = "< 1 s (#34)"


def seconds(*argv: str) -> float:
    """Wall-clock seconds of one run of `argv`, which must succeed."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start


def main(quick: bool = False) -> None:
    """Every command five times: a full run's best, a quick run's median (the same runs: each takes well
    under a second)."""
    repeat = 5
    with tempfile.TemporaryDirectory(prefix="banco-bench-cli-") as folder:
        db = str(Path(folder) / "banco.duckdb")
        subprocess.run([BANCO, "ingest", "--db", db, str(SAMPLE)], check=True, capture_output=True)
        subprocess.run([BANCO, "odds"], check=True, capture_output=True)  # the odds kept (and the caches warm)
        # a commission no earlier run asked for: the odds worked out, the compiled kernel loaded from its cache
        fresh = iter(f"0.05{time.time_ns()}{i}" for i in range(repeat))
        cases = [
            ("banco --help", lambda: seconds(BANCO, "--help")),
            ('banco sql "SELECT 1"', lambda: seconds(BANCO, "sql", "--db", db, "SELECT 1")),
            ("banco odds (kept)", lambda: seconds(BANCO, "odds")),
            ("banco odds (worked out, kernel cached)", lambda: seconds(BANCO, "odds", "--commission", next(fresh))),
        ]
        interpreter = min(seconds(sys.executable, "-c", "pass") for _ in range(repeat))
        rows = []
        for name, run in cases:
            value, spread = figure([run() for _ in range(repeat)], quick=quick)
            rows.append(Row(name, value, interpreter, "s", TARGET, spread=spread))
    publish("cli", "The command line's answer time, start to exit", rows, "the interpreter alone (python -c pass)",
            quick=quick)  # fmt: skip


if __name__ == "__main__":
    main(quick_requested())
