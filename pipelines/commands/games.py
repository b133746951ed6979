"""The classic games solved: each side's equilibrium strategy as a table to carry, and the value."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from models.settings import Settings

MAX_COMMISSION = Fraction(1, 10)  # Ethier and Lee (2023) study 0 <= alpha <= 1/10
_NOT_GIVEN = 0  # --decks left out: 6 decks, the papers' shoe; A1 is endless either way


def _decks(text: str) -> int | None:
    if text.strip().lower() in ("inf", "infinity"):
        return None
    from pipelines.commands.arguments import whole

    return whole(1, 8)(text)


def _commission(text: str) -> Fraction:
    try:
        value = Fraction(Decimal(text))
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= MAX_COMMISSION:
        raise argparse.ArgumentTypeError(f"commission must be from 0 to 0.1, got {text}")
    return value


def _theta(text: str) -> Fraction:
    from models.gametheory.banque import parse_theta

    try:
        return parse_theta(text)
    except (ValueError, ZeroDivisionError) as error:
        raise argparse.ArgumentTypeError(
            str(error) if isinstance(error, ValueError) else f"not a share: {text}"
        ) from None


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    solve = actions.add_parser("solve", help="each side's equilibrium strategy and the value")
    solve.add_argument("--game", default="chemin_de_fer", choices=list(GAMES),
                       help=f"one of {', '.join(GAMES)} (default chemin_de_fer)")  # fmt: skip
    solve.add_argument("--model", default="B3", type=str.upper, choices=["A1", "B2", "B3"],
                       help="A1: endless shoe, totals seen; B2: Banker sees his cards; B3: both (default)")  # fmt: skip
    solve.add_argument("--decks", type=_decks, default=_NOT_GIVEN,
                       help="decks, 1..8, or inf for an endless shoe (default 6; A1 is endless)")  # fmt: skip
    solve.add_argument("--commission", type=_commission, default=Fraction(0),
                       help="commission on Banker's wins, 0..0.1 (default 0, the parlour game)")  # fmt: skip
    solve.add_argument("--theta", type=_theta, default=Fraction(1, 2),
                       help="Baccarat Banque: Player 1's share of the stakes, strictly between 0 and 1, e.g. 1/2 or "
                       "0.75 (default 1/2)")  # fmt: skip
    solve.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    solved, show = GAMES[args.game]
    summary = solved(args)
    print(json.dumps(summary, indent=2) if args.json else show(summary))
    return 0


def _chemin_de_fer(args: argparse.Namespace) -> dict[str, Any]:
    from models.gametheory.models import Model
    from models.gametheory.summary import solved

    model = Model.parse(args.model)
    if model is Model.A1 and args.decks not in (None, _NOT_GIVEN):
        raise ValueError("model A1 deals from an endless shoe: leave out --decks or give inf")
    decks = 6 if args.decks == _NOT_GIVEN else args.decks
    return solved(model, None if model is Model.A1 else decks, args.commission)


def _baccarat_banque(args: argparse.Namespace) -> dict[str, Any]:
    from models.gametheory.banque import solve_banque

    return solve_banque(args.theta).to_json()


def _banque_text(summary: dict[str, Any]) -> str:
    from models.gametheory.banque import render as banque

    return banque(summary)


def _cell(p: float) -> str:
    return "D" if p == 1 else "S" if p == 0 else f"{p:.3f}"


def _banker_lines(banker: list[dict[str, Any]]) -> list[str]:
    """One row a total (the most common play among its hands); hands that play otherwise beneath it."""
    columns = list(banker[0]["draw"])
    lines = [f"{'Banker':<9}" + "".join(f"{name:>7}" for name in columns)]
    for hand_total in sorted({row["total"] for row in banker}):
        rows = [row for row in banker if row["total"] == hand_total]
        cells = [tuple(_cell(p) for p in row["draw"].values()) for row in rows]
        usual = max(set(cells), key=cells.count)
        lines.append(f"{hand_total:<9}" + "".join(f"{cell:>7}" for cell in usual))
        lines += [f"{'  ' + row['hand']:<9}" + "".join(f"{cell:>7}" for cell in own)
                  for row, own in zip(rows, cells, strict=True) if own != usual]  # fmt: skip
    return lines


def render(summary: dict[str, Any]) -> str:
    """The strategies as tables a player could carry."""
    decks = "endless shoe" if summary["decks"] == "inf" else f"{summary['decks']} decks"
    lines = [
        f"Chemin de Fer, model {summary['model']} · {decks} · commission {float(Fraction(summary['commission'])):.4g}",
        "",
        "Player (punter): draw on 0-4, stand on 6-7; on 5:",
    ]
    for hand in summary["player"]:
        play = "draw" if hand["draw"] == 1 else "stand" if hand["draw"] == 0 else f"draw with p = {hand['exact']}"
        mixed = f" ({hand['draw']:.4f})" if 0 < hand["draw"] < 1 else ""
        lines.append(f"  {hand['hand']:<6}{play}{mixed}")
    lines += ["", "Banker: D draw, S stand, p the probability of drawing; columns: Player's third card, or stood", ""]
    lines += _banker_lines(summary["banker"])
    lines += ["", f"Player's expectation {summary['player_value']:+.7f} ({summary['player_value_exact']})",
              f"Banker's expectation {summary['banker_value']:+.7f} (net of commission)"]  # fmt: skip
    if summary["differs_from_tableau"]:
        cells = ", ".join(f"{d['hand']} v {d['column']}" for d in summary["differs_from_tableau"])
        lines.append(f"Where the house tableau's fixed cells differ: {cells}")
    if summary["equilibria_found"] > 1:
        lines.append(f"{summary['equilibria_found']} equilibria found; the first is shown")
    return "\n".join(lines)


#: The games `games solve` answers for: name -> (args -> JSON-ready summary, summary -> text). Another game
#: joins with an entry here and its own flags in `add_arguments` (Baccarat Banque's: --theta).
GAMES: dict[str, tuple[Callable[[argparse.Namespace], dict[str, Any]], Callable[[dict[str, Any]], str]]] = {
    "chemin_de_fer": (_chemin_de_fer, render),
    "baccarat_banque": (_baccarat_banque, _banque_text),
}
