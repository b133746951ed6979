"""Money units: decimals to int64 units and back, exactly, whichever way the decimals are held."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from models.contract import BET_SCHEMA
from models.money_units import (
    CENT,
    CENT_SCALE,
    MONEY,
    MONEY_SCALE,
    MONEY_UNIT,
    arrow_units,
    as_money,
    decimal64,
    decimal128,
    decimal_series,
    low_units,
    words,
)

UNITS = np.array([0, 1, -1, 123_456_789, -(10**17), 10**18 - 1, -(10**18) + 1], np.int64)


def test_the_units_are_the_contracts_places():
    assert (BET_SCHEMA["payout"], BET_SCHEMA["amount"].scale) == (MONEY, CENT_SCALE)
    assert Decimal(1).scaleb(MONEY_SCALE) == MONEY_UNIT and Decimal("0.01").scaleb(MONEY_SCALE) == CENT


@pytest.mark.parametrize("scale", [CENT_SCALE, MONEY_SCALE, 6])
def test_units_round_trip_through_every_holder(scale):
    expected = [Decimal(int(u)).scaleb(-scale) for u in UNITS]
    narrow, wide, series = decimal64(UNITS, scale), decimal128(UNITS, scale, precision=18), decimal_series(UNITS, scale)
    assert narrow.to_pylist() == wide.to_pylist() == series.to_list() == expected
    assert series.dtype == pl.Decimal(38, scale)
    for held in (narrow, wide, pa.chunked_array([wide[:3], wide[3:]])):
        assert arrow_units(held, scale).tolist() == UNITS.tolist()
    assert words(series)[:, 0].tolist() == UNITS.tolist() and words(series)[:, 1].tolist() == (UNITS >> 63).tolist()
    chunked = pl.concat([series[:2], series[2:]], rechunk=False)
    assert chunked.n_chunks() == 2 and low_units(chunked).tolist() == UNITS.tolist()


def test_invalid_rows_are_null_and_low_units_read_them_as_zero():
    valid = np.array([True, False, True, True, False, True, True])
    held = pl.Series(decimal128(UNITS, MONEY_SCALE, precision=18, valid=valid))
    assert held.is_null().to_list() == (~valid).tolist()
    assert low_units(held).tolist() == np.where(valid, UNITS, 0).tolist()


def test_a_column_of_another_scale_is_refused():
    with pytest.raises(ValueError, match="expected a decimal of scale 4"):
        arrow_units(decimal64(UNITS, CENT_SCALE), MONEY_SCALE)


def test_as_money_rounds_to_the_ten_thousandth_half_even():
    assert as_money(Fraction(1, 3)) == Decimal("0.3333")
    assert as_money(Fraction(1, 20000)) == Decimal("0.0000") and as_money(Fraction(3, 20000)) == Decimal("0.0002")
    assert as_money(Fraction(-5, 2)) == Decimal("-2.5000")
