"""The tableau as a lookup: `tableau_violation` evaluated once for every case it can meet.

A coup's draws are decided by the game, both two-card totals, the player's third card (if any) and
whether the banker drew; indexing a table built from the one rules function by those gives each row
its verdict and detail text, for millions of rows at once.
"""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from models.game.coup import tableau_violation
from models.game.games import Game
from models.game.tableau import NO_THIRD

GAMES = list(Game)
#: Sizes of the lookup's axes: game, player two-card total, player third (NO_THIRD: none), banker
#: two-card total, drew. `case_index` and the sweep's compiled lookup both index by them.
AXES = (len(GAMES), 10, NO_THIRD + 1, 10, 2)


@lru_cache(maxsize=1)
def violations() -> pl.Series:
    """Detail of every case whose draws break the tableau (null where they don't), by `case_index`."""
    details = []
    for game in GAMES:
        for player_two in range(10):
            for third in range(NO_THIRD + 1):
                player = [player_two, 0] + ([] if third == NO_THIRD else [third])
                for banker_two in range(10):
                    for banker_drew in (False, True):
                        banker = [banker_two, 0] + ([0] if banker_drew else [])
                        details.append(tableau_violation(game, player, banker))
    return pl.Series("tableau_detail", details, dtype=pl.String)


def case_index(
    game: pl.Expr, player_two: pl.Expr, player_third: pl.Expr, banker_two: pl.Expr, banker_drew: pl.Expr
) -> pl.Expr:
    """Position of a case in `violations()`; `player_third` null when the player stood."""
    game_index = game.replace_strict({g.value: i for i, g in enumerate(GAMES)}, default=None, return_dtype=pl.Int32)
    third = player_third.cast(pl.Int32).fill_null(NO_THIRD)
    index = ((game_index * AXES[1] + player_two.cast(pl.Int32)) * AXES[2] + third) * AXES[3] + banker_two.cast(pl.Int32)
    return index * AXES[4] + banker_drew.cast(pl.Int32)


def tableau_detail(
    game: pl.Expr, player_two: pl.Expr, player_third: pl.Expr, banker_two: pl.Expr, banker_drew: pl.Expr
) -> pl.Expr:
    """The one rules function's verdict for each row's case (null when the draws are right)."""
    index = case_index(game, player_two, player_third, banker_two, banker_drew)
    return pl.when(index.is_not_null()).then(pl.lit(violations()).gather(index.fill_null(0)))
