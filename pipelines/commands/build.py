"""Recompute the marts from the core tables and publish the serving snapshot."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from models.gaming_day import GamingDay
from models.metrics import staleness
from models.metrics.build import build
from models.metrics.config import MartConfig
from models.metrics.money import Rounding
from models.settings import DEFAULTS, Settings
from models.warehouse.store import WarehouseError
from pipelines.commands import arguments
from pipelines.progress import bars


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    day, usual = settings.gaming_day, DEFAULTS.gaming_day
    parser.add_argument("--timezone", default=day.timezone, help="the casino's time zone, for the gaming day "
                        f"(default: $BANCO_TIMEZONE, else {usual.timezone})")  # fmt: skip
    parser.add_argument("--day-start-hour", type=int, default=day.start_hour, help="local hour the gaming day "
                        f"starts (default: $BANCO_DAY_START_HOUR, else {usual.start_hour})")  # fmt: skip
    parser.add_argument("--rounding", choices=("exact", "down", "up"), default="exact", help="commission rounding")
    parser.add_argument("--unit", type=Decimal, default=Decimal("0.25"), help="chip unit for rounding down/up")
    parser.add_argument(
        "--day", type=arguments.date, action="append", dest="days", help="recompute only this gaming day (repeatable)"
    )
    parser.add_argument(
        "--every-day",
        action="store_true",
        help="recompute every gaming day, not only those a new row or a changed setting touched "
        "(the coups' exact edges are kept while their shoes are untouched)",
    )
    # the ratings' and dealer pace's settings come from the environment, as the Dagster assets read them
    parser.epilog = (
        f"Player ratings and dealer pace follow BANCO_SESSION_GAP_MINUTES ({settings.session_gap_minutes:g}), "
        f"BANCO_COMP_RATE ({settings.comp_rate}) and BANCO_PACE_BREAK_MINUTES ({settings.pace_break_minutes:g}); "
        f"surveillance BANCO_SURVEILLANCE_FDR ({settings.surveillance_fdr:g}), BANCO_MAX_BET ({settings.max_bet}) "
        f"and BANCO_SIDE_MAX ({settings.side_max}); the count room BANCO_COUNT_TOLERANCE "
        f"({'the smallest chip' if settings.count_tolerance is None else settings.count_tolerance}) and "
        f"BANCO_REPORT_RULES ({','.join(settings.report_rules)}). In brackets: the values in force."
    )


#: The exit status of a build that published the marts but held table-days back from them (a build
#: that failed as a whole, or was refused, exits 2: nothing was published).
HELD_BACK = 1


def run(args: argparse.Namespace) -> int:
    settings = replace(args.settings, gaming_day=GamingDay(args.timezone, args.day_start_hour))
    config = MartConfig.from_settings(settings, rounding=Rounding(args.rounding, args.unit))
    db = Path(args.db)
    try:
        with bars() as progress:
            built = build(db, config, days=args.days, every_day=args.every_day, progress=progress)
    except WarehouseError:  # a warehouse that cannot be built as asked: the command line's one line
        raise
    except Exception as error:  # noted beside the warehouse, with its traceback, for readers to show
        print(f"banco: error: {staleness.failed_line(db, error)}", file=sys.stderr)
        return 2
    print(summary(built))
    if built:
        print(
            f"built {len(built)} marts: "
            + ", ".join(f"{name.removeprefix('marts.')} {count:,}" for name, count in built.items())
        )
    for held in built.held_back:
        print(f"banco: warning: {staleness.held_back_line(*held)}", file=sys.stderr)
    return HELD_BACK if built.held_back else 0


def summary(built) -> str:
    """What a build computed and what it kept, in one line."""
    days = f"{len(built.computed)} gaming day{'' if len(built.computed) == 1 else 's'}"
    if not built.computed:
        return f"nothing new since the last build: kept the marts of all {len(built.reused)} gaming days"
    why = f" ({built.why})" if built.why else ""
    kept = f"; kept {len(built.reused)} days as built" if built.reused else ""
    edges = f"; kept the exact edges of {built.kept_edges:,} coups" if built.kept_edges else ""
    return f"computed {days}{why}{kept}{edges}"
