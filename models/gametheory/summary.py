"""A solved Chemin de Fer as plain data: each side's strategy, the value, and where the house tableau
differs from the equilibrium. What `banco games solve` prints and `--json` returns."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from models.game.games import Game
from models.game.tableau import Draw, Hand, tableau
from models.gametheory.equilibrium import Equilibrium, solve
from models.gametheory.models import STOOD, Model, banker_rows, label, total
from models.gametheory.payoffs import payoffs

COLUMN_NAMES = (*(str(third) for third in range(10)), "stood")


def _exact(value: Fraction) -> str:
    return str(value)


def _tableau(hand_total: int, column: int) -> str:
    rule = tableau(Game.CHEMIN_DE_FER, Hand.BANKER, hand_total, None if column == STOOD else column)
    return {Draw.DRAW: "draw", Draw.STAND: "stand", Draw.OPTIONAL: "optional"}[rule]


def _mixed_banker(equilibrium: Equilibrium) -> list[dict[str, Any]]:
    return [
        {"hand": row, "column": COLUMN_NAMES[col], "draw": float(p), "exact": _exact(p)}
        for row, col in equilibrium.mixed_banker
        for p in (equilibrium.banker[row][col],)
    ]


def describe(equilibrium: Equilibrium, equilibria: int) -> dict[str, Any]:
    """The equilibrium as a JSON-ready dict; probabilities as floats beside their exact fractions."""
    model = equilibrium.model
    rows = dict(zip((label(r) for r in banker_rows(model)), banker_rows(model), strict=True))
    banker, differs = [], []
    for name, draws in equilibrium.banker.items():
        hand_total = rows[name] if isinstance(rows[name], int) else total(rows[name])
        banker.append({"hand": name, "total": hand_total,
                       "draw": dict(zip(COLUMN_NAMES, (float(p) for p in draws), strict=True))})  # fmt: skip
        for column, p in enumerate(draws):
            rule = _tableau(hand_total, column)
            if rule != "optional" and p != (rule == "draw"):
                differs.append({"hand": name, "column": COLUMN_NAMES[column], "equilibrium": float(p), "tableau": rule})
    return {
        "game": Game.CHEMIN_DE_FER.value,
        "model": model.value,
        "decks": "inf" if equilibrium.decks is None else equilibrium.decks,
        "commission": _exact(equilibrium.commission),
        "equilibria_found": equilibria,
        "player": [
            {"hand": name, "total": 5, "draw": float(p), "exact": _exact(p)} for name, p in equilibrium.player.items()
        ],
        "player_forced": {"draw": "0-4", "stand": "6-7"},
        "banker": banker,
        "mixed": {"player": equilibrium.mixed_player, "banker": _mixed_banker(equilibrium)},
        "player_value": float(equilibrium.player_value),
        "player_value_exact": _exact(equilibrium.player_value),
        "banker_value": float(equilibrium.banker_value),
        "banker_value_exact": _exact(equilibrium.banker_value),
        "differs_from_tableau": differs,
    }


def solved(model: Model, decks: int | None, commission: Fraction = Fraction(0)) -> dict[str, Any]:
    """Solve Chemin de Fer under `model` and describe the first equilibrium found."""
    equilibria = solve(payoffs(model, decks), commission)
    if not equilibria:
        raise ValueError(f"no equilibrium with Player mixing at one hand at most under {model} (not searched further)")
    return describe(equilibria[0], len(equilibria))
