"""The tableau as a lookup frame: `tableau_violation` evaluated once for every case it can meet.

A coup's draws are decided by the game, both two-card totals, the player's third card (if any) and
whether the banker drew; joining on those keys gives each row the one rules function's verdict and
its detail text, for millions of rows at once.
"""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from models.game.coup import tableau_violation
from models.game.games import Game

NO_THIRD = -1
KEYS = ["game", "player_two", "player_third", "banker_two", "banker_drew"]


@lru_cache(maxsize=1)
def violations() -> pl.DataFrame:
    """Every (game, player two-card total, player third value or -1, banker two-card total, banker
    drew) whose draws break the tableau, with the detail `tableau_violation` gives."""
    rows = []
    for game in Game:
        for player_two in range(10):
            for third in [NO_THIRD, *range(10)]:
                player = [player_two, 0] + ([] if third == NO_THIRD else [third])
                for banker_two in range(10):
                    for banker_drew in (False, True):
                        banker = [banker_two, 0] + ([0] if banker_drew else [])
                        detail = tableau_violation(game, player, banker)
                        if detail:
                            rows.append((game.value, player_two, third, banker_two, banker_drew, detail))
    return pl.DataFrame(
        rows,
        schema={
            "game": pl.String,
            "player_two": pl.Int8,
            "player_third": pl.Int8,
            "banker_two": pl.Int8,
            "banker_drew": pl.Boolean,
            "tableau_detail": pl.String,
        },
        orient="row",
    )
