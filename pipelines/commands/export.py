"""Write the serving snapshot as a folder that opens anywhere (DuckDB file, data files, README)."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from models.settings import Settings
from pipelines.commands import arguments

#: --days takes FROM..TO, FROM.., ..TO or one DAY.
RANGE = ".."


def days(text: str) -> tuple[dt.date | None, dt.date | None]:
    """A range of gaming days, either end open: `2026-11-01..2026-11-07`, `2026-11-01..`, `..2026-11-07`
    or one day, `2026-11-03`."""
    first, sep, last = text.strip().partition(RANGE)
    if not sep:
        day = arguments.date(first)
        return day, day
    if not first and not last:
        raise argparse.ArgumentTypeError(f"a range of gaming days FROM..TO names at least one end, got {text!r}")
    span = (arguments.date(first) if first else None, arguments.date(last) if last else None)
    if span[0] and span[1] and span[0] > span[1]:
        raise argparse.ArgumentTypeError(f"the range goes backwards: {span[0]} is after {span[1]}")
    return span


def tables(text: str) -> tuple[str, ...]:
    """Table ids, comma-separated: `T01,T02`."""
    named = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if not named:
        raise argparse.ArgumentTypeError(f"table ids, comma-separated (e.g. T01,T02), got {text!r}")
    return named


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("folder", type=Path, metavar="DIR", help="the folder to write: a new one, or empty")
    parser.add_argument("--days", type=days, metavar="FROM..TO", help="only these gaming days (FROM..TO, FROM.., "
                        "..TO or one DAY, as YYYY-MM-DD)")  # fmt: skip
    parser.add_argument("--tables", type=tables, metavar="T01,T02", help="only these tables (table ids)")
    parser.epilog = (
        "DIR gets banco.duckdb (the marts as tables; views, with the warehouse's names, over the Parquet files "
        "copied into DIR/data/), and README.md saying what is in it and how to open it: `cd DIR && duckdb "
        "-readonly banco.duckdb` (DuckDB 1.4 or later). See docs/warehouse.md."
    )


def run(args: argparse.Namespace) -> int:
    from models.warehouse.export import cut, folder

    first, last = args.days or (None, None)
    chosen = cut.Cut(first, last, args.tables or ())
    written = folder.write(Path(args.db), args.folder, chosen, args.settings.gaming_day)
    relations = len(written.rows) + len(written.other_views)
    print(
        f"wrote {written.folder}: {folder.FILE} ({relations} tables and views, {sum(written.rows.values()):,} rows) "
        f"and {written.files} data files, {_size(written.size())}"
    )
    return 0


def _size(size: float) -> str:
    if size < 1000:
        return f"{size:.0f} bytes"
    for unit in ("kB", "MB", "GB", "TB"):
        size /= 1000
        if size < 1000 or unit == "TB":
            break
    return f"{size:.1f} {unit}"
