"""What a betting system does to a session: its result's exact distribution, back-tested on shoes."""

from __future__ import annotations

import argparse
import json
import math
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING

from models.game.games import Game
from models.settings import DEFAULTS, Settings
from models.systems import lab
from models.systems.exact import TooLarge
from models.systems.rules import SYSTEMS, Limits
from models.warehouse import reader
from pipelines.commands import arguments
from pipelines.progress import Progress, bars

if TYPE_CHECKING:
    import polars as pl

WHERE = "banco systems"
#: Where each ceiling's measurement is written.
CEILINGS = "docs/systems.md#ceilings"
#: The files --plot writes: no runtime dependency renders Vega-Lite to SVG or PNG.
PLOTS = (".html", ".json")


def _amount(text: str) -> Decimal:
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not an amount: {text!r}") from None
    if not (amount.is_finite() and amount > 0):
        raise argparse.ArgumentTypeError(f"an amount is above 0, got {text}")
    return amount


def _system(text: str) -> str:
    if text not in SYSTEMS:
        raise argparse.ArgumentTypeError(f"unknown system {text!r}: choose one of {', '.join(SYSTEMS)}")
    return text


def _plot(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in PLOTS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the plot is written as .html (a page drawing the chart) or .json (its Vega-Lite spec)"
        )
    return path


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    defaults = Limits()
    parser.add_argument("--system", type=_system, required=True, help=f"one of {', '.join(SYSTEMS)}")
    parser.add_argument(
        "--bet",
        choices=lab.BETS,
        required=True,
        help="the bet the system backs (a pattern follower backs Banker or Player as its pattern calls: not tie)",
    )
    parser.add_argument("--unit", type=_amount, default=defaults.unit, help="the base stake (default %(default)s)")
    parser.add_argument("--bankroll", type=_amount, help="what the player brings (default: unlimited)")
    parser.add_argument("--goal", type=_amount, help="stop when the session is up this much (default: no goal)")
    parser.add_argument("--stop-loss", type=_amount, help="stop when the session is down this much (default: none)")
    parser.add_argument("--max-bet", type=_amount, default=settings.max_bet,
                        help=f"the table maximum (default: $BANCO_MAX_BET, else {DEFAULTS.max_bet})")  # fmt: skip
    parser.add_argument(
        "--min-bet", type=_amount, default=defaults.min_bet, help="the table minimum (default %(default)s)"
    )
    parser.add_argument(
        "--coups",
        type=arguments.whole(1, lab.MAX_COUPS, ceiling=CEILINGS),
        default=defaults.coups,
        help=f"the session's length in coups, ties included (default %(default)s, about a shoe; at most "
        f"{lab.MAX_COUPS:,})",
    )
    parser.add_argument("--game", type=arguments.game, default=Game.PUNTO_BANCO, help="default punto_banco")
    parser.add_argument("--decks", type=int, default=8, help="decks in the shoe, 1..8 (default 8)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--exact", action="store_true", help="the exact distribution alone (the default)")
    mode.add_argument(
        "--shoes",
        type=arguments.whole(1, lab.MAX_SHOES, ceiling=CEILINGS),
        help=f"back-test on N simulated shoes beside the exact distribution (at most {lab.MAX_SHOES:,})",
    )
    mode.add_argument(
        "--warehouse",
        action="store_true",
        help="back-test on the serving snapshot's shoes of the game and deck count beside the exact "
        f"distribution (pattern followers: with the calibration of every pattern; past {lab.MAX_SHOES:,} "
        "shoes, a fixed sample of that many)",
    )
    parser.add_argument("--max-states", type=arguments.whole(1, lab.MAX_STATES_CEILING, ceiling=CEILINGS),
                        default=lab.MAX_STATES, help="the exact chain's cap on live (state, result) pairs (default "
                        f"%(default)s, at most {lab.MAX_STATES_CEILING:,}; past it --exact stops, --shoes and "
                        "--warehouse show the back-test alone)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="the simulated shoes' seed (with --shoes; default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", type=_plot, help="write the distribution chart: FILE.html (a page that draws it, "
                        "loading Vega from its CDN) or FILE.json (the Vega-Lite spec)")  # fmt: skip
    parser.epilog = (
        "Every setting but the system and the bet has a default: `banco systems --system 1-3-2-6 --bet player` is a "
        "whole question. A progression the table maximum or the bankroll cuts short is lost: that coup's stake is the "
        "most allowed, and the system starts again after it."
    )


def run(args: argparse.Namespace) -> int:
    limits = Limits(
        unit=args.unit,
        bankroll=args.bankroll,
        goal=args.goal,
        stop_loss=args.stop_loss,
        max_bet=args.max_bet,
        min_bet=args.min_bet,
        coups=args.coups,
    )
    question = lab.Question(args.system, args.bet, limits, args.game, args.decks)
    with bars(args.json) as progress:
        summary, tested = _answer(args, question, progress)
    if args.plot:
        plotted = {**summary, "backtest_results": None if tested is None else tested["result"].to_list()}
        title = f"{question.system} on {question.bet}: how likely is each session result?"
        chart = lab.chart(plotted, title, Settings.from_env().currency)
        # an HTML page carries Vega's scripts itself (vl-convert's bundle): it opens with no network
        chart.save(str(args.plot), **({"inline": True} if args.plot.suffix.lower() == ".html" else {}))
    print(json.dumps(summary, indent=2, default=str) if args.json else render(summary))
    if args.plot:  # beside the one JSON object, not in it
        print(f"wrote {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _answer(args: argparse.Namespace, question: lab.Question, progress: Progress) -> tuple[dict, pl.DataFrame | None]:
    """The summary of the question's exact distribution and back-test, and the back-test's sessions."""
    tested, source, calibration = None, None, None
    if args.shoes:
        shoes = lab.simulated_shoes(args.shoes, args.seed, args.game, args.decks, progress)
        tested = lab.run_backtest(question, shoes, progress)
        source = f"{args.shoes} simulated shoes (seed {args.seed})"
    elif args.warehouse:
        progress("reading the warehouse's shoes", 0)
        shoes, held = warehouse_shoes(Path(args.db), args.game, args.decks)
        tested = lab.run_backtest(question, shoes, progress)
        sampled = f" (a fixed sample of its {held:,}: the ceiling)" if held > len(shoes) else ""
        source = f"{len(shoes)} shoes of the warehouse{sampled} ({args.game.value}, {args.decks} decks)"
        if question.follower:
            progress("calibrating the patterns", 0)
            calibration = lab.calibrate(shoes, args.game, args.decks)
    # one walk answers the session and the back-test's shorter shoes alike
    lengths = () if tested is None else set(tested["coups"].to_list()) - {question.limits.coups}
    try:
        walks = lab.exact_walks(question, args.max_states, lengths, progress)
        exact, note = walks[question.limits.coups], None
    except TooLarge as error:
        if tested is None:
            raise ValueError(f"{lab.too_large(error)}: back-test it instead with --shoes N (or --warehouse)") from None
        walks, exact, note = None, None, lab.omitted(error)
    summary = lab.summary(question, exact, tested, source, note, walks)
    if calibration is not None:
        summary["calibration"] = calibration.to_dicts()
    return summary, tested


def warehouse_shoes(db: Path, game: Game, decks: int, most: int = lab.MAX_SHOES) -> tuple[list[list[str]], int]:
    """The serving snapshot's shoes of `game` and `decks`, read-only as `banco sql` reads, and how many it
    holds: past `most`, a fixed sample of `most` (by a hash of their ids), in the same order."""
    sample = (
        f"SELECT *, count(*) OVER () AS held FROM ({lab.WAREHOUSE_SHOES.format(where='')}) "
        f"ORDER BY hash(table_id, shoe_id) LIMIT {int(most)}"
    )
    sql = f"SELECT outcomes, held FROM ({sample}) ORDER BY table_id, shoe_id"
    params = {"game": game.value, "decks": decks}
    frame = reader.run(db, sql, lambda r: r.pl(), where=WHERE, params=params, user=False)
    if frame.is_empty():
        raise ValueError(f"the warehouse at {db} holds no {game.value} shoe of {decks} decks")
    return [list(outcomes) for outcomes in frame["outcomes"].to_list()], int(frame["held"][0])


def _money(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:,.2f}"


def _percent(value: float | None) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value * 100:8.3f} %"


def _z(z: float | None) -> str:
    return "—" if z is None else "0.00" if abs(z) < 0.005 else f"{z:+.2f}"


def render(summary: dict) -> str:
    """The outcomes as a table for people."""
    limits, exact = summary["limits"], summary["exact"]
    said = " · ".join(
        f"{name.replace('_', ' ')} {'none' if value is None else value}"
        for name, value in limits.items()
        if name != "coups"
    )
    lines = [
        f"{summary['system']} on {summary['bet']} · {summary['game']} {summary['decks']} decks · "
        f"{limits['coups']} coups · {said}",
        "",
    ]
    tested = summary.get("backtest")
    header = f"{'the session':<22}" + (f"{'exact':>12}" if exact else "")
    if tested:
        header += f"{'back-test':>12}" + (f"{'z':>8}" if exact else "")
    lines.append(header)
    rows = {row["band"]: row for row in tested["bands"]} if tested else {}
    names = exact["bands"] if exact else rows
    for name in names:
        # beside a back-test, the exact share the back-test is tested against (for its shoes' lengths)
        beside = rows[name]["exact"] if tested and rows[name]["exact"] is not None else exact and exact["bands"][name]
        line = f"{name:<22}" + (f"{_percent(beside):>12}" if exact else "")
        if tested:
            line += f"{_percent(rows[name]['share']):>12}" + (f"{_z(rows[name]['z']):>8}" if exact else "")
        lines.append(line)
    if exact:
        lines += [
            "",
            f"{'expected result':<28}{_money(exact['expected_result']):>14}",
            f"{'expected bets':<28}{exact['expected_bets']:>14.2f}",
            f"{'expected amount wagered':<28}{_money(exact['expected_wagered']):>14}",
            f"{'house edge x action':<28}{_percent(exact['house_edge']).strip():>14} x "
            f"{_money(exact['expected_wagered'])} = {_money(exact['expected_loss'])} expected loss",
            f"{'P(goal)':<28}{_percent(exact['p_goal']):>14}",
            f"{'risk of ruin':<28}{_percent(exact['risk_of_ruin']):>14}",
        ]
    if tested:
        lines += [
            "",
            f"back-test on {tested['source']}: {tested['sessions']:,} sessions, mean result "
            f"{_money(tested['mean_result'])}, mean bets {tested['mean_bets']:.2f}, mean wagered "
            f"{_money(tested['mean_wagered'])}",
        ]
        if tested.get("exact_lengths") == "each shoe's own":
            lines.append("(shoes shorter than the session: the exact column beside them is for each shoe's length)")
    if "exact_omitted" in summary:
        lines += ["", f"note: {summary['exact_omitted']}"]
    if "calibration" in summary:
        lines += ["", "does the pattern predict? (its calls on the warehouse's shoes against the exact odds)", ""]
        lines.append(_rows(summary["calibration"]))
    return "\n".join(lines)


def _cell(value) -> str:
    if isinstance(value, float):
        return "—" if math.isnan(value) else f"{value:.4g}"
    return "—" if value is None else str(value)


def _rows(rows: list[dict]) -> str:
    """Rows of plain values as aligned columns, numbers on the right."""
    if not rows:
        return "  no pattern made a call"
    names = list(rows[0])
    cells = [[_cell(row[name]) for name in names] for row in rows]
    sizes = [max(len(name), *(len(row[i]) for row in cells)) for i, name in enumerate(names)]
    right = [isinstance(rows[0][name], int | float) for name in names]

    def line(values):
        return "  ".join(v.rjust(s) if r else v.ljust(s) for v, s, r in zip(values, sizes, right, strict=True))

    return "\n".join([line(names), *(line(row) for row in cells)])
