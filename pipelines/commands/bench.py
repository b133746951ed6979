"""Run the benchmark suite: each prints its table and saves JSON under benchmarks/results/."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from models.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("names", nargs="*", help="benchmarks to run, e.g. odds (default: all)")
    parser.add_argument(
        "--against",
        metavar="REVISION",
        help="also run each at this git revision first (a worktree) and print the two side by side",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="each at a small size, beside its target and the figure recorded in benchmarks/expected.json",
    )
    parser.add_argument("--record", action="store_true", help="with --quick: write the new figures as expected")
    parser.add_argument("--strict", action="store_true", help="with --quick: exit 1 when a figure fell behind")


def run(args: argparse.Namespace) -> int:
    available = [path.stem.removeprefix("bench_") for path in sorted(BENCHMARKS.glob("bench_*.py"))]
    unknown = sorted(set(args.names) - set(available))
    if unknown:
        raise ValueError(f"unknown benchmark {', '.join(unknown)}: choose from {', '.join(available)}")
    if (args.record or args.strict) and not args.quick:
        raise ValueError("--record and --strict go with --quick")
    if args.quick and args.against:
        raise ValueError("--quick compares with benchmarks/expected.json, --against with a revision: choose one")
    names = args.names or available
    if args.quick:
        flags = [flag for flag, given in (("--record", args.record), ("--strict", args.strict)) if given]
        return _python("benchmarks.quick", *names, *flags)
    for name in names:
        argv = ("benchmarks.side_by_side", name, args.against) if args.against else (f"benchmarks.bench_{name}",)
        status = _python(*argv)
        if status:
            return status
    return 0


def _python(module: str, *argv: str) -> int:
    """`python -m MODULE ARGV` from the checkout, with it first on the path: the benchmarks are run by
    name, never imported here (they import the pipelines, not the other way round)."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run([sys.executable, "-m", module, *argv], cwd=ROOT, env=env).returncode
