"""The outcome of a coup from its two totals: the one rule, and its compiled and Polars forms.

The higher total wins and equal totals tie (rules.md). `outcome_code` states the rule; the kernels
call the same function compiled (`compiled_outcome_code`), and `outcome_expr` is its table over every
pair of totals as a Polars expression. Codes index OUTCOMES: 0 Banker, 1 Player, 2 Tie.

Which Banker total a Player hand meets: `settled_on_natural` (with `compiled_settled_on_natural` and
`settled_on_natural_expr`). A natural is settled at once against the Banker's first two cards, so in
Baccarat Banque a Player hand's natural wins whatever the banker then draws against the other hand;
in the one-hand games a natural ends the coup, so there the Banker's two cards are his final total.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.kernel_cache import compiled_twins

if TYPE_CHECKING:  # the Polars form imports it when called: the odds need none of it
    import polars as pl

BANKER, PLAYER, TIE = "B", "P", "T"
OUTCOMES = (BANKER, PLAYER, TIE)
BANKER_WINS, PLAYER_WINS, TIED = range(3)
#: The least two-card total that is a natural.
NATURAL = 8


def outcome_code(player_total: int, banker_total: int) -> int:
    """The outcome's code (index in OUTCOMES) for a Player and a Banker total."""
    if banker_total > player_total:
        return BANKER_WINS
    return PLAYER_WINS if player_total > banker_total else TIED


def outcome(player_total: int, banker_total: int) -> str:
    """B, P or T for a Player and a Banker total."""
    return OUTCOMES[outcome_code(player_total, banker_total)]


def settled_on_natural(player_total: int, player_drew: int) -> bool:
    """Whether a Player hand is settled at once on its natural (two cards of 8 or 9), against the
    Banker's two-card total; any other hand is settled against the Banker's final total."""
    return not player_drew and player_total >= NATURAL


def hand_outcome(player_total: int, player_drew: int, banker_two: int, banker_total: int) -> str:
    """B, P or T for one Player hand: a natural against the Banker's two cards, else final totals."""
    return outcome(player_total, banker_two if settled_on_natural(player_total, player_drew) else banker_total)


#: `outcome_code` and `settled_on_natural` compiled for the kernels, `compiled_outcome_code` and
#: `compiled_settled_on_natural`, made when the first of them imports one.
__getattr__ = compiled_twins(
    __name__, globals(), compiled_outcome_code=outcome_code, compiled_settled_on_natural=settled_on_natural
)


def outcome_expr(player_total: pl.Expr, banker_total: pl.Expr) -> pl.Expr:
    """B, P or T per row from two total columns (0..9), null where either is null."""
    import polars as pl

    by_totals = pl.Series([outcome(player, banker) for player in range(10) for banker in range(10)])
    return pl.lit(by_totals).gather(player_total.cast(pl.Int16) * 10 + banker_total.cast(pl.Int16))


def settled_on_natural_expr(player_total: pl.Expr, player_drew: pl.Expr) -> pl.Expr:
    """`settled_on_natural` per row (its table over every total and flag); null where either is null."""
    import polars as pl

    by_facts = pl.Series([settled_on_natural(total, drew) for total in range(10) for drew in (0, 1)])
    return pl.lit(by_facts).gather(player_total.cast(pl.Int16) * 2 + player_drew.cast(pl.Int16))


def hand_outcome_expr(
    player_total: pl.Expr, player_drew: pl.Expr, banker_two: pl.Expr, banker_total: pl.Expr
) -> pl.Expr:
    """`hand_outcome` per row: `outcome_expr` against the Banker total the hand meets."""
    import polars as pl

    faced = pl.when(settled_on_natural_expr(player_total, player_drew)).then(banker_two).otherwise(banker_total)
    return outcome_expr(player_total, faced)
