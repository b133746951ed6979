"""Text columns as Arrow holds them, for compiled passes: string views, presence, plain text.

Arrow keeps a string of up to 12 bytes in its 16-byte view (length in bytes 0-3, the text from byte
4); a longer one has its first 4 bytes there and the rest in a data buffer (buffer index in bytes
8-11, offset in bytes 12-15).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numba import njit


def _arrow(series: pl.Series):
    return series.cast(pl.String).rechunk().to_arrow(compat_level=pl.CompatLevel.newest())


def views(series: pl.Series) -> np.ndarray:
    """The column's Arrow string views, one row of 16 bytes each (a string of up to 12 bytes sits
    in its view, from byte 4; its length is bytes 0-3)."""
    return _views_of(_arrow(series))


def _views_of(text) -> np.ndarray:
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


def buffers(series: pl.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The column's views, its data buffers end to end, and where each buffer starts in them."""
    text = _arrow(series)
    data = [np.frombuffer(buffer, np.uint8) for buffer in text.buffers()[2:] if buffer is not None]
    starts = np.cumsum([0] + [len(block) for block in data], dtype=np.int64)
    return _views_of(text), np.concatenate(data) if data else np.zeros(1, np.uint8), starts


def plain_text(series: pl.Series) -> np.ndarray:
    """Per row: the text is there and needs no trimming (it neither starts nor ends with a space or
    a byte outside ASCII, so whatever Unicode calls white space)."""
    return _plain_text(*buffers(series)) & present(series)


def label_codes(series: pl.Series, labels: tuple[str, ...], absent: int, unknown: int) -> np.ndarray:
    """Per row, as int8: the index among `labels` of the text, exactly as written; `absent` for a
    null, `unknown` for any other text."""
    encoded = [label.encode() for label in labels]
    table = np.frombuffer(b"".join(encoded), np.uint8) if any(encoded) else np.zeros(1, np.uint8)
    bounds = np.cumsum([0] + [len(label) for label in encoded], dtype=np.int64)
    codes = _label_codes(*buffers(series), table, bounds, _inline_views(encoded), unknown)
    codes[~present(series)] = absent
    return codes


def _inline_views(encoded: list[bytes]) -> np.ndarray:
    """Each label's view as two 64-bit words, as Arrow writes a string of up to 12 bytes (its
    length, its bytes, zeros after); a longer label gets words no view has (length 0, yet a byte)."""
    views = np.zeros((len(encoded), 16), np.uint8)
    for j, label in enumerate(encoded):
        if len(label) <= 12:
            views[j, :4] = np.frombuffer(len(label).to_bytes(4, "little"), np.uint8)
            views[j, 4 : 4 + len(label)] = np.frombuffer(label, np.uint8)
        else:
            views[j, 15] = 1
    return views.view(np.uint64)


@njit(cache=True)
def _label_codes(view, data, starts, table, bounds, label_words, unknown):
    n = view.shape[0]
    words = view.view(np.uint64)  # a view is two words: a label that fits in one matches it whole
    out = np.full(n, unknown, np.int8)
    for i in range(n):
        found = False
        for j in range(label_words.shape[0]):
            if words[i, 0] == label_words[j, 0] and words[i, 1] == label_words[j, 1]:
                out[i] = j
                found = True
                break
        if found:
            continue
        size = length(view[i])  # a label longer than 12 bytes, or a view not padded with zeros
        at = offset_of(view[i], starts) if size > 12 else 0
        for j in range(bounds.shape[0] - 1):
            if bounds[j + 1] - bounds[j] != size:
                continue
            same = True
            for k in range(size):
                byte = view[i, 4 + k] if size <= 12 else data[at + k]
                if byte != table[bounds[j] + k]:
                    same = False
                    break
            if same:
                out[i] = j
                break
    return out


#: The size a decimal's value saturates at (in its units), where its digits would not fit int64.
SATURATED = 2**62


def decimals(series: pl.Series, scale: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row, the decimal its text writes: ASCII digits, a sign and a point if any (`25`, `-12.50`,
    `+.5`, `5.`), nothing else (no exponent, separator or space). Read from the digits, never through
    a float: whether the text is one; its digits before the point, less leading zeros; its places,
    the digits after it less trailing zeros; its value in units of 10**-scale, the places past `scale`
    cut off, or +-`SATURATED` where more than 18 digits would make it."""
    return _decimals(*buffers(series), present(series), scale)


@njit(cache=True)
def _decimals(view, data, starts, given, scale):
    n = view.shape[0]
    read, units = np.zeros(n, np.bool_), np.zeros(n, np.int64)
    digits, places = np.zeros(n, np.int32), np.zeros(n, np.int32)
    for i in range(n):
        size = length(view[i]) if given[i] else 0
        at = offset_of(view[i], starts) if size > 12 else 0
        negative, point, seen = False, False, False
        whole, fraction, after = 0, 0, 0  # the value's digits before and after the point
        for k in range(size):
            byte = view[i, 4 + k] if size <= 12 else data[at + k]
            if 48 <= byte <= 57:
                seen = True
                if point:
                    after += 1
                    if byte != 48:
                        places[i] = after
                    if after <= scale:
                        fraction = fraction * 10 + (byte - 48)
                elif digits[i] or byte != 48:
                    digits[i] += 1
                    if digits[i] + scale <= 18:
                        whole = whole * 10 + (byte - 48)
            elif byte == 46 and not point:  # .
                point = True
            elif k == 0 and (byte == 43 or byte == 45):  # + or -
                negative = byte == 45
            else:
                seen = False
                break
        if not seen:
            digits[i], places[i] = 0, 0
            continue
        read[i] = True
        for _ in range(min(after, scale), scale):
            fraction *= 10
        value = SATURATED if digits[i] + scale > 18 else whole * 10**scale + fraction
        units[i] = -value if negative else value
    return read, digits, places, units


@njit(cache=True, inline="always")
def _bare(byte) -> bool:
    """A byte that cannot be (part of) white space: printable ASCII other than the space."""
    return 33 <= byte <= 126


@njit(cache=True)
def _plain_text(view, data, starts):
    n = view.shape[0]
    out = np.zeros(n, np.bool_)
    for i in range(n):
        size = length(view[i])
        if size == 0:
            continue
        stored = data[offset_of(view[i], starts) + size - 1] if size > 12 else 0
        last = view[i, 3 + size] if size <= 12 else stored
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
def length(view) -> int:
    """The length in bytes of the string a view holds."""
    return _word(view, 0)


@njit(cache=True, inline="always")
def offset_of(view, starts) -> int:
    """Where a string longer than 12 bytes starts in the data buffers laid end to end."""
    return starts[_word(view, 8)] + _word(view, 12)
