"""Ingest round-log files or folders; print accepted, quarantined (by reason), duplicate and failed counts."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from models.warehouse.ingest import ingest


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, help="round-log files or folders")


def run(args: argparse.Namespace) -> int:
    results = ingest(Path(args.db), args.paths)
    read = sum(r.rows_read for r in results)
    accepted = sum(r.accepted for r in results)
    duplicates = sum(r.duplicates for r in results)
    quarantined = sum((r.quarantined for r in results), Counter())
    failed = [r for r in results if r.status == "failed"]
    skipped = [r for r in results if r.status == "skipped"]
    print(
        f"{len(results)} files ({len(skipped)} already ingested, {len(failed)} failed): "
        f"{read:,} rows read, {accepted:,} accepted, {sum(quarantined.values()):,} quarantined, "
        f"{duplicates:,} duplicates"
    )
    for reason, count in sorted(quarantined.items()):
        print(f"  quarantined {reason}: {count:,}")
    for result in failed:
        print(f"  failed {result.path}: {result.error}")
    return 1 if failed else 0
