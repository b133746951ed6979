"""Each coup's bettors, from a chunk's wagers: one entry per (coup, player) with what they staked and
won, and where each player's sittings at a table-day begin and end.

One compiled pass: each wager finds its coup by its key in a table of the chunk's coups, the wagers
are counted into their coups (as dealt they are in order already), and each wager is added to its
player's entry among its coup's few, kept in player order; nothing sorts a whole chunk's wagers.
`tests/models/simulate/test_entries.py` holds the plain twin (numpy sorts and group-bys).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit


@dataclass(frozen=True)
class Entries:
    """One entry per (coup, player) who wagered on it, coups in the order given, players ascending."""

    coup_entries: np.ndarray  # int64, coups + 1: coup c's entries are coup_entries[c]:coup_entries[c + 1]
    coup_net: np.ndarray  # int64: each coup's house net, the sum of its wagers'
    player: np.ndarray  # int64
    wager: np.ndarray  # int64: the sum of the player's wagers on the coup, in cents
    payout: np.ndarray  # int64: the sum of their payouts, in ten-thousandths
    first: np.ndarray  # bool: the entry opens the player's sitting at the table-day
    last: np.ndarray  # bool: the entry closes it


def coup_order(table_day: np.ndarray, time: np.ndarray) -> np.ndarray:
    """The coups' order by table-day, then time (ties as given): as dealt, each table-day's coups come
    together and in time order, so a stable sort by table-day alone gives it; else a full sort."""
    order = np.argsort(table_day, kind="stable")
    day, at = table_day[order], time[order]
    if np.any((at[1:] < at[:-1]) & (day[1:] == day[:-1])):
        order = np.lexsort((time, table_day))
    return order


def coup_entries(
    order: np.ndarray,
    coup_keys: tuple[np.ndarray, np.ndarray, np.ndarray],
    table_day: np.ndarray,
    time: np.ndarray,
    wagers: tuple[np.ndarray, ...],
    tables: int,
    gap: int,
) -> Entries:
    """The entries of the coups taken in `order`.

    Parameters
    ----------
    order
        The coups' rows in the order wanted (`coup_order`).
    coup_keys
        Per coup row: its shoe, table and round numbers (non-negative integers; together unique).
    table_day, time
        Per coup in `order`: its table-day number and its time (microseconds).
    wagers
        Per wager: its coup's shoe, table and round numbers, its player number, its amount in cents,
        its payout and its house net (both in ten-thousandths).
    tables
        More than any table number.
    gap
        A player's wagers at a table-day more than this far apart (microseconds) are two sittings.
    """
    shoe, table, round_no = coup_keys
    found, *arrays = _coup_entries(order, shoe, table, round_no, table_day, time, *wagers, tables, gap)
    if not found:
        raise ValueError("a coup's table or round is out of range, or a wager's coup is not among the rounds")
    return Entries(*arrays)


@njit(cache=True, nogil=True)
def _coup_entries(
    order, r_shoe, r_table, r_round, c_table_day, c_time,
    b_shoe, b_table, b_round, b_player, b_cents, b_payout, b_net, tables, gap,
):  # fmt: skip
    """`coup_entries`' pass (its arguments, unpacked), after whether every wager's coup was found."""
    n, m = order.shape[0], b_shoe.shape[0]
    entries = np.zeros(n + 1, np.int64)
    coup_net = np.zeros(n, np.int64)
    player = np.empty(m, np.int64)
    wager = np.zeros(m, np.int64)
    payout = np.zeros(m, np.int64)
    # each coup's place in `order`, by its key
    low, high, width = 0, -1, 1
    if n:
        low, high = r_shoe.min(), r_shoe.max()
        width = np.int64(r_round.max()) + 1
    place = np.full((high - low + 1) * tables * width, -1, np.int64)
    nothing = np.zeros(0, np.bool_)
    for k in range(n):
        i = order[k]
        if not (0 <= r_table[i] < tables and r_round[i] >= 0):
            return False, entries, coup_net, player[:0], wager[:0], payout[:0], nothing, nothing
        place[((np.int64(r_shoe[i]) - low) * tables + r_table[i]) * width + r_round[i]] = k
    # the wagers counted into their coups, in their order within each (as dealt, they come in that order)
    first_bet = np.zeros(n + 1, np.int64)
    of_bet = np.empty(m, np.int64)
    in_order = True
    for j in range(m):
        s = np.int64(b_shoe[j]) - low
        inside = 0 <= s <= high - low and 0 <= b_table[j] < tables and 0 <= b_round[j] < width
        k = place[(s * tables + b_table[j]) * width + b_round[j]] if inside else -1
        if k < 0:
            return False, entries, coup_net, player[:0], wager[:0], payout[:0], nothing, nothing
        of_bet[j] = k
        in_order = in_order and (j == 0 or k >= of_bet[j - 1])
        first_bet[k + 1] += 1
    for k in range(n):
        first_bet[k + 1] += first_bet[k]
    bets = of_bet  # their order: wager j itself when in order, else counted into place
    if not in_order:
        bets = np.empty(m, np.int64)
        fill = first_bet[:n].copy()
        for j in range(m):
            bets[fill[of_bet[j]]] = j
            fill[of_bet[j]] += 1
    # one entry per (coup, player), a coup's players ascending: each wager added to its player's
    # entry or put in its place among the coup's few entries; then the coup's entries open or carry
    # on their players' sittings (a player's entries at one table-day, split where they pause longer
    # than the gap)
    first = np.zeros(m, np.bool_)
    last = np.zeros(m, np.bool_)
    players = b_player.max() + 1 if m else 0
    seen = np.full(players, -1, np.int64)
    seen_day = np.empty(players, np.int64)
    seen_time = np.empty(players, np.int64)
    e = 0
    for k in range(n):
        entries[k] = e
        for x in range(first_bet[k], first_bet[k + 1]):
            j = x if in_order else bets[x]
            p = b_player[j]
            at = e
            while at > entries[k] and player[at - 1] > p:
                at -= 1
            if at == entries[k] or player[at - 1] != p:
                for y in range(e, at, -1):
                    player[y], wager[y], payout[y] = player[y - 1], wager[y - 1], payout[y - 1]
                player[at], wager[at], payout[at] = p, 0, 0
                e += 1
            else:
                at -= 1
            wager[at] += b_cents[j]
            payout[at] += b_payout[j]
            coup_net[k] += b_net[j]
        day, time = c_table_day[k], c_time[k]
        for x in range(entries[k], e):
            p = player[x]
            before = seen[p]
            if before >= 0 and seen_day[p] == day and time - seen_time[p] <= gap:
                last[before] = False
            else:
                first[x] = True
            last[x] = True
            seen[p], seen_day[p], seen_time[p] = x, day, time
    entries[n] = e
    return True, entries, coup_net, player[:e], wager[:e], payout[:e], first[:e], last[:e]
