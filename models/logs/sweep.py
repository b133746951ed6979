"""Plain rows at machine speed: one compiled pass over the hands as Arrow holds them.

Nearly every row of a real log is plain: canonical card tokens (`AH KD 5C`, `K Q`, `0 5`), two or
three cards a hand, draws by the tableau, an outcome that agrees with the cards. `sweep` reads such
hands straight from Arrow's string views and gives each row's cards, totals and outcomes, and marks
the rows it cannot vouch for; those go through the full checks of `models/logs/checks.py`, which
name the reason. The tableau is the lookup built from the one rules function (`rules.violations`),
the card codes are those of `hands`; tests hold the two paths to the same result on every row.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numba import njit

from models.logs import hands
from models.logs.rules import AXES, violations

NO_THIRD = 10  # the tableau lookup's "player stood"
MAX_CARDS = hands.MAX_CARDS
#: Columns of `sweep`'s facts, -1 where null: totals of the three hands, the outcome of each player
#: hand against the banker (0 B, 1 P, 2 T), natural, and each first hand's pair (0 no, 1 yes).
FACTS = ("player_total", "banker_total", "player2_total", "outcome", "outcome2", "natural",
         "player_pair", "banker_pair", "player_count", "banker_count", "player2_count")  # fmt: skip


def _byte_table(mapping: dict[str, int]) -> np.ndarray:
    """A lookup by byte: the mapping's value, or -1."""
    table = np.full(256, -1, np.int8)
    for symbol, value in mapping.items():
        table[ord(symbol)] = value
    return table


#: By first byte of a canonical token: point value, rank index; by second byte: suit index.
VALUE_OF = _byte_table(hands.VALUES)
RANK_OF = _byte_table(hands.RANK_INDEX)
SUIT_OF = _byte_table(hands.SUIT_INDEX)
SPACE = ord(" ")


def _arrow(series: pl.Series):
    return series.cast(pl.String).rechunk().to_arrow(compat_level=pl.CompatLevel.newest())


def views(series: pl.Series) -> np.ndarray:
    """The column's Arrow string views, one row of 16 bytes each (a string of up to 12 bytes sits
    in its view, from byte 4; its length is bytes 0-3)."""
    text = _arrow(series)
    if text.null_count == len(text):
        found = np.zeros((len(text), 16), np.uint8)
        found.flags.writeable = False  # as Arrow's own are: one compiled signature serves both
        return found
    return np.frombuffer(text.buffers()[1], np.uint8).reshape(-1, 16)[text.offset : text.offset + len(text)]


def present(series: pl.Series) -> np.ndarray:
    """Per row: the value is not null (a fresh array, the same type whatever Polars holds)."""
    return np.array(series.is_not_null().to_numpy(), np.bool_)


def small_ints(series: pl.Series) -> np.ndarray:
    """Small codes as a fresh int8 array."""
    return np.array(series.to_numpy(), np.int8)


def plain_text(series: pl.Series) -> np.ndarray:
    """Per row: the text is there and needs no trimming (it neither starts nor ends with a space or
    a byte outside ASCII, so whatever Unicode calls white space)."""
    text = _arrow(series)
    if text.null_count == len(text):
        return np.zeros(len(text), np.bool_)
    buffers = text.buffers()
    view = np.frombuffer(buffers[1], np.uint8).reshape(-1, 16)[text.offset : text.offset + len(text)]
    data = [np.frombuffer(buffer, np.uint8) for buffer in buffers[2:] if buffer is not None]
    starts = np.cumsum([0] + [len(block) for block in data], dtype=np.int64)
    data = np.concatenate(data) if data else np.zeros(1, np.uint8)
    return _plain_text(view, data, starts) & present(series)


@njit(cache=True, inline="always")
def _bare(byte) -> bool:
    """A byte that cannot be (part of) white space: printable ASCII other than the space."""
    return 33 <= byte <= 126


@njit(cache=True)
def _plain_text(view, data, starts):
    n = view.shape[0]
    out = np.zeros(n, np.bool_)
    for i in range(n):
        length = _length(view[i])
        if length == 0:
            continue
        if length <= 12:
            last = view[i, 3 + length]
        else:
            last = data[starts[_word(view[i], 8)] + _word(view[i], 12) + length - 1]
        out[i] = _bare(view[i, 4]) and _bare(last)
    return out


@njit(cache=True, inline="always")
def _word(view, at) -> int:
    """The little-endian 32-bit number at byte `at` of a view."""
    return (
        np.int64(view[at])
        | (np.int64(view[at + 1]) << 8)
        | (np.int64(view[at + 2]) << 16)
        | (np.int64(view[at + 3]) << 24)
    )


@njit(cache=True, inline="always")
def _length(view) -> int:
    return _word(view, 0)


@njit(cache=True, inline="always")
def _read_hand(view, cards, row, first_slot, value_of, rank_of, suit_of) -> int:
    """Parse a canonical hand from its view into `cards[slot*3 + (value, rank, suit), row]`; the
    number of cards, or -1 when the text is not canonical tokens one space apart."""
    length = _length(view)
    if length == 0 or length > 12:
        return -1  # a canonical hand of three cards has at most 8 bytes
    count, pos = 0, 4
    end = 4 + length
    while pos < end:
        if count == MAX_CARDS:
            return -1
        value = value_of[view[pos]]
        if value < 0:
            return -1
        slot = (first_slot + count) * 3
        cards[slot, row] = value
        cards[slot + 1, row] = rank_of[view[pos]]
        pos += 1
        if pos < end and view[pos] != SPACE:
            suit = suit_of[view[pos]]
            if suit < 0 or view[pos - 1] == 48 or view[pos - 1] == 49:  # `0` and `1` take no suit
                return -1
            cards[slot + 2, row] = suit
            pos += 1
        count += 1
        if pos < end:
            if view[pos] != SPACE or pos + 1 == end:
                return -1
            pos += 1
    return count


@njit(cache=True, inline="always")
def _total(cards, row, first_slot, count) -> int:
    total = 0
    for k in range(count):
        total += cards[(first_slot + k) * 3, row]
    return total % 10


@njit(cache=True, inline="always")
def _pair(cards, row, first_slot) -> int:
    """1 or 0 when the first two cards' ranks tell; 0 when their values differ; else -1 (unknown)."""
    a, b = first_slot * 3, (first_slot + 1) * 3
    if cards[a, row] != cards[b, row]:
        return 0
    if cards[a + 1, row] < 0 or cards[b + 1, row] < 0:
        return -1
    return 1 if cards[a + 1, row] == cards[b + 1, row] else 0


@njit(cache=True, inline="always")
def _outcome(player: int, banker: int) -> int:
    return 0 if banker > player else (1 if player > banker else 2)


@njit(cache=True)
def sweep(player, banker, player2, has_player, has_banker, has_player2, game, banque, logged, bad_case):
    """Per row: `plain` (the row's hands and outcome are vouched for), the cards (value, rank, suit
    for nine slots: player, banker, second player; -1 where none) and the facts (`FACTS`), each a row
    of the arrays returned.

    `game` is each row's game index (-1: not plain), `banque` the index of baccarat_banque,
    `logged` the logged outcome (0 B, 1 P, 2 T, -1 none, -2 not plain), `bad_case` the tableau
    lookup (True where the draws break it).
    """
    n = player.shape[0]
    plain = np.zeros(n, np.bool_)
    cards = np.full((27, n), -1, np.int8)
    facts = np.full((len(FACTS), n), -1, np.int8)
    for i in range(n):
        g, said = game[i], logged[i]
        if g < 0 or said == -2:
            continue
        if not has_player[i] and not has_banker[i]:  # outcome only
            plain[i] = said >= 0 and not has_player2[i]
            facts[3, i] = said
            facts[8:11, i] = 0
            continue
        if not (has_player[i] and has_banker[i]) or has_player2[i] != (g == banque):
            continue
        pc = _read_hand(player[i], cards, i, 0, VALUE_OF, RANK_OF, SUIT_OF)
        bc = _read_hand(banker[i], cards, i, 3, VALUE_OF, RANK_OF, SUIT_OF)
        qc = _read_hand(player2[i], cards, i, 6, VALUE_OF, RANK_OF, SUIT_OF) if has_player2[i] else 0
        if pc < 2 or bc < 2 or (has_player2[i] and qc < 2):
            continue
        player_two, banker_two = _total(cards, i, 0, 2), _total(cards, i, 3, 2)
        third = cards[6, i] if pc == 3 else NO_THIRD
        if bad_case[((((g * AXES[1] + player_two) * AXES[2] + third) * AXES[3] + banker_two) * AXES[4]) + (bc == 3)]:
            continue
        p, b = _total(cards, i, 0, pc), _total(cards, i, 3, bc)
        outcome = _outcome(p, b)
        if said >= 0 and said != outcome:
            continue
        if qc:
            third2 = cards[24, i] if qc == 3 else NO_THIRD
            if bad_case[(((g * AXES[1] + _total(cards, i, 6, 2)) * AXES[2] + third2) * AXES[3] + banker_two) * AXES[4]]:
                continue
            q = _total(cards, i, 6, qc)
            facts[2, i], facts[4, i] = q, _outcome(q, b)
        plain[i] = True
        facts[0, i], facts[1, i], facts[3, i] = p, b, outcome
        facts[5, i] = pc == 2 and bc == 2 and max(player_two, banker_two) >= 8
        facts[6, i], facts[7, i] = _pair(cards, i, 0), _pair(cards, i, 3)
        facts[8, i], facts[9, i], facts[10, i] = pc, bc, qc
    return plain, cards, facts


def bad_cases() -> np.ndarray:
    """The tableau lookup as booleans: True for every case whose draws break the tableau."""
    return violations().is_not_null().to_numpy()


def instants(series: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the ISO 8601 time (`2026-11-01T06:09:04.843+01:00`: seconds and an offset, nothing
    around it) as microseconds since the epoch in UTC, and whether the text was such a time (the
    others are left to the full parse)."""
    text = series.cast(pl.String).rechunk().to_arrow()  # large_string: one buffer of bytes
    if text.null_count == len(text):
        return np.zeros(len(text), np.int64), np.zeros(len(text), np.bool_)
    _, offsets, data = text.buffers()
    offsets = np.frombuffer(offsets, np.int64)[text.offset : text.offset + len(text) + 1]
    return _instants(offsets, np.frombuffer(data, np.uint8), present(series))


@njit(cache=True, inline="always")
def _digits(data, start, count) -> int:
    """The number written by `count` ASCII digits from `start`, or -1."""
    number = 0
    for k in range(start, start + count):
        digit = np.int64(data[k]) - 48
        if digit < 0 or digit > 9:
            return -1
        number = number * 10 + digit
    return number


@njit(cache=True, inline="always")
def _days_in_month(year, month) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month == 4 or month == 6 or month == 9 or month == 11 else 31


@njit(cache=True, inline="always")
def _days_from_civil(year, month, day) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    if month <= 2:
        year -= 1
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_era_days = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146097 + of_era_days - 719468


@njit(cache=True)
def _instants(offsets, data, given):
    n = offsets.shape[0] - 1
    micros = np.zeros(n, np.int64)
    ok = np.zeros(n, np.bool_)
    for i in range(n):
        start, end = offsets[i], offsets[i + 1]
        length = end - start
        if not given[i] or length < 25 or length > 35:
            continue
        d = data[start:end]
        if d[4] != 45 or d[7] != 45 or d[10] != 84 or d[13] != 58 or d[16] != 58:  # - - T : :
            continue
        year, month, day = _digits(d, 0, 4), _digits(d, 5, 2), _digits(d, 8, 2)
        hour, minute, second = _digits(d, 11, 2), _digits(d, 14, 2), _digits(d, 17, 2)
        if min(year, month, day, hour, minute, second) < 0 or month < 1 or month > 12 or day < 1:
            continue
        if day > _days_in_month(year, month):
            continue
        if hour > 23 or minute > 59 or second > 59:  # a leap second is the full parse's to read
            continue
        pos, fraction = 19, 0
        if d[pos] == 46:  # a fraction of 1 to 9 digits, truncated to microseconds
            digits = 0
            pos += 1
            while pos < length and 48 <= d[pos] <= 57:
                if digits < 6:
                    fraction = fraction * 10 + (np.int64(d[pos]) - 48)
                digits += 1
                pos += 1
            if digits == 0 or digits > 9:
                continue
            for _ in range(digits, 6):
                fraction *= 10
        if length - pos != 6 or (d[pos] != 43 and d[pos] != 45) or d[pos + 3] != 58:  # +HH:MM or -HH:MM
            continue
        offset_hours, offset_minutes = _digits(d, pos + 1, 2), _digits(d, pos + 4, 2)
        if offset_hours < 0 or offset_minutes < 0 or offset_hours > 23 or offset_minutes > 59:
            continue
        offset = (offset_hours * 60 + offset_minutes) * 60 * (1 if d[pos] == 43 else -1)
        seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
        micros[i] = seconds * 1_000_000 + fraction
        ok[i] = True
    return micros, ok
