"""Nash equilibria of Chemin de Fer from its additive payoffs, exact, with commission alpha.

Foster's algorithm generalised as in Ethier and Lee (2023): Banker's best reply to Player's mix is
pure except where his gain from drawing is zero, so Player's mix at one choice set is swept through
the points where a Banker information set changes sides, exactly; Player's other choice sets (B3) are
tried pure both ways. Every equilibrium returned is checked exactly against both sides' best replies.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from models.gametheory.models import COLUMNS, Model, banker_rows, label, player_sets
from models.gametheory.payoffs import Payoffs, Terms


@dataclass(frozen=True)
class _Side:
    """One side's expectation c + x.a + y.b + x.G.y as Python integers."""

    c: int
    a: tuple[int, ...]
    b: tuple[int, ...]
    g: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, win: Terms, lose: Terms, on_win: int, on_lose: int) -> _Side:
        def mix(w: np.ndarray, lo: np.ndarray) -> np.ndarray:  # Python integers: no overflow
            return on_win * w.astype(object) + on_lose * lo.astype(object)

        return cls(
            c=on_win * win.c + on_lose * lose.c,
            a=tuple(int(v) for v in mix(win.a, lose.a)),
            b=tuple(int(v) for v in mix(win.b, lose.b)),
            g=tuple(tuple(int(v) for v in row) for row in mix(win.g, lose.g)),
        )

    def value(self, x: tuple[Fraction, ...], y: tuple[Fraction, ...]) -> Fraction:
        linear = sum(xk * ak for xk, ak in zip(x, self.a, strict=True))
        return self.c + linear + sum(yj * self.draw_gain(x, j) for j, yj in enumerate(y) if yj)

    def draw_gain(self, x: tuple[Fraction, ...], j: int) -> Fraction:
        """What Banker's drawing at information set j adds to this side's expectation."""
        return self.b[j] + sum(xk * gk[j] for xk, gk in zip(x, self.g, strict=True) if xk)

    def choice_gain(self, y: tuple[Fraction, ...], k: int) -> Fraction:
        """What Player's drawing at choice set k adds to this side's expectation."""
        return self.a[k] + sum(yj * gj for yj, gj in zip(y, self.g[k], strict=True) if yj)


@dataclass(frozen=True)
class Equilibrium:
    """Each side's probability of drawing at each information set, and each side's expectation."""

    model: Model
    decks: int | None
    commission: Fraction
    player: dict[str, Fraction]  # choice set label -> probability of drawing
    banker: dict[str, tuple[Fraction, ...]]  # Banker's two cards -> by Player's third card 0..9, then stood
    player_value: Fraction  # Player's expectation per unit staked
    banker_value: Fraction  # Banker's, net of the commission

    @property
    def mixed_player(self) -> list[str]:
        return [name for name, p in self.player.items() if 0 < p < 1]

    @property
    def mixed_banker(self) -> list[tuple[str, int]]:
        """(Banker's two cards, column) where Banker mixes; column 10 is 'Player stood'."""
        return [(row, col) for row, ps in self.banker.items() for col, p in enumerate(ps) if 0 < p < 1]


def _is_equilibrium(player: _Side, banker: _Side, x: tuple[Fraction, ...], y: tuple[Fraction, ...]) -> bool:
    """Whether neither side gains by moving any one information set: the exact best-reply test."""

    def best(p: Fraction, gain: Fraction) -> bool:
        return (gain == 0) or (gain > 0 and p == 1) or (gain < 0 and p == 0)

    return all(best(y[j], banker.draw_gain(x, j)) for j in range(len(y))) and all(
        best(x[k], player.choice_gain(y, k)) for k in range(len(x))
    )


def _sweep(player: _Side, banker: _Side, fixed: dict[int, int], m: int, sets: int) -> list[tuple]:
    """Candidate equilibria with Player mixing at choice set m and pure at the others (`fixed`):
    Banker's reply switches where his gain u + t v crosses zero; Player is indifferent where his gain
    at m crosses zero, which can happen only at such a switch, with that information set mixed."""
    J = len(banker.b)
    u = [banker.b[j] + sum(x * banker.g[k][j] for k, x in fixed.items()) for j in range(J)]
    v = [banker.g[m][j] for j in range(J)]
    y = [Fraction(int(u[j] > 0 or (u[j] == 0 and v[j] > 0))) for j in range(J)]
    s = player.a[m] + sum(player.g[m][j] for j in range(J) if y[j])
    switches = sorted((Fraction(-u[j], v[j]), j) for j in range(J) if v[j] and 0 < Fraction(-u[j], v[j]) < 1)
    found = []
    for t, j in switches:
        step = player.g[m][j] * (1 if v[j] > 0 else -1)
        if step and s * (s + step) <= 0:
            q = Fraction(-s, step)  # how far Banker goes across j: Player indifferent at m
            mixed = list(y)
            mixed[j] = y[j] + q * (1 if v[j] > 0 else -1)
            x = tuple(Fraction(fixed[k]) if k != m else t for k in range(sets))
            found.append((x, tuple(mixed)))
        y[j] = Fraction(1 if v[j] > 0 else 0)
        s += step
    return found


def _pure(player: _Side, banker: _Side, x: tuple[int, ...]) -> tuple:
    """Player's pure choices with Banker's best reply (ties left standing)."""
    fx = tuple(Fraction(v) for v in x)
    return fx, tuple(Fraction(int(banker.draw_gain(fx, j) > 0)) for j in range(len(banker.b)))


def solve(payoffs: Payoffs, commission: Fraction = Fraction(0)) -> list[Equilibrium]:
    """Every Nash equilibrium in which Player mixes at one choice set at most (found exactly), the
    commission taken from Banker's wins. Zero-sum at commission 0: then they share one value."""
    commission = Fraction(commission)
    if not 0 <= commission < 1:
        raise ValueError(f"commission must be a fraction from 0 to 1, got {commission}")
    player = _Side.of(payoffs.win, payoffs.lose, 1, -1)
    banker = _Side.of(payoffs.win, payoffs.lose, -commission.denominator, commission.denominator - commission.numerator)
    sets = len(player.a)
    candidates = [_pure(player, banker, x) for x in itertools.product((0, 1), repeat=sets)]
    for m in range(sets):
        for rest in itertools.product((0, 1), repeat=sets - 1):
            fixed = dict(zip([k for k in range(sets) if k != m], rest, strict=True))
            candidates += _sweep(player, banker, fixed, m, sets)
    found = {}
    for x, y in candidates:
        if (x, y) not in found and _is_equilibrium(player, banker, x, y):
            found[(x, y)] = _equilibrium(payoffs, commission, player, banker, x, y)
    return list(found.values())


def _equilibrium(
    payoffs: Payoffs, commission: Fraction, player: _Side, banker: _Side, x: tuple, y: tuple
) -> Equilibrium:
    rows = banker_rows(payoffs.model)
    return Equilibrium(
        model=payoffs.model,
        decks=payoffs.decks,
        commission=commission,
        player={label(s): p for s, p in zip(player_sets(payoffs.model), x, strict=True)},
        banker={label(r): tuple(y[i * COLUMNS : (i + 1) * COLUMNS]) for i, r in enumerate(rows)},
        player_value=player.value(x, y) / payoffs.denominator,
        banker_value=banker.value(x, y) / (payoffs.denominator * commission.denominator),
    )
