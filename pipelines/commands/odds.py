"""Exact probabilities and house edges for a game, deck count, pay table, or the cards left."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import tempfile
from decimal import Decimal, InvalidOperation
from typing import Any

from models.game.cards import parse_hand
from models.game.games import Game
from models.game.paytable import DEFAULT_EGALITE, NO_COMMISSION_GAMES, PayTable
from models.game.shoe import Composition
from models.game.tableau import DrawPolicy
from models.kernel_cache import use_kernel_cache
from models.settings import Settings
from pipelines.commands import arguments


def _decimal(text: str) -> Decimal:
    try:
        return Decimal(text)
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _egalite(text: str) -> tuple[Decimal, ...]:
    pays = tuple(_decimal(part) for part in text.split(","))
    if len(pays) != 10:
        raise argparse.ArgumentTypeError("give ten comma-separated pays, for tie totals 0..9")
    return pays


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("--decks", type=int, default=8, help="decks in the shoe, 1..8 (default 8)")
    parser.add_argument(
        "--game", default="punto_banco", type=arguments.game, help=f"one of {', '.join(game.value for game in Game)}"
    )
    parser.add_argument("--seen", default="", help="cards already dealt from the shoe, e.g. '9H 3S 4D' (mid-shoe odds)")
    parser.add_argument(
        "--commission",
        type=_decimal,
        default=Decimal("0.05"),
        help="commission on Banker wins (default 0.05)",
    )
    parser.add_argument("--tie-pays", type=_decimal, default=Decimal(8), help="tie pays N:1")
    parser.add_argument("--pair-pays", type=_decimal, default=Decimal(11))
    parser.add_argument("--dragon7-pays", type=_decimal, default=Decimal(40))
    parser.add_argument("--panda8-pays", type=_decimal, default=Decimal(25))
    parser.add_argument(
        "--super6-pays",
        type=_decimal,
        default=Decimal("0.5"),
        help="super6: what a Banker win on 6 pays (default 0.5, i.e. 1:2)",
    )
    parser.add_argument(
        "--egalite",
        type=_egalite,
        default=DEFAULT_EGALITE,
        help="egalite pays for tie totals 0..9, comma separated",
    )
    parser.add_argument(
        "--punter-on-5",
        type=arguments.draw_chance,
        default=1.0,
        help="chemin_de_fer / baccarat_banque punter on 5: draw, stand, mixed or p",
    )
    parser.add_argument(
        "--banker-optional",
        type=arguments.draw_chance,
        default=None,
        help="banker's optional cells: draw, stand, mixed or p (default: as Punto Banco)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    table = PayTable(
        commission=args.commission,
        tie=args.tie_pays,
        pair=args.pair_pays,
        dragon7=args.dragon7_pays,
        panda8=args.panda8_pays,
        super6_six=args.super6_pays,
        egalite=args.egalite,
    )
    policy = DrawPolicy(punter_on_5=args.punter_on_5, banker_optional=args.banker_optional)
    composition = Composition.after(args.decks, parse_hand(args.seen))
    summary = {"decks": args.decks, **remembered(composition, args.game, policy, table)}
    print(json.dumps(summary, indent=2) if args.json else render(summary))
    return 0


def remembered(composition: Composition, game: Game, policy: DrawPolicy, table: PayTable) -> dict[str, Any]:
    """`odds_summary` of the exact odds, worked out once for this version of the domain's code and then
    read back from beside its compiled kernels. Even a kernel compiled already costs numba about 0.6 s
    to load (its registries, and SciPy's linear algebra it looks for), so asking again answers at once."""
    key = hashlib.sha256(repr((composition, game, policy, table)).encode()).hexdigest()[:32]
    kept = use_kernel_cache() / "odds" / f"{key}.json"
    with contextlib.suppress(OSError, ValueError):
        return json.loads(kept.read_text())
    from models.odds.exact import exact_odds  # the compiled kernel: numba, only when nothing is kept
    from models.odds.summary import odds_summary

    summary = odds_summary(exact_odds(composition, game, policy), table)
    with contextlib.suppress(OSError):  # a folder that cannot be written: worked out every time
        kept.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=kept.parent, suffix=".tmp", delete=False) as out:
            json.dump(summary, out)
        os.replace(out.name, kept)  # whole or not at all: another run may be reading it
    return summary


def _percent(value: float) -> str:
    return f"{value * 100:9.4f} %"


def render(summary: dict) -> str:
    """The odds as a table for people."""
    pays = summary["paytable"]
    game = Game(summary["game"])
    commission = (
        "no commission" if game in NO_COMMISSION_GAMES else f"commission {Decimal(pays['commission']) * 100:.4g}%"
    )
    lines = [
        f"{game.value} · {summary['decks']} decks · {summary['cards']} cards left · {commission} · tie {pays['tie']}:1",
        "",
        f"{'outcome':<24}{'probability':>14}",
        f"{'Banker wins':<24}{summary['p_banker']:>14.9f}",
        f"{'Player wins':<24}{summary['p_player']:>14.9f}",
        f"{'Tie':<24}{summary['p_tie']:>14.9f}",
    ]
    lines += [f"{f'  tie on {total}':<24}{p:>14.9f}" for total, p in enumerate(summary["p_tie_by_total"])]
    if summary["p_pair"] is not None:
        lines.append(f"{'Pair (either hand)':<24}{summary['p_pair']:>14.9f}")
    lines += [
        f"{'Bank keeps (decided)':<24}{summary['p_bank_keeps']:>14.9f}",
        f"{'Cards per coup':<24}{summary['expected_cards']:>14.9f}",
        "",
        f"{'bet':<14}{'house edge':>14}{'std dev':>10}",
    ]
    for bet, edge in summary["edge"].items():
        lines.append(f"{bet:<14}{_percent(edge):>14}{summary['variance'][bet] ** 0.5:>10.4f}")
    return "\n".join(lines)
