"""Baccara banque solved (Ethier and Lee, Games 6(2), 2015): `solve_banque(theta)` for the CLI.

Three solutions for Player 1's share theta of the stakes (Nash; independent and correlated
cooperative), the banker's decision table under each, and the project's default play beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from models.gametheory.banque_cooperative import correlated, independent
from models.gametheory.banque_game import Solution
from models.gametheory.banque_house import house_view
from models.gametheory.banque_nash import nash
from models.gametheory.banque_payoffs import STATES, Cell

MODEL = (
    "Ethier and Lee's model: one deck dealt with replacement; each Player sees his two-card total and "
    "chooses only on 5; the banker sees his total and each Player's natural, stand or third card."
)
_MARK = {0: "S", 1: "D"}


def parse_theta(text: str | float | Fraction) -> Fraction:
    """Player 1's share of the stakes, strictly between 0 and 1: '1/2', '0.75' or a number."""
    theta = Fraction(str(text)) if not isinstance(text, Fraction) else text
    if not 0 < theta < 1:
        raise ValueError(f"theta is Player 1's share of the stakes, strictly between 0 and 1; got {text}")
    return theta


@dataclass(frozen=True)
class BanqueResult:
    """The three solutions at one theta, and the project's default banker valued beside them."""

    theta: Fraction
    solutions: tuple[Solution, Solution, Solution]
    house: dict[str, Fraction]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types: exact numbers as 'p/q' strings beside their floats."""
        return {
            "game": "baccarat_banque",
            "theta": str(self.theta),
            "model": MODEL,
            "solutions": {s.kind: _solution_json(s) for s in self.solutions},
            "project_default": {k: _number(v) for k, v in self.house.items()},
        }

    def render(self) -> str:
        """The solutions as text: each side's play on 5, the banker's value, his decision tables."""
        lines = [f"Baccarat Banque, theta = {self.theta} (Player 1's share of the stakes)", MODEL, ""]
        for s in self.solutions:
            lines += _render_solution(s)
        lines.append("The project's default banker (Punto Banco against the larger stake), punters drawing on 5:")
        for key, value in self.house.items():
            lines.append(f"  {key.replace('_', ' ')}: {float(value):+.6f}")
        return "\n".join(lines)


def solve_banque(theta: str | float | Fraction) -> BanqueResult:
    """Solve baccara banque at `theta` (Player 1's share, strictly between 0 and 1)."""
    t = parse_theta(theta)
    joint = correlated(t)
    return BanqueResult(theta=t, solutions=(nash(t), independent(t, joint), joint), house=house_view(t))


def _number(x: Fraction | None) -> dict[str, Any] | None:
    return None if x is None else {"exact": str(x), "float": float(x)}


def _solution_json(s: Solution) -> dict[str, Any]:
    if not s.exists:
        return {"exists": False}
    return {
        "exists": True,
        "exact": s.exact,
        "player1_draws_on_5": _number(s.draws_on_5(1)),
        "player2_draws_on_5": _number(s.draws_on_5(2)),
        "joint_law_on_5": {f"{a}{b}": _number(q) for (a, b), q in s.players.items()},
        "banker_value": _number(s.value),
        "banker_mixed": [
            {"total": c.total, "player1": str(c.first), "player2": str(c.second), "draw": _number(p)}
            for c, p in s.banker.items()
            if p not in (0, 1)
        ],
        "banker_table": decision_table(s.banker),
    }


def decision_table(banker: dict[Cell, Fraction]) -> dict[str, list[str]]:
    """Banker total -> one string per Player 1 state (N, S, 0..9), a letter per Player 2 state:
    D draws, S stands, * mixes, - no choice (both Players natural)."""
    table = {}
    for total in range(8):
        rows = []
        for first in STATES:
            marks = []
            for second in STATES:
                p = banker.get(Cell(total, first, second))
                marks.append("-" if p is None else _MARK.get(p, "*") if p in (0, 1) else "*")
            rows.append("".join(marks))
        table[str(total)] = rows
    return table


def _render_solution(s: Solution) -> list[str]:
    title = {"nash": "Nash equilibrium", "independent": "Independent cooperative equilibrium"}.get(
        s.kind, "Correlated cooperative equilibrium"
    )
    if not s.exists:
        return [f"{title}: does not exist at this theta.", ""]
    lines = [f"{title}{'' if s.exact else ' (floats: not certified exact)'}"]
    lines.append(f"  Player 1 draws on 5 with probability {s.draws_on_5(1)} ({float(s.draws_on_5(1)):.6f})")
    lines.append(f"  Player 2 draws on 5 with probability {s.draws_on_5(2)} ({float(s.draws_on_5(2)):.6f})")
    if s.kind == "correlated":
        law = ", ".join(f"{'DS'[1 - a]}{'DS'[1 - b]}: {q}" for (a, b), q in s.players.items())
        lines.append(f"  joint law (Player 1, Player 2; D draws, S stands): {law}")
    lines.append(f"  banker's expectation per unit staked: {float(s.value):+.9f}  ({s.value})")
    lines += _render_table(s.banker)
    return [*lines, ""]


def _render_table(banker: dict[Cell, Fraction]) -> list[str]:
    header = "".join(f"{str(x):>2}" for x in STATES)
    lines = ["  Banker's decisions: rows Player 1 shows, columns Player 2 shows (N natural, S stood, 0-9 third card)"]
    for total, rows in decision_table(banker).items():
        letters = {m for row in rows for m in row} - {"-"}
        if len(letters) == 1:
            lines.append(f"  banker {total}: {'draws' if letters == {'D'} else 'stands'} everywhere")
            continue
        lines.append(f"  banker {total}:   {header}")
        for first, row in zip(STATES, rows):
            lines.append(f"           {str(first):>2} " + "".join(f"{m:>2}" for m in row))
    mixed = [(c, p) for c, p in banker.items() if p not in (0, 1)]
    for c, p in mixed:
        lines.append(f"  * banker {c.total}, Player 1 {c.first}, Player 2 {c.second}: draws with probability {p}")
    return lines
