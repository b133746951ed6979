"""What theory expects, from the exact odds: per game and deck count, as a frame to join on."""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from models.game.games import Game
from models.game.paytable import DEFAULT_PAYTABLE, PayTable
from models.game.shoe import MAX_DECKS, Composition
from models.odds.exact import exact_odds


@lru_cache(maxsize=8)
def outcome_rates(table: PayTable = DEFAULT_PAYTABLE) -> pl.DataFrame:
    """(game, decks) -> p_banker, p_player, p_tie, p_keep (the bank survives a decided coup),
    the tie probability by total, and the Banker bet's commission per unit staked."""
    rows = []
    for game in Game:
        for decks in range(1, MAX_DECKS + 1):
            odds = exact_odds(Composition.full(decks), game)
            rows.append(
                {
                    "game": game.value,
                    "decks": decks,
                    "p_banker": odds.p_banker,
                    "p_player": odds.p_player,
                    "p_tie": odds.p_tie,
                    "p_keep": odds.p_bank_keeps,
                    "p_tie_by_total": odds.p_tie_by_total,
                }
            )
    return pl.DataFrame(rows).with_columns(pl.col("decks").cast(pl.Int8))
