"""A plain twin of the banque payoffs: the coup's game tree walked straight from the rules, in floats."""

from models.gametheory.banque_payoffs import Cell

CARD = [4 / 13] + [1 / 13] * 9
TWO = [sum(CARD[a] * CARD[b] for a in range(10) for b in range(10) if (a + b) % 10 == t) for t in range(10)]


def _sign(x):
    return (x > 0) - (x < 0)


def _player(total, draws_on_5):
    """(what the banker sees, final total, probability) for a Player's two-card total."""
    if total >= 8:
        return [("N", total, 1.0)]
    if total <= 4 or (total == 5 and draws_on_5):
        return [(c, (total + c) % 10, CARD[c]) for c in range(10)]
    return [("S", total, 1.0)]


def _result(banker_final, seen, final):
    return -1 if seen == "N" else _sign(banker_final - final)  # a Player's natural is paid at once


def banker_value(theta, law, banker):
    """The banker's expectation: Player 1 stakes theta, Player 2 1 - theta; `law` is the Players'
    joint law on 5, `banker` the draw probability per `Cell`."""
    theta = float(theta)
    total = 0.0
    for (a1, a2), q in law.items():
        if not q:
            continue
        for j, pj in enumerate(TWO):
            for t1, p1 in enumerate(TWO):
                for t2, p2 in enumerate(TWO):
                    w = float(q) * pj * p1 * p2
                    if j >= 8:
                        total += w * (theta * _sign(j - t1) + (1 - theta) * _sign(j - t2))
                        continue
                    for s1, f1, r1 in _player(t1, a1):
                        for s2, f2, r2 in _player(t2, a2):
                            if s1 == "N" and s2 == "N":
                                total -= w * r1 * r2
                                continue
                            b = float(banker[Cell(j, s1, s2)])
                            stand = theta * _result(j, s1, f1) + (1 - theta) * _result(j, s2, f2)
                            draw = sum(
                                CARD[c]
                                * (theta * _result((j + c) % 10, s1, f1) + (1 - theta) * _result((j + c) % 10, s2, f2))
                                for c in range(10)
                            )
                            total += w * r1 * r2 * ((1 - b) * stand + b * draw)
    return total
