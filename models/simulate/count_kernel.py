"""The table's money, coup by coup: buy-ins, markers, the tray, fills, credits, drops and the counts.

One compiled pass over a chunk's coups in table-day and time order. Amounts are integers in
ten-thousandths (MONEY's scale, as wagers settle); every slip and count is in whole cents. A fault
chosen for a shift is played at its first coup where it can be (docs/simulator.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.money_units import CENT

#: Event codes: the index of each kind in models.contract.EVENT_KINDS.
OPENER, CLOSER, FILL, CREDIT, DROP, MARKER, MARKER_PAYMENT = range(7)
#: Fault codes (count_faults.KINDS, from 1).
NO_FAULT, SHORT_FILL, MISSING_CREDIT_SLIP, WALKED_CHIPS, OVERPAID_WAGER = range(5)
#: Slots of the parameters array (amounts in ten-thousandths, times in microseconds).
PAR, LOW, HIGH, STEP, CHIP, FORCED_FILL = range(6)
#: params[FAULT_AMOUNTS + kind]: what a fault of that kind takes from the tray.
FAULT_AMOUNTS = 6
PARAMS = FAULT_AMOUNTS + 5
SECOND = 1_000_000
#: Offsets from a coup's start: a fill before the buy-ins, the buy-ins before the cards, then the
#: payments and credits after it (a coup lasts at least about 30 s at the default pace).
FILL_BEFORE, BUY_BEFORE, FAULT_AFTER, PAYMENT_AFTER, CREDIT_AFTER = 8, 5, 10, 15, 20
CLOSING_AFTER = 300  # the tray is brought back to par this long after the day's last coup


@njit(cache=True)
def _ceil(amount, step):
    return -((-amount) // step) * step


@njit(cache=True)
def count_table_days(
    coup_shift, coup_time, coup_net, coup_entries,
    entry_player, entry_wager, entry_payout, entry_first, entry_last,
    buy_in_cents, credit, repays,
    shift_day, shift_start, shift_end, shift_fault, params,
):  # fmt: skip
    """The events of every shift with coups, and what each shift's fault did.

    Returns the events (shift, kind, time, amount, player) and per shift the fault's amount, its
    coup, its player or -1, its slip's event or -1, and the tray's lowest level.
    """
    n_coups, n_shifts = coup_shift.shape[0], shift_start.shape[0]
    size = 6 * n_shifts + 2 * n_coups + 2 * entry_player.shape[0] + 16
    ev_shift = np.empty(size, np.int64)
    ev_kind = np.empty(size, np.int8)
    ev_time = np.empty(size, np.int64)
    ev_amount = np.empty(size, np.int64)
    ev_player = np.empty(size, np.int64)
    fault_amount = np.zeros(n_shifts, np.int64)
    fault_coup = np.full(n_shifts, -1, np.int64)
    fault_player = np.full(n_shifts, -1, np.int64)
    fault_event = np.full(n_shifts, -1, np.int64)
    lowest = np.full(n_shifts, np.iinfo(np.int64).max, np.int64)  # the tray's lowest moment in each shift
    stack = np.zeros(buy_in_cents.shape[0], np.int64)
    owed = np.zeros(buy_in_cents.shape[0], np.int64)
    par, low, high, step, chip = params[PAR], params[LOW], params[HIGH], params[STEP], params[CHIP]
    n = 0
    tray, drop, shift, pending, last_time = par, 0, -1, NO_FAULT, 0
    for c in range(n_coups + 1):
        s = coup_shift[c] if c < n_coups else -1
        if s != shift and shift >= 0:  # close the shift
            end = shift_end[shift]
            if s < 0 or shift_day[s] != shift_day[shift]:  # the day's last shift: back to par
                at = min(last_time + CLOSING_AFTER * SECOND, end - 1000)
                over = tray - par
                if over >= CENT:
                    n = _emit(
                        ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, shift, CREDIT, at, over // CENT * CENT, -1
                    )
                    tray -= over // CENT * CENT
                elif over < 0:
                    n = _emit(
                        ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, shift, FILL, at, _ceil(-over, CENT), -1
                    )
                    tray += _ceil(-over, CENT)
            n = _emit(ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, shift, DROP, end, drop, -1)
            n = _emit(ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, shift, CLOSER, end, tray // CENT * CENT, -1)
        if s < 0:
            break
        if s != shift:  # open the shift
            if shift < 0 or shift_day[s] != shift_day[shift]:
                tray = par
            shift, drop, pending = s, 0, shift_fault[s]
            n = _emit(
                ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, s, OPENER, shift_start[s], tray // CENT * CENT, -1
            )
        t, start, end = coup_time[c], shift_start[s], shift_end[s]
        first, stop = coup_entries[c], coup_entries[c + 1]
        # chips the coup's bettors need: a buy-in on sitting down, a re-buy when their chips run short
        sales = 0
        for e in range(first, stop):
            p = entry_player[e]
            if entry_first[e]:
                stack[p], owed[p] = 0, 0
            need = entry_wager[e] * CENT - stack[p]
            if entry_first[e] or need > 0:
                sales += max(buy_in_cents[p] * CENT, _ceil(need, chip))
        kind = pending
        projected = tray - sales + min(coup_net[c], 0)
        forced = pending == SHORT_FILL
        if projected < low or forced:
            slip = max(_ceil(par - projected, step), params[FORCED_FILL] if forced else 0)
            got = slip - params[FAULT_AMOUNTS + kind] if forced else slip
            fault_event[s] = n if forced else fault_event[s]
            n = _emit(
                ev_shift,
                ev_kind,
                ev_time,
                ev_amount,
                ev_player,
                n,
                s,
                FILL,
                max(t - FILL_BEFORE * SECOND, start),
                slip,
                -1,
            )
            tray += got
            if forced:
                fault_amount[s], fault_coup[s], pending = -params[FAULT_AMOUNTS + kind], c, NO_FAULT
        for e in range(first, stop):
            p = entry_player[e]
            need = entry_wager[e] * CENT - stack[p]
            if entry_first[e] or need > 0:
                buy = max(buy_in_cents[p] * CENT, _ceil(need, chip))
                if credit[p]:
                    at = max(t - BUY_BEFORE * SECOND, start)
                    n = _emit(ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, s, MARKER, at, buy, p)
                    owed[p] += buy
                else:
                    drop += buy
                stack[p] += buy
                tray -= buy
        lowest[s] = min(lowest[s], tray, tray + coup_net[c])
        tray += coup_net[c]
        for e in range(first, stop):
            stack[entry_player[e]] += entry_payout[e]
        if pending == OVERPAID_WAGER:
            for e in range(first, stop):
                if entry_payout[e] > 0:
                    stack[entry_player[e]] += params[FAULT_AMOUNTS + kind]
                    tray -= params[FAULT_AMOUNTS + kind]
                    fault_amount[s], fault_coup[s], fault_player[s] = -params[FAULT_AMOUNTS + kind], c, entry_player[e]
                    pending = NO_FAULT
                    break
        elif pending in (WALKED_CHIPS, MISSING_CREDIT_SLIP) and tray >= params[FAULT_AMOUNTS + kind]:
            tray -= params[FAULT_AMOUNTS + kind]
            fault_amount[s], fault_coup[s], pending = -params[FAULT_AMOUNTS + kind], c, NO_FAULT
        lowest[s] = min(lowest[s], tray)
        for e in range(first, stop):  # leaving: some repay their markers from their chips
            p = entry_player[e]
            if entry_last[e] and repays[p] and owed[p] > 0:
                paid = min(owed[p], stack[p] // chip * chip)
                if paid > 0:
                    at = min(t + PAYMENT_AFTER * SECOND, end - 1000)
                    n = _emit(ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, s, MARKER_PAYMENT, at, paid, p)
                    stack[p] -= paid
                    owed[p] -= paid
                    tray += paid
        if tray > high:
            slip = (tray - par) // step * step
            n = _emit(
                ev_shift,
                ev_kind,
                ev_time,
                ev_amount,
                ev_player,
                n,
                s,
                CREDIT,
                min(t + CREDIT_AFTER * SECOND, end - 1000),
                slip,
                -1,
            )
            tray -= slip
        last_time = t
    return (
        ev_shift[:n], ev_kind[:n], ev_time[:n], ev_amount[:n], ev_player[:n],
        fault_amount, fault_coup, fault_player, fault_event, lowest,
    )  # fmt: skip


@njit(cache=True)
def _emit(ev_shift, ev_kind, ev_time, ev_amount, ev_player, n, shift, kind, time, amount, player):
    ev_shift[n], ev_kind[n], ev_time[n], ev_amount[n], ev_player[n] = shift, kind, time, amount, player
    return n + 1
