"""When the bank passes by the game's rule: the one rule, and its compiled and Polars forms.

The house's shoe and a Chemin de Fer bank pass on a Player win, a rotating bank after every decided
coup, and a Baccarat Banque bank never; ties never pass it. A Chemin de Fer holder's withdrawal is a
choice, not the rule, and is not counted here.
"""

from __future__ import annotations

import polars as pl
from numba import njit

from models.game.games import BankPassing, Game
from models.game.outcome import OUTCOMES, PLAYER_WINS, TIED

_BANQUE, _ROTATING = int(BankPassing.BANQUE), int(BankPassing.ROTATING)


def bank_passes(passing: int, outcome_code: int) -> bool:
    """Whether a coup with this outcome (a code of OUTCOMES) passes a bank held under `passing`."""
    if passing == _ROTATING:
        return outcome_code != TIED
    if passing == _BANQUE:
        return False
    return outcome_code == PLAYER_WINS


#: `bank_passes` itself, compiled for the kernels (inlined where they call it).
compiled_bank_passes = njit(inline="always", cache=True)(bank_passes)


def passing_outcomes(game: Game) -> tuple[str, ...]:
    """The outcomes (B, P, T) on which `game`'s bank passes."""
    return tuple(letter for code, letter in enumerate(OUTCOMES) if bank_passes(game.passing, code))


def _one_of(column: pl.Expr, values: list[str] | tuple[str, ...]) -> pl.Expr:
    if not values:
        return pl.lit(False)
    return column == values[0] if len(values) == 1 else column.is_in(values)


def bank_passes_expr(game: pl.Expr, outcome: pl.Expr) -> pl.Expr:
    """Per row, whether the coup passes the bank, from its game's name and its outcome letter.

    The games that share a rule share a branch; the rule most games follow is the last, so a name
    the rule table does not know falls to it.
    """
    rules: dict[tuple[str, ...], list[str]] = {}
    for each in Game:
        rules.setdefault(passing_outcomes(each), []).append(each.value)
    *others, (commonest, _) = sorted(rules.items(), key=lambda rule: len(rule[1]))
    chain = pl
    for letters, games in others:
        chain = chain.when(_one_of(game, games)).then(_one_of(outcome, letters))
    passes = _one_of(outcome, commonest)
    return chain.otherwise(passes) if others else passes
