"""The plain twin of `models.odds.decisions`: every ordered deal of the hidden cards, in Fractions.

Written from the rules (`tableau` and `DrawPolicy.draw_probability`), not from the kernel: the hidden
cards are dealt one by one from the counts, each with probability count / cards left.
"""

from __future__ import annotations

from fractions import Fraction

from models.game.games import Game
from models.game.tableau import DEFAULT_POLICY, DrawPolicy, Hand

STOOD = 10


def _deals(counts: list[int], k: int):
    """Every ordered deal of k cards from `counts` (by point value), with its probability."""
    if k == 0:
        yield (), Fraction(1)
        return
    left = sum(counts)
    for v in range(10):
        if counts[v]:
            share = Fraction(counts[v], left)
            counts[v] -= 1
            for rest, p in _deals(counts, k - 1):
                yield (v, *rest), share * p
            counts[v] += 1


def _result(own: int, other: int, win: Fraction) -> Fraction:
    return win if own > other else Fraction(-1) if own < other else Fraction(0)


def _probability(policy: DrawPolicy, game: Game, hand: Hand, total: int, third: int | None) -> Fraction:
    return Fraction(policy.draw_probability(game, hand, total, third))


def punter_values(counts, game: Game, total: int, policy: DrawPolicy = DEFAULT_POLICY) -> tuple[Fraction, Fraction]:
    """A punter on `total`: (drawing, standing) per unit, the banker's two hidden cards not a natural."""
    counts = list(counts)
    weight, drawn, stood = Fraction(0), Fraction(0), Fraction(0)
    for (b1, b2, x, y), p in _deals(counts, 4):  # the banker's two cards, then two more the coup may take
        bt = (b1 + b2) % 10
        if bt >= 8:
            continue
        weight += p
        # standing: the banker's third card (if he draws) is x
        bd = _probability(policy, game, Hand.BANKER, bt, None)
        stood += p * ((1 - bd) * _result(total, bt, Fraction(1)) + bd * _result(total, (bt + x) % 10, Fraction(1)))
        # drawing: the punter takes x, the banker then y if he draws
        final = (total + x) % 10
        bd = _probability(policy, game, Hand.BANKER, bt, x)
        drawn += p * ((1 - bd) * _result(final, bt, Fraction(1)) + bd * _result(final, (bt + y) % 10, Fraction(1)))
    return drawn / weight, stood / weight


def banker_values(
    counts, game: Game, total: int, thirds, stakes, bank_win: Fraction, policy: DrawPolicy = DEFAULT_POLICY
) -> tuple[Fraction, Fraction]:
    """A banker on `total` against the live hands of `thirds` (third card, STOOD, or None: not live),
    weighted by `stakes` (all zero: equally): (drawing, standing) per unit of live stake."""
    live = [(third, Fraction(stake)) for third, stake in zip(thirds, stakes, strict=True) if third is not None]
    if sum(stake for _, stake in live) == 0:
        live = [(third, Fraction(1)) for third, _ in live]
    scale = sum(stake for _, stake in live)
    weight, drawn, stood = Fraction(0), Fraction(0), Fraction(0)
    for cards, p in _deals(list(counts), 2 * len(live) + 1):
        hands = [cards[2 * i : 2 * i + 2] for i in range(len(live))]
        likely, finals = p, []
        for (third, _), (a, b) in zip(live, hands, strict=True):
            t = (a + b) % 10
            if t >= 8:
                likely = Fraction(0)
                break
            drew = _probability(policy, game, Hand.PLAYER, t, None)
            likely *= drew if third != STOOD else 1 - drew
            finals.append(t if third == STOOD else (t + third) % 10)
        if not likely:
            continue
        weight += likely
        extra = cards[-1]
        stood += likely * sum(s * _result(total, f, bank_win) for (_, s), f in zip(live, finals, strict=True))
        drawn += likely * sum(
            s * _result((total + extra) % 10, f, bank_win) for (_, s), f in zip(live, finals, strict=True)
        )
    return drawn / (weight * scale), stood / (weight * scale)
