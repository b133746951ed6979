"""Exact odds, every bet, full shoes and mid-shoe compositions: compiled kernel vs the pure-Python oracle."""

from __future__ import annotations

import random

from benchmarks.report import Row, figure, publish, quick_requested, timings
from models.game.cards import Card
from models.game.games import Game
from models.game.shoe import Composition
from models.odds.exact import exact_odds
from models.odds.oracle import oracle_weights

TARGET = "<= 2 ms"


def all_bets(composition: Composition, game: Game = Game.PUNTO_BANCO) -> dict:
    return exact_odds(composition, game).bets()


def mid_shoe(decks: int, dealt: int, seed: int) -> Composition:
    deck = [Card.of(rank, suit) for rank in range(1, 14) for suit in "CDHS"] * decks
    random.Random(seed).shuffle(deck)
    return Composition.full(decks).remove(deck[:dealt])


def main(quick: bool = False) -> None:
    """Every case timed over 200 calls, best of 7 (quick: 50 calls, the median of 5)."""
    repeat, number = (5, 50) if quick else (7, 200)
    all_bets(Composition.full(8))  # compile (or load the cache) before timing
    cases = [
        ("8 decks, full shoe, punto_banco", Composition.full(8), Game.PUNTO_BANCO),
        ("6 decks, full shoe, punto_banco", Composition.full(6), Game.PUNTO_BANCO),
        ("8 decks, 200 cards dealt", mid_shoe(8, 200, seed=1), Game.PUNTO_BANCO),
        ("8 decks, 390 cards dealt", mid_shoe(8, 390, seed=2), Game.PUNTO_BANCO),
        ("8 decks, full shoe, chemin_de_fer", Composition.full(8), Game.CHEMIN_DE_FER),
    ]
    rows = []
    for name, composition, game in cases:
        fast, spread = figure(timings(lambda c=composition, g=game: all_bets(c, g), repeat, number), quick=quick)
        slow = min(timings(lambda c=composition, g=game: oracle_weights(c, g), repeat=1))
        rows.append(Row(name, fast * 1e3, slow * 1e3, "ms", TARGET, spread=spread))
    publish(
        "odds",
        "Exact odds for every bet (warm)",
        rows,
        "pure-Python enumeration of every deal (models/odds/oracle.py)",
        quick=quick,
    )


if __name__ == "__main__":
    main(quick_requested())
