"""Money as exact integers: the warehouse's decimal types, and their values as int64 counts of their
last place (a cent, a ten-thousandth), read and written without a float or a copy per value."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import polars as pl
import pyarrow as pa

#: Places: amounts as logged (cents); the warehouse's money, to a ten-thousandth (commission on 0.25
#: chips and finer); theoretical win.
CENT_SCALE, MONEY_SCALE, THEO_SCALE = 2, 4, 6
CENTS = pl.Decimal(18, CENT_SCALE)
MONEY = pl.Decimal(18, MONEY_SCALE)
THEO = pl.Decimal(18, THEO_SCALE)
#: The marts' sums of money and of theo: wide enough for any sum of the above.
MONEY_SUM, THEO_SUM = pl.Decimal(38, MONEY_SCALE), pl.Decimal(38, THEO_SCALE)
#: A currency unit, and a cent, in MONEY's units (ten-thousandths).
MONEY_UNIT = 10**MONEY_SCALE
CENT = 10 ** (MONEY_SCALE - CENT_SCALE)


def as_money(value: Fraction) -> Decimal:
    """An exact amount of currency as MONEY holds it: to the ten-thousandth, half to even."""
    return (Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal(1).scaleb(-MONEY_SCALE))


def arrow_units(column: pa.ChunkedArray | pa.Array, scale: int) -> np.ndarray:
    """An Arrow decimal column of `scale` holding Decimal(18, scale) values (decimal64, as dealt, or
    decimal128) as int64 units; read chunk by chunk, with no copy per value."""
    column = pa.chunked_array([column]) if isinstance(column, pa.Array) else column
    parts = [np.zeros(0, np.int64)]
    for chunk in column.chunks:
        if chunk.type.scale != scale:
            raise ValueError(f"expected a decimal of scale {scale}, got {chunk.type}")
        if pa.types.is_decimal128(chunk.type):
            chunk = chunk.cast(pa.decimal64(18, scale))
        parts.append(np.frombuffer(chunk.buffers()[1], np.int64, count=chunk.offset + len(chunk))[chunk.offset :])
    return np.concatenate(parts)


def _words(array: pa.Array) -> np.ndarray:
    """A decimal128 array's values as their int128 words (lo, hi): int64 (n, 2), a view."""
    return np.frombuffer(array.buffers()[1], np.int64).reshape(-1, 2)[array.offset : array.offset + len(array)]


def words(series: pl.Series) -> np.ndarray:
    """A Decimal series' values as the int128 words (lo, hi) of their units: int64 (n, 2)."""
    return _words(series.to_arrow())


def low_units(series: pl.Series) -> np.ndarray:
    """A Decimal series' values as int64 units, nulls as 0, read chunk by chunk: each value's low word
    (a Decimal(18, s) value fits it)."""
    filled = series.fill_null(0) if series.null_count() else series
    out = np.empty(len(filled), np.int64)
    done = 0
    for chunk in filled.get_chunks():
        low = _words(chunk.to_arrow())[:, 0]
        out[done : done + len(low)] = low
        done += len(low)
    return out


def decimal64(units: np.ndarray, scale: int) -> pa.Array:
    """int64 units of 10**-scale as Arrow's 64-bit decimal (what Parquet stores for Decimal(18, s)),
    exactly and without a copy; `simulate.frames.as_frame` widens it to the decimal128 Polars reads."""
    units = np.ascontiguousarray(units, dtype=np.int64)
    return pa.Array.from_buffers(pa.decimal64(18, scale), len(units), [None, pa.py_buffer(units)])


def decimal128(units: np.ndarray, scale: int, precision: int = 38, valid: np.ndarray | None = None) -> pa.Array:
    """int64 units of 10**-scale as an Arrow decimal128(precision, scale) array, exactly; null where
    `valid` (bool) is False."""
    words = np.stack([units, units >> 63], axis=1)  # as Arrow holds a decimal: 128 bits, little-endian
    mask = None if valid is None else pa.array(valid).buffers()[1]
    return pa.Array.from_buffers(pa.decimal128(precision, scale), len(units), [mask, pa.py_buffer(words)])


def decimal_series(units: np.ndarray, scale: int) -> pl.Series:
    """int64 units of 10**-scale as a Decimal(38, scale) series, exactly."""
    return pl.Series(pl.from_arrow(decimal128(units, scale)))
