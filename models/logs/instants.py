"""ISO 8601 times read at machine speed, where they are plain: `2026-11-01T06:09:04.843+01:00`.

Seconds and an offset, nothing around them, a fraction of up to nine digits (truncated to
microseconds, as Polars reads it): the usual form of a log's times. Anything else (a `Z`, a space for
the `T`, no seconds, a leap second) is left to the full parse in `models/logs/checks.py`; a test holds
the two to the same instants.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numba import njit

from models.logs.arrow_text import buffers, length, offset_of, present


def instants(series: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the ISO 8601 time (`2026-11-01T06:09:04.843+01:00`: seconds and an offset, nothing
    around it) as microseconds since the epoch in UTC, and whether the text was such a time (the
    others are left to the full parse)."""
    return _instants(*buffers(series), present(series))


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
def _instants(view, data, starts, given):
    n = view.shape[0]
    micros = np.zeros(n, np.int64)
    ok = np.zeros(n, np.bool_)
    for i in range(n):
        size = length(view[i])
        if not given[i] or size < 25 or size > 35:
            continue
        start = offset_of(view[i], starts)
        d = data[start : start + size]
        if d[4] != 45 or d[7] != 45 or d[10] != 84 or d[13] != 58 or d[16] != 58:  # - - T : :
            continue
        year, month, day = _digits(d, 0, 4), _digits(d, 5, 2), _digits(d, 8, 2)
        hour, minute, second = _digits(d, 11, 2), _digits(d, 14, 2), _digits(d, 17, 2)
        if min(year, month, day, hour, minute, second) < 0 or month < 1 or month > 12 or day < 1:
            continue
        if day > _days_in_month(year, month):
            continue
        if hour > 23 or minute > 59 or second > 59:  # a leap second is the full checks' to refuse, by name
            continue
        pos, fraction = 19, 0
        if d[pos] == 46:  # a fraction of 1 to 9 digits, truncated to microseconds
            digits = 0
            pos += 1
            while pos < size and 48 <= d[pos] <= 57:
                if digits < 6:
                    fraction = fraction * 10 + (np.int64(d[pos]) - 48)
                digits += 1
                pos += 1
            if digits == 0 or digits > 9:
                continue
            for _ in range(digits, 6):
                fraction *= 10
        if size - pos != 6 or (d[pos] != 43 and d[pos] != 45) or d[pos + 3] != 58:  # +HH:MM or -HH:MM
            continue
        offset_hours, offset_minutes = _digits(d, pos + 1, 2), _digits(d, pos + 4, 2)
        if offset_hours < 0 or offset_minutes < 0 or offset_hours > 23 or offset_minutes > 59:
            continue
        offset = (offset_hours * 60 + offset_minutes) * 60 * (1 if d[pos] == 43 else -1)
        seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
        micros[i] = seconds * 1_000_000 + fraction
        ok[i] = True
    return micros, ok
