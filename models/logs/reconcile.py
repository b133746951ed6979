"""Shoe reconciliation: no card, rank or value may be seen more often than the shoe holds.

Rows are taken shoe by shoe in round order (rows already in the warehouse first); a row whose cards
would take a count past what the shoe holds is overdrawn, and its cards are not counted.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

BY_CARD, BY_RANK, BY_VALUE = 0, 1, 2
GRANULARITY = ("card", "rank", "value")


@njit(cache=True, inline="always")
def _holds(granularity, code, decks) -> int:
    """How many of `code` (a card, rank or value, by `granularity`) a shoe of `decks` packs holds."""
    if granularity == BY_CARD:
        return decks
    if granularity == BY_RANK or code != 0:
        return 4 * decks
    return 16 * decks  # the ten-value cards: ten, jack, queen and king


@njit(cache=True)
def overdrawn_rows(shoe, codes, granularity, decks):
    """For rows sorted by shoe then order: the first code each row overdraws, or -1.

    `codes[i]` holds the row's cards at its shoe's granularity (-1 for none); `granularity` and
    `decks` are per row (constant within a shoe).
    """
    n = codes.shape[0]
    out = np.full(n, -1, np.int64)
    counts = np.zeros(52, np.int64)
    for i in range(n):
        if i == 0 or shoe[i] != shoe[i - 1]:
            counts[:] = 0
        g, d = granularity[i], decks[i]
        over = -1
        for j in range(codes.shape[1]):
            code = codes[i, j]
            if code < 0:
                continue
            counts[code] += 1
            if counts[code] > _holds(g, code, d) and over < 0:
                over = code
        if over >= 0:  # an overdrawn row's cards are not counted
            for j in range(codes.shape[1]):
                if codes[i, j] >= 0:
                    counts[codes[i, j]] -= 1
        out[i] = over
    return out


@njit(cache=True)
def _dense(keys):
    """Each row's key as an index 0..k-1, in order of first appearance, and the keys by index.
    Rows of one key usually come together, so the dictionary is asked only where the key changes."""
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    n = keys.shape[0]
    dense = np.empty(n, np.int64)
    for i in range(n):
        if i > 0 and keys[i] == keys[i - 1]:
            dense[i] = dense[i - 1]
            continue
        j = index.get(keys[i], -1)
        if j < 0:
            j = len(index)
            index[keys[i]] = j
        dense[i] = j
    found = np.empty(len(index), np.int64)
    for key, j in index.items():
        found[j] = key
    return dense, found


@njit(cache=True)
def shoes_over_limits(shoe_keys, cards, decks):
    """The keys of the shoes where some card is seen, over all their rows in any order, more often
    than the fewest decks any of their rows names allow, at the shoe's granularity: card when every
    card there has a suit, rank when every card has a rank, else value. Only these shoes can have
    a row that overdraws, so only they need counting in round order.

    `cards[:, i]` holds row i's nine slots as (value, rank, suit) triples, -1 where unknown.
    """
    shoe, keys = _dense(shoe_keys)
    m = keys.shape[0]
    by_card, by_rank, by_value = np.zeros((m, 52), np.int64), np.zeros((m, 13), np.int64), np.zeros((m, 10), np.int64)
    suited, ranked = np.ones(m, np.bool_), np.ones(m, np.bool_)
    fewest = np.full(m, 1 << 30, np.int64)
    for i in range(shoe.shape[0]):
        fewest[shoe[i]] = min(fewest[shoe[i]], decks[i])
    for slot in range(0, cards.shape[0], 3):  # a slot at a time: each pass reads three rows of `cards` in order
        values, ranks, suits = cards[slot], cards[slot + 1], cards[slot + 2]
        for i in range(shoe.shape[0]):
            value, rank, suit, s = values[i], ranks[i], suits[i], shoe[i]
            if value < 0:
                continue
            by_value[s, value] += 1
            if rank < 0:
                ranked[s] = suited[s] = False
                continue
            by_rank[s, rank] += 1
            if suit < 0:
                suited[s] = False
            else:
                by_card[s, rank * 4 + suit] += 1
    over = np.zeros(m, np.bool_)
    for s in range(m):
        granularity = BY_CARD if suited[s] else (BY_RANK if ranked[s] else BY_VALUE)
        counts = by_card[s] if suited[s] else (by_rank[s] if ranked[s] else by_value[s])
        for code in range(counts.shape[0]):
            if counts[code] > _holds(granularity, code, fewest[s]):
                over[s] = True
                break
    return keys[over]
