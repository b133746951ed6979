"""Ingest round-log files or folders; print accepted, quarantined (by reason), duplicate and failed counts."""

from __future__ import annotations

import argparse
from pathlib import Path

from models.settings import Settings
from models.warehouse.ingest import Summary, ingest
from pipelines.progress import bars


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("paths", nargs="+", type=Path, help="round-log files or folders")


def run(args: argparse.Namespace) -> int:
    with bars() as progress:
        summary = Summary.of(ingest(Path(args.db), args.paths, progress=progress))
    print("\n".join(summary.lines()))
    return 1 if summary.failed else 0
