"""One coup of the exact chain over every live session at once, compiled: the fast walk of
`models/systems/exact.py` (whose `exact=True` path, in Fractions, is its reference twin).

A live session is (state number, result in ticks, probability), the arrays sorted by state, then
result. Each coup moves every session by every event, absorbs those reaching the goal, the stop-loss
or ruin, and sums the probabilities of equal (state, result) pairs: in a dense window of results per
next state when the windows are small beside the sessions (most systems), else by sorting.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Why a session stopped: the codes of `ended` below, in the order of `exact.ENDS`.
GOAL, STOP_LOSS, RUIN = 0, 1, 2
#: Dense windows are used while they hold at most this many slots per session moved, plus a floor.
WINDOW_SLACK, WINDOW_FLOOR = 4, 1 << 20


@njit(cache=True)
def _stake(units, result, unit, max_bet, min_bet, bankroll, has_bankroll):
    """Table.wager for one session: the amount staked and whether the table or the bankroll capped it."""
    wanted = units * unit
    most = max_bet
    if has_bankroll:
        left = ((bankroll + result) // min_bet) * min_bet
        if left < most:
            most = left
    if wanted > most:
        return most, True
    return wanted, False


@njit(cache=True)
def step(states, results, weights, units, sides, nexts, event_weights, num, den, money, has):
    """One coup. `units`, `sides` (0 B, 1 P, 2 T, -1 sits out) and `nexts` (state, event, capped) are per
    state number; `num`/`den` the nets per (event, side), column 3 for sitting out; `money` the unit, max
    bet, min bet, bankroll, goal and stop-loss in ticks, `has` whether bankroll, goal, stop-loss are set.
    Returns the live sessions after it, the absorbed (end code, result, probability), the probability of
    a bet and the probability-weighted amount wagered on each side."""
    unit, max_bet, min_bet, bankroll, goal, stop_loss = money[0], money[1], money[2], money[3], money[4], money[5]
    has_bankroll, has_goal, has_stop = has[0], has[1], has[2]
    n, events = len(states), len(event_weights)
    # sessions moved on fill the buffers from the front, those absorbed from the back (state: the end code)
    size = n * events
    child_s = np.empty(size, np.int64)
    child_r = np.empty(size, np.int64)
    child_w = np.empty(size)
    bets = 0.0
    wagered = np.zeros(3)
    children = ended = 0
    for i in range(n):
        s, r, w = states[i], results[i], weights[i]
        side = sides[s]
        amount, capped = 0, False
        column = 3
        if side >= 0:
            amount, capped = _stake(units[s], r, unit, max_bet, min_bet, bankroll, has_bankroll)
            bets += w
            wagered[side] += w * amount
            column = side
        for e in range(events):
            after = r + amount * num[e, column] // den[e, column]
            moved = w * event_weights[e]
            code = -1
            if has_goal and after >= goal:
                code = GOAL
            elif has_stop and after <= -stop_loss:
                code = STOP_LOSS
            elif has_bankroll and bankroll + after < min_bet:
                code = RUIN
            if code >= 0:
                ended += 1
                child_s[size - ended], child_r[size - ended], child_w[size - ended] = code, after, moved
            else:
                child_s[children] = nexts[s, e, 1 if capped else 0]
                child_r[children], child_w[children] = after, moved
                children += 1
    live = merge(child_s[:children], child_r[:children], child_w[:children], len(units))
    back = size - ended
    return live[0], live[1], live[2], child_s[back:], child_r[back:], child_w[back:], bets, wagered


@njit(cache=True)
def merge(states, results, weights, numbers):
    """Equal (state, result) pairs summed, sorted by state then result; `numbers` bounds the states."""
    n = len(states)
    if n == 0:
        return states, results, weights
    low = np.full(numbers, np.iinfo(np.int64).max, np.int64)
    high = np.full(numbers, np.iinfo(np.int64).min, np.int64)
    for i in range(n):
        s, r = states[i], results[i]
        low[s] = min(low[s], r)
        high[s] = max(high[s], r)
    offset = np.zeros(numbers + 1, np.int64)
    for s in range(numbers):
        offset[s + 1] = offset[s] + (high[s] - low[s] + 1 if high[s] >= low[s] else 0)
    if offset[numbers] > WINDOW_SLACK * n + WINDOW_FLOOR:
        return _merge_sorting(states, results, weights)
    slots = offset[numbers]
    total = np.zeros(slots)
    seen = np.zeros(slots, np.bool_)
    for i in range(n):
        at = offset[states[i]] + results[i] - low[states[i]]
        total[at] += weights[i]
        seen[at] = True
    kept = 0
    for at in range(slots):
        kept += seen[at]
    out_s = np.empty(kept, np.int64)
    out_r = np.empty(kept, np.int64)
    out_w = np.empty(kept)
    k = 0
    for s in range(numbers):
        for at in range(offset[s], offset[s + 1]):
            if seen[at]:
                out_s[k], out_r[k], out_w[k] = s, low[s] + at - offset[s], total[at]
                k += 1
    return out_s, out_r, out_w


@njit(cache=True)
def _merge_sorting(states, results, weights):
    by_result = np.argsort(results, kind="mergesort")
    order = by_result[np.argsort(states[by_result], kind="mergesort")]  # by state, then result
    n = len(order)
    out_s = np.empty(n, np.int64)
    out_r = np.empty(n, np.int64)
    out_w = np.empty(n)
    k = -1
    for j in range(n):
        i = order[j]
        if k < 0 or states[i] != out_s[k] or results[i] != out_r[k]:
            k += 1
            out_s[k], out_r[k], out_w[k] = states[i], results[i], 0.0
        out_w[k] += weights[i]
    return out_s[: k + 1], out_r[: k + 1], out_w[: k + 1]
