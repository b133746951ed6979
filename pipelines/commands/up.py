"""The main job: for now, the exact-odds report for every game at the casino deck counts."""

from __future__ import annotations

import argparse

from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE
from models.game.shoe import Composition
from models.odds.exact import exact_odds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--decks", type=int, nargs="+", default=[6, 8], help="deck counts to report (default 6 8)")


def run(args: argparse.Namespace) -> int:
    print(
        f"{'game':<17}{'decks':>6}{'P(banker)':>12}{'P(player)':>12}{'P(tie)':>12}"
        f"{'banker edge':>13}{'player edge':>13}{'tie edge':>10}"
    )
    for decks in args.decks:
        composition = Composition.full(decks)
        for game in Game:
            odds = exact_odds(composition, game)
            edge = {name: bet.edge for name, bet in odds.bets(DEFAULT_PAYTABLE).items()}
            print(
                f"{game.value:<17}{decks:>6}{odds.p_banker:>12.6f}{odds.p_player:>12.6f}"
                f"{odds.p_tie:>12.6f}{edge['banker']:>12.4%}{edge['player']:>13.4%}"
                f"{edge['tie']:>10.4%}"
            )
    print("\nFull figures for one game: banco odds --game GAME --decks N [--json]")
    return 0
