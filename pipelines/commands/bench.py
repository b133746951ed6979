"""Run the benchmark suite: each prints its table and saves JSON under benchmarks/results/."""

from __future__ import annotations

import argparse
import runpy
from pathlib import Path

from models.settings import Settings

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("names", nargs="*", help="benchmarks to run, e.g. odds (default: all)")
    parser.add_argument(
        "--against",
        metavar="REVISION",
        help="also run each at this git revision first (a worktree) and print the two side by side",
    )


def run(args: argparse.Namespace) -> int:
    available = {path.stem.removeprefix("bench_"): path for path in sorted(BENCHMARKS.glob("bench_*.py"))}
    unknown = sorted(set(args.names) - set(available))
    if unknown:
        raise ValueError(f"unknown benchmark {', '.join(unknown)}: choose from {', '.join(available)}")
    for name in args.names or available:
        if args.against:
            from benchmarks.side_by_side import compare

            compare(name, args.against)
        else:
            runpy.run_path(str(available[name]), run_name="__main__")
    return 0
