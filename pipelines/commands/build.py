"""Recompute the marts from the core tables and publish the serving snapshot."""

from __future__ import annotations

import argparse
from decimal import Decimal
from pathlib import Path

from models.metrics.build import MartConfig, build
from models.metrics.gaming_day import GamingDay
from models.metrics.money import Rounding
from pipelines.commands import arguments
from pipelines.settings import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--timezone", default="UTC", help="the casino's time zone, for the gaming day")
    parser.add_argument("--day-start-hour", type=int, default=6, help="local hour the gaming day starts (default 6)")
    parser.add_argument("--rounding", choices=("exact", "down", "up"), default="exact", help="commission rounding")
    parser.add_argument("--unit", type=Decimal, default=Decimal("0.25"), help="chip unit for rounding down/up")
    parser.add_argument(
        "--day", type=arguments.date, action="append", dest="days", help="recompute only this gaming day (repeatable)"
    )
    # the ratings' and dealer pace's settings come from the environment, as the Dagster assets read them
    parser.epilog = (
        "Player ratings and dealer pace follow BANCO_SESSION_GAP_MINUTES (30), BANCO_COMP_RATE (0) and "
        "BANCO_PACE_BREAK_MINUTES (10); surveillance BANCO_SURVEILLANCE_FDR (0.05), BANCO_MAX_BET (5000) "
        "and BANCO_SIDE_MAX (500); the count room BANCO_COUNT_TOLERANCE (the smallest chip) and "
        "BANCO_REPORT_RULES (maryland)."
    )


def run(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    config = MartConfig(
        day=GamingDay(args.timezone, args.day_start_hour),
        rounding=Rounding(args.rounding, args.unit),
        session_gap=settings.session_gap_minutes,
        comp_rate=settings.comp_rate,
        pace_break_minutes=settings.pace_break_minutes,
        surveillance_fdr=settings.surveillance_fdr,
        max_bet=settings.max_bet,
        side_max=settings.side_max,
        count_tolerance=settings.count_tolerance,
        report_rules=settings.report_rules,
    )
    rows = build(Path(args.db), config, days=args.days)
    print(
        f"built {len(rows)} marts: "
        + ", ".join(f"{name.removeprefix('marts.')} {count:,}" for name, count in rows.items())
    )
    return 0
