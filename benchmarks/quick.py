"""`banco bench --quick`: every benchmark at its small size, each figure beside its target and the figure last
recorded in benchmarks/expected.json, and what fell behind by more than the machine's noise marked.

Run as `python -m benchmarks.quick [NAME...] [--record] [--strict]`. Each benchmark runs in a process of its
own (`python -m benchmarks.bench_NAME --quick`, which saves benchmarks/results/NAME.quick.json); `--record`
writes the new figures into expected.json; `--strict` exits 1 when a figure fell behind (a benchmark that
fails exits 1 always).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.report import RESULTS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXPECTED = HERE / "expected.json"
#: A figure is behind when it is worse than the recorded one by more than this share, or by more than the
#: spread of the repeats it sums up (now or when recorded) where that is larger. The same code moved 10 to
#: 30 % between runs of one afternoon on this shared 2-core machine (docs/benchmarks-history.md, ingest).
TOLERANCE = 0.25
#: Past this a benchmark counts as failed (a quick run takes seconds to a minute or two).
TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class Figure:
    """One row of a quick run, as its benchmark saved it."""

    key: str
    case: str
    value: float
    unit: str
    higher_is_better: bool
    target: str = ""
    spread: float = 0.0

    @classmethod
    def of(cls, row: dict) -> Figure:
        case = row["case"]  # an indented case is a part of the row above it, printed so
        return cls(row.get("key") or case.strip(), case, row["measured"], row["unit"], row["higher_is_better"],
                   row.get("target", ""), row.get("spread", 0.0))  # fmt: skip


def names() -> list[str]:
    """Every benchmark: benchmarks/bench_NAME.py."""
    return sorted(path.stem.removeprefix("bench_") for path in HERE.glob("bench_*.py"))


def factor(figure: Figure, recorded: dict) -> float:
    """How many times worse than recorded the figure is (below 1: better), whichever way is better."""
    now, then = figure.value, recorded["figure"]
    if now == then:
        return 1.0
    worse, better = (then, now) if figure.higher_is_better else (now, then)
    return worse / better if better else math.inf


def noise(figure: Figure, recorded: dict) -> float:
    """The share by which a figure may move before it counts: TOLERANCE, or the wider spread of its repeats."""
    return max(TOLERANCE, figure.spread, recorded.get("spread", 0.0))


def verdict(figure: Figure, recorded: dict | None) -> str:
    """Behind (worse than recorded beyond the noise), ahead (better beyond it), ok, or new (nothing recorded)."""
    if recorded is None:
        return "new"
    times = factor(figure, recorded)
    if times > 1 + noise(figure, recorded):
        return "behind"
    return "ahead" if times < 1 / (1 + noise(figure, recorded)) else "ok"


def change(figure: Figure, recorded: dict | None) -> str:
    if recorded is None:
        return ""
    times = factor(figure, recorded)
    if f"{times:.2f}" == "1.00":  # the recorded figure keeps 4 digits
        return "same"
    return f"{times:.2f}x worse" if times > 1 else f"{1 / times:.2f}x better"


def run(name: str) -> tuple[list[Figure], dict]:
    """Run bench_NAME at its quick size in a process of its own; its figures, and the run's wall time and
    the machine's load average before and after. Raises RuntimeError with its output's end when it fails."""
    saved = RESULTS / f"{name}.quick.json"
    saved.unlink(missing_ok=True)
    load, started = os.getloadavg()[0], time.perf_counter()
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    try:
        done = subprocess.run(
            [sys.executable, "-m", f"benchmarks.bench_{name}", "--quick"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": path}, capture_output=True, text=True,
            timeout=TIMEOUT_SECONDS,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"took longer than {TIMEOUT_SECONDS} s") from None
    if done.returncode != 0 or not saved.exists():
        raise RuntimeError((done.stdout + done.stderr)[-3000:])
    figures = [Figure.of(row) for row in json.loads(saved.read_text())["rows"]]
    keys = [figure.key for figure in figures]
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"two rows share a case: {sorted(key for key in keys if keys.count(key) > 1)}")
    run = {"seconds": time.perf_counter() - started, "load": [round(load, 1), round(os.getloadavg()[0], 1)]}
    return figures, run


def table(figures: list[Figure], recorded: dict) -> list[str]:
    """The printed lines: each figure beside the recorded one and its target, with its verdict."""
    cases = recorded.get("cases", {})
    lines = [f"  {'case':<54}{'measured':>20}  {'expected':>20}  {'change':<14}{'target (full size)':<22}verdict"]
    for figure in figures:
        then = cases.get(figure.key)
        expected = f"{_number(then['figure'])} {then['unit']}" if then else "-"
        lines.append(
            f"  {figure.case[:53]:<54}{f'{_number(figure.value)} {figure.unit}':>20}  {expected:>20}  "
            f"{change(figure, then):<14}{figure.target[:21]:<22}{verdict(figure, then)}"
        )
    gone = sorted(set(cases) - {figure.key for figure in figures})
    lines += [f"  {key[:53]:<54}{'not measured':>20}" for key in gone]
    return lines


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def entry(figures: list[Figure], run: dict, commit: str) -> dict:
    """What expected.json keeps of a benchmark's quick run."""
    return {
        "recorded": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "load": run["load"],
        "seconds": round(run["seconds"], 1),
        "cases": {
            figure.key: {
                "case": figure.case,
                "figure": float(f"{figure.value:.4g}"),
                "unit": figure.unit,
                "better": "higher" if figure.higher_is_better else "lower",
                "target": figure.target,
                "spread": round(figure.spread, 3),
            }
            for figure in figures
        },
    }


def commit() -> str:
    """The checked-out commit, marked when the tree has changes beside it."""
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    changed = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
    return f"{head or 'unknown'}{'+changes' if changed.stdout.strip() else ''}"


ABOUT = (
    "The figures `banco bench --quick` compares with: each benchmark's last recorded quick run "
    "(benchmarks/quick.py, docs/benchmarks.md). `banco bench --quick --record [NAME...]` rewrites them."
)


def load_expected(path: Path = EXPECTED) -> dict:
    return json.loads(path.read_text()) if path.exists() else {"about": ABOUT, "benchmarks": {}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.quick", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="benchmarks (default: all)")
    parser.add_argument("--record", action="store_true", help="write the new figures into expected.json")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a figure fell behind")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(names()))
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}: choose from {', '.join(names())}")
    expected, here = load_expected(), commit()
    started, cpu = time.perf_counter(), _children_cpu()
    load = f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores: above that, contention)"
    print(f"banco bench --quick at {here}, {load}")
    print(f"behind: worse than expected by more than {TOLERANCE:.0%} or the spread of its repeats, if wider")
    behind, failed, loads = [], [], [os.getloadavg()[0]]
    for name in args.names or names():
        print(f"\n{name} ...", end="", flush=True)
        try:
            figures, measured = run(name)
        except RuntimeError as error:
            failed.append(name)
            print(f" FAILED\n{error}")
            continue
        recorded = expected["benchmarks"].get(name, {})
        since = f"expected: {recorded['recorded']}, {recorded['commit']}" if recorded else "nothing recorded yet"
        print(f" {measured['seconds']:.0f} s, load {measured['load'][0]} to {measured['load'][1]}; {since}")
        print("\n".join(table(figures, recorded)))
        cases, loads = recorded.get("cases", {}), [*loads, *measured["load"], *recorded.get("load", [])]
        behind += [f"{name}: {f.case}" for f in figures if verdict(f, cases.get(f.key)) == "behind"]
        if args.record:
            expected["benchmarks"][name] = entry(figures, measured, here)
    print(
        f"\n{time.perf_counter() - started:.0f} s, {_children_cpu() - cpu:.0f} CPU-s in every process; "
        f"load average now {os.getloadavg()[0]:.1f}"
    )
    print(f"{len(behind)} behind" + (": " + "; ".join(behind) if behind else ""))
    if behind and max(loads) > (os.cpu_count() or 1):
        print(f"(load average up to {max(loads):.1f} on {os.cpu_count()} cores, now or when recorded: "
              "run again on a quieter machine before reading a figure behind as a loss)")  # fmt: skip
    if failed:
        print(f"failed: {', '.join(failed)}")
    if args.record:
        expected["benchmarks"] = dict(sorted(expected["benchmarks"].items()))
        EXPECTED.write_text(json.dumps(expected, indent=2) + "\n")
        print(f"recorded in {EXPECTED.relative_to(ROOT)}")
    return 1 if failed or (args.strict and behind) else 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
