"""Exact odds as plain data: what `banco odds --json`, the dashboard and reports show."""

from __future__ import annotations

from typing import Any

from models.game.paytable import PayTable
from models.odds.exact import ExactOdds


def odds_summary(odds: ExactOdds, table: PayTable) -> dict[str, Any]:
    """Probabilities of the events the bets pay on, and each bet's house edge and variance."""
    bets = odds.bets(table)
    return {
        "game": odds.game.value,
        "cards": odds.composition.cards,
        "p_banker": odds.p_banker,
        "p_player": odds.p_player,
        "p_tie": odds.p_tie,
        "p_tie_by_total": odds.p_tie_by_total,
        "p_pair": odds.p_pair,
        "p_bank_keeps": odds.p_bank_keeps,
        "expected_cards": odds.expected_cards,
        "deals": round(odds.deals),
        "edge": {name: bet.edge for name, bet in bets.items()},
        "variance": {name: bet.variance for name, bet in bets.items()},
        "paytable": {
            "commission": str(table.commission),
            "tie": str(table.tie),
            "pair": str(table.pair),
            "dragon7": str(table.dragon7),
            "panda8": str(table.panda8),
            "super6_six": str(table.super6_six),
            "egalite": [str(pays) for pays in table.egalite],
        },
    }
