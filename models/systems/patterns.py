"""What each pattern a road reader bets "says" about the next coup: one place for the pattern followers,
the calibration and the shoe explorer. Ties are ignored, as the big road ignores them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from models.metrics.roads import DERIVED, RED, ask, big_road_columns, derived

Side = Literal["B", "P"]
PATTERNS = ("follow-winner", "chop", "follow-column", "ask-big-eye-boy", "ask-small-road", "ask-cockroach-pig")
#: The derived road each ask pattern reads.
ASK_ROADS = {"ask-big-eye-boy": "big_eye_boy", "ask-small-road": "small_road", "ask-cockroach-pig": "cockroach_pig"}
OTHER: dict[str, Side] = {"B": "P", "P": "B"}


def _last_decision(outcomes: Sequence[str]) -> Side | None:
    for outcome in reversed(outcomes):
        if outcome in OTHER:
            return outcome  # type: ignore[return-value]
    return None


def predict(pattern: str, outcomes: Sequence[str]) -> Side | None:
    """The side `pattern` backs before the next coup of a shoe whose outcomes so far are `outcomes`
    ('B', 'P', 'T'), or None while it says nothing yet."""
    if pattern in ("follow-winner", "chop"):
        last = _last_decision(outcomes)
        return last if last is None or pattern == "follow-winner" else OTHER[last]
    if pattern == "follow-column":
        columns = big_road_columns(outcomes)
        if len(columns) < 2:
            return None
        side = columns[-1][0][0]
        # the column is expected to run as long as the one before it, then to end
        return side if len(columns[-1]) < len(columns[-2]) else OTHER[side]
    if pattern in ASK_ROADS:
        cells = ask(outcomes)[ASK_ROADS[pattern]]
        return next((side for side in ("B", "P") if cells[side] == RED), None)
    raise ValueError(f"unknown pattern {pattern!r}: one of {', '.join(PATTERNS)}")


def calls(pattern: str, outcomes: Sequence[str]) -> list[Side | None]:
    """`predict` before every coup of a whole shoe: element i is what the pattern backed before coup i.

    For an ask pattern this reads the shoe's derived road once instead of asking at every coup: the
    ask cells of Banker and Player are opposite, so the side whose cell is red is the side the coup
    went to exactly when the coup added a red mark (a tie adds none: it is called as the next
    decision is, or by asking when no decision follows)."""
    if pattern not in ASK_ROADS:
        return [predict(pattern, outcomes[:i]) for i in range(len(outcomes))]
    marks = derived(big_road_columns(outcomes), DERIVED[ASK_ROADS[pattern]])
    decided = [i for i, outcome in enumerate(outcomes) if outcome in OTHER]
    # the road's marks belong to the last decisions: the first ones fall before its starting cell
    called: dict[int, Side] = {}
    for i, mark in zip(decided[len(decided) - len(marks) :], marks, strict=True):
        called[i] = outcomes[i] if mark == RED else OTHER[outcomes[i]]  # type: ignore[assignment]
    result: list[Side | None] = [None] * len(outcomes)
    following: Side | None = predict(pattern, outcomes) if outcomes and outcomes[-1] == "T" else None
    for i in reversed(range(len(outcomes))):
        if outcomes[i] == "T":
            result[i] = following
        else:
            result[i] = following = called.get(i)
    return result
