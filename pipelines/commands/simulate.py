"""Write simulated shoes as round logs (rounds and bets) in the documented format."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from models.contract import latest
from models.game.games import Game
from models.game.tableau import DrawPolicy
from models.gametheory.strategy import SOLUTIONS
from models.settings import DEFAULTS, Settings
from models.simulate.config import MAX_ADVANTAGE_SHOES, MAX_SEATS, MAX_SHOES, MAX_TABLES, Population, Simulation
from models.simulate.output import FORMATS
from models.simulate.run import write_simulation
from models.warehouse.shards import MAX_SHARDS, Sharding
from pipelines.commands import arguments
from pipelines.progress import bars

#: Strategy players of each kind at most: they are a handful to be found, not a crowd.
MAX_STRATEGY_PLAYERS = 100
#: Where each ceiling's measurement is written.
CEILINGS = "docs/simulator.md#ceilings"


def _rate(text: str) -> float:
    return arguments.fraction(text, "a rate")


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("--shoes", type=arguments.whole(high=MAX_SHOES, ceiling=CEILINGS), required=True,
                        help=f"shoes to deal in all (at most {MAX_SHOES:,}; {MAX_ADVANTAGE_SHOES:,} with advantage "
                        "players)")  # fmt: skip
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument(
        "--game",
        type=arguments.games,
        default=(Game.PUNTO_BANCO,),
        help="game, or games separated by commas (tables take them in turn)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", type=arguments.whole(high=MAX_TABLES, ceiling=CEILINGS), default=4,
                        help=f"tables dealing side by side (default %(default)s, at most {MAX_TABLES:,})")  # fmt: skip
    parser.add_argument("--start", type=arguments.date, default=dt.date(2026, 11, 1), help="first gaming day")
    parser.add_argument("--shoes-per-day", type=int, default=10, help="per table")
    parser.add_argument("--seats", type=int, default=7, help=f"seats per table, 1..{MAX_SEATS}")
    day, usual = settings.gaming_day, DEFAULTS.gaming_day
    parser.add_argument("--timezone", default=day.timezone, help="the tables' time zone, an IANA name "
                        f"(default: $BANCO_TIMEZONE, else {usual.timezone})")  # fmt: skip
    parser.add_argument("--day-start-hour", type=int, default=day.start_hour, help="local hour each gaming day's "
                        f"play opens (default: $BANCO_DAY_START_HOUR, else {usual.start_hour})")  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="folder for the files")
    parser.add_argument("--format", choices=FORMATS, default="parquet")
    parser.add_argument("--no-bets", action="store_true", help="rounds only")
    parser.add_argument(
        "--misdeal-rate", type=_rate, default=0.0, help="fraction of coups given a labelled fault (see faults_* files)"
    )
    parser.add_argument(
        "--no-table-events",
        action="store_true",
        help="write no table events (the count room's openers, closers, fills, credits, drops and markers)",
    )
    parser.add_argument(
        "--count-fault-rate",
        type=_rate,
        default=0.0,
        help="share of table-shifts given one count fault (short fill, missing credit slip, walked chips, "
        "overpaid wager), labelled in _faults/count_faults_* (default 0)",
    )
    parser.add_argument(
        "--advantage-share",
        type=_rate,
        default=0.0,
        help="share of the players who are advantage players: card counters, perfect players and wongers, "
        "labelled in _players/ (default 0: none)",
    )
    parser.add_argument(
        "--punter-on-5",
        type=arguments.draw_or_equilibrium,
        default=1.0,
        help="chemin_de_fer / baccarat_banque punter on 5: draw, stand, mixed, a probability, or equilibrium "
        "(the solved game's play by his two cards; default draw)",
    )
    parser.add_argument(
        "--banker-optional",
        type=arguments.draw_or_equilibrium,
        default=None,
        help="the banker's optional cells: draw, stand, mixed, a probability, or equilibrium (default: as Punto Banco)",
    )
    parser.add_argument(
        "--banque-solution",
        choices=SOLUTIONS,
        default=SOLUTIONS[0],
        help="baccarat_banque's equilibrium: Ethier and Lee's nash, independent or correlated (default nash)",
    )
    parser.add_argument(
        "--strategy-players",
        type=arguments.whole(0, MAX_STRATEGY_PLAYERS),
        default=0,
        help="this many players of each strategy kind: always draws on 5, always stands on 5, plays the "
        "equilibrium, labelled in _players/ (default 0: none)",
    )
    parser.add_argument(
        "--shards",
        type=_shards,
        default=None,
        help="write each chunk's rounds and bets as one file pair per shard of tables (_s0, _s1, ...), "
        f"for each shard's worker to ingest its own (at most {MAX_SHARDS}); default: one pair a chunk",
    )


def _shards(text: str) -> int:
    value = arguments.whole(high=MAX_SHARDS, ceiling=CEILINGS)(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"shards are 1 or more, got {text}")
    return value


def check_ceilings(args: argparse.Namespace) -> None:
    """The ceiling that joins two arguments: with advantage players, fewer shoes (one line past it)."""
    if args.advantage_share > 0 and args.shoes > MAX_ADVANTAGE_SHOES:
        raise ValueError(
            f"argument --shoes: at most {MAX_ADVANTAGE_SHOES:,} with advantage players (the ceiling: {CEILINGS}), "
            f"got {args.shoes:,}"
        )


def run(args: argparse.Namespace) -> int:
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out} is a file: name a folder for the round logs")
    check_ceilings(args)
    sim = Simulation(
        shoes=args.shoes,
        seed=args.seed,
        decks=args.decks,
        games=args.game,
        tables=args.tables,
        start=args.start,
        shoes_per_day=args.shoes_per_day,
        timezone=args.timezone,
        day_start_hour=args.day_start_hour,
        bets=not args.no_bets,
        population=Population(
            seats=args.seats, advantage_share=args.advantage_share, strategy_players=args.strategy_players
        ),
        policy=DrawPolicy(
            punter_on_5=1.0 if args.punter_on_5 == arguments.EQUILIBRIUM else args.punter_on_5,
            banker_optional=None if args.banker_optional == arguments.EQUILIBRIUM else args.banker_optional,
        ),
        punter_equilibrium=args.punter_on_5 == arguments.EQUILIBRIUM,
        banker_equilibrium=args.banker_optional == arguments.EQUILIBRIUM,
        banque_solution=args.banque_solution,
    )
    sharding = Sharding(args.shards) if args.shards else None
    with bars() as progress:
        summary = write_simulation(
            sim,
            args.out,
            args.format,
            args.misdeal_rate,
            progress=progress,
            sharding=sharding,
            events=not args.no_table_events,
            count_fault_rate=args.count_fault_rate,
        )
    print(f"{summary.line()} -> {args.out}")
    _past_tomorrow(sim)
    return 0


def _past_tomorrow(sim: Simulation) -> None:
    """Warn when the shoes run past the window an ingest takes (docs/round-log-format.md#bounds-and-windows)."""
    last = sim.start + dt.timedelta(days=sim.days - 1)
    if dt.datetime.combine(last, dt.time(), dt.UTC) > latest():
        print(
            f"banco simulate: warning: the last gaming day, {last}, is past tomorrow: an ingest today quarantines "
            "its rows as bad_type (a time past a day after the ingest); give an earlier --start",
            file=sys.stderr,
        )
