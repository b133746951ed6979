"""The outcome of a coup from its two totals: the one rule, and its compiled and Polars forms.

The higher total wins and equal totals tie (rules.md). `outcome_code` states the rule; the kernels
call the same function compiled (`compiled_outcome_code`), and `outcome_expr` is its table over every
pair of totals as a Polars expression. Codes index OUTCOMES: 0 Banker, 1 Player, 2 Tie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.kernel_cache import compiled_twins

if TYPE_CHECKING:  # the Polars form imports it when called: the odds need none of it
    import polars as pl

BANKER, PLAYER, TIE = "B", "P", "T"
OUTCOMES = (BANKER, PLAYER, TIE)
BANKER_WINS, PLAYER_WINS, TIED = range(3)


def outcome_code(player_total: int, banker_total: int) -> int:
    """The outcome's code (index in OUTCOMES) for a Player and a Banker total."""
    if banker_total > player_total:
        return BANKER_WINS
    return PLAYER_WINS if player_total > banker_total else TIED


def outcome(player_total: int, banker_total: int) -> str:
    """B, P or T for a Player and a Banker total."""
    return OUTCOMES[outcome_code(player_total, banker_total)]


#: `outcome_code` compiled for the kernels, `compiled_outcome_code`, made when the first of them imports it.
__getattr__ = compiled_twins(__name__, globals(), compiled_outcome_code=outcome_code)


def outcome_expr(player_total: pl.Expr, banker_total: pl.Expr) -> pl.Expr:
    """B, P or T per row from two total columns (0..9), null where either is null."""
    import polars as pl

    by_totals = pl.Series([outcome(player, banker) for player in range(10) for banker in range(10)])
    return pl.lit(by_totals).gather(player_total.cast(pl.Int16) * 10 + banker_total.cast(pl.Int16))
