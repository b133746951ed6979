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
        """The solutions as text (see `render`)."""
        return render(self.to_json())


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
        "closed_form_on_5": None
        if s.closed_form is None
        else {"player1": s.closed_form[0], "player2": s.closed_form[1]},
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


def render(summary: dict[str, Any]) -> str:
    """`BanqueResult.to_json()` as text: each side's play on 5, the banker's value and his tables."""
    lines = [f"Baccarat Banque, theta = {summary['theta']} (Player 1's share of the stakes)", summary["model"], ""]
    for kind, s in summary["solutions"].items():
        lines += _render_solution(kind, s)
    lines.append("The project's default banker (Punto Banco against the larger stake), punters drawing on 5:")
    for key, value in summary["project_default"].items():
        lines.append(f"  {key.replace('_', ' ')}: {value['float']:+.6f}")
    return "\n".join(lines)


_TITLES = {
    "nash": "Nash equilibrium",
    "independent": "Independent cooperative equilibrium",
    "correlated": "Correlated cooperative equilibrium",
}


def _render_solution(kind: str, s: dict[str, Any]) -> list[str]:
    title = _TITLES[kind]
    if not s["exists"]:
        return [f"{title}: does not exist at this theta.", ""]
    lines = [f"{title}{'' if s['exact'] else ' (floats: not certified exact)'}"]
    for player in (1, 2):
        p = s[f"player{player}_draws_on_5"]
        lines.append(f"  Player {player} draws on 5 with probability {p['exact']} ({p['float']:.6f})")
    if s["closed_form_on_5"]:
        form = s["closed_form_on_5"]
        lines.append(f"  exactly: Player 1 {form['player1']}, Player 2 {form['player2']}")
    if kind == "correlated":
        law = ", ".join(f"{'SD'[int(k[0])]}{'SD'[int(k[1])]}: {q['exact']}" for k, q in s["joint_law_on_5"].items())
        lines.append(f"  joint law (Player 1, Player 2; D draws, S stands): {law}")
    value = s["banker_value"]
    lines.append(f"  banker's expectation per unit staked: {value['float']:+.9f}  ({value['exact']})")
    lines += _render_table(s["banker_table"], s["banker_mixed"])
    return [*lines, ""]


def _render_table(table: dict[str, list[str]], mixed: list[dict[str, Any]]) -> list[str]:
    header = "".join(f"{x!s:>2}" for x in STATES)
    lines = ["  Banker's decisions: rows Player 1 shows, columns Player 2 shows (N natural, S stood, 0-9 third card)"]
    for total, rows in table.items():
        letters = {m for row in rows for m in row} - {"-"}
        if len(letters) == 1:
            lines.append(f"  banker {total}: {'draws' if letters == {'D'} else 'stands'} everywhere")
            continue
        lines.append(f"  banker {total}:   {header}")
        for first, row in zip(STATES, rows, strict=True):
            lines.append(f"           {first!s:>2} " + "".join(f"{m:>2}" for m in row))
    for m in mixed:
        lines.append(
            f"  * banker {m['total']}, Player 1 {m['player1']}, Player 2 {m['player2']}: "
            f"draws with probability {m['draw']['exact']}"
        )
    return lines
