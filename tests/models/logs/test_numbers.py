"""Numbers are read from their text, never through a float: the compiled decimal reader agrees with
Python's Decimal on any text, amounts are kept exactly or quarantined, whole numbers are digits (a
point and zeros allowed), and a leap second is no instant."""

import datetime as dt
import re
from decimal import ROUND_DOWN, Decimal, localcontext

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.contract import AMOUNT_DIGITS, PAYOUT_DIGITS, ROUND_NO_MAX
from models.logs import arrow_text, checks
from models.logs.instants import instants

#: The syntax the contract allows, restated: a sign, ASCII digits and a point if any, a digit at least.
DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")
DIGITS = "0123456789"
EXACT = st.builds(
    lambda sign, whole, point, fraction: sign + whole + ("." if point else "") + fraction,
    st.sampled_from(["", "", "+", "-"]),
    st.text(DIGITS, max_size=22),
    st.booleans(),
    st.text(DIGITS, max_size=12),  # 0 to 12 places
)
NUMBER_TEXTS = st.one_of(
    EXACT,
    st.builds(lambda base, e, power: f"{base}{e}{power}", EXACT, st.sampled_from("eE"), st.integers(-30, 30)),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),  # 1E+3, NaN, -Infinity, sNaN
    st.floats().map(repr),  # 1e-05, inf, nan
    st.text(alphabet=" +-.0123456789eE,_", max_size=15),  # signs and spaces inside, separators
    st.text(max_size=20),  # anything, digits of other scripts too
    st.sampled_from(["25.0000000000001", "95.00000000000001", "1e3", "1.0000000000000001", "0x10", "١٢", "٣.٥"]),
)


def _reference(text: str | None, scale: int) -> tuple[bool, int, int, int]:
    """`arrow_text.decimals` by Python's Decimal: (read, digits before the point, places, units)."""
    if text is None or not DECIMAL.fullmatch(text):
        return False, 0, 0, 0
    with localcontext() as context:
        context.prec = 200
        number = Decimal(text)
        whole = int(abs(number))
        digits = len(str(whole)) if whole else 0
        places = max(0, -number.normalize().as_tuple().exponent) if number else 0
        units = int(abs(number).scaleb(scale).to_integral_value(rounding=ROUND_DOWN))
    units = arrow_text.SATURATED if digits + scale > 18 else units
    return True, digits, places, -units if number.is_signed() else units


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.none(), NUMBER_TEXTS), min_size=1, max_size=40), st.sampled_from([0, 2, 4]))
@pytest.mark.slow
def test_decimal_texts_read_by_the_compiled_reader_as_python_decimal_reads_them(texts, scale):
    read, digits, places, units = arrow_text.decimals(pl.Series(texts, dtype=pl.String), scale)
    for i, text in enumerate(texts):
        assert (bool(read[i]), int(digits[i]), int(places[i]), int(units[i])) == _reference(text, scale), text


def test_decimal_texts_past_twelve_bytes_and_at_an_offset_read_alike():
    texts = ["12345678901234.5678", "-0000000000000000000001.5", "1.00000000000000000000", "+.50"]
    series = pl.Series([None, *texts], dtype=pl.String).slice(1)  # a view array that starts at an offset
    read, digits, places, units = arrow_text.decimals(series, 4)
    assert read.all() and digits.tolist() == [14, 1, 1, 0] and places.tolist() == [4, 1, 0, 1]
    assert units.tolist() == [123456789012345678, -15000, 10000, 5000]


def _bets(amounts: list[str | None], payouts: list[str | None]) -> pl.DataFrame:
    return pl.DataFrame(
        {"amount": amounts, "payout": payouts}, schema={"amount": pl.String, "payout": pl.String}
    ).with_columns(
        table_id=pl.lit("T1"), shoe_id=pl.lit("S1"), round_no=pl.lit("1"), seat=pl.lit("1"), bet=pl.lit("tie"),
        _line=pl.int_range(2, pl.len() + 2, dtype=pl.Int64),
    )  # fmt: skip


def _trimmed(text: str | None) -> str:
    """Text trimmed as the checks trim every field (of Unicode's white space, which Python's
    `strip` is not), empty for none."""
    return pl.Series([text or ""], dtype=pl.String).str.strip_chars()[0]


def _money_reason(name: str, text: str | None, positive: bool) -> str | None:
    """The contract's money rule by Python's Decimal: the detail of the first fault, or None."""
    text = _trimmed(text)
    if not text:
        return None
    read, digits, places, _ = _reference(text, 4)
    says = f"{name} {text} "
    if not read:
        return says + "is not a decimal"
    if positive and Decimal(text) <= 0:
        return says + "is not positive"
    bound = AMOUNT_DIGITS if name == "amount" else PAYOUT_DIGITS  # the contract's bounds
    if digits > bound:
        return says + f"is too large (at most {bound} digits before the point)"
    return says + "has more than 4 decimal places" if places > 4 else None


SPACED = st.builds(lambda before, text, after: before + text + after, st.sampled_from(["", " ", "\t"]),
                   NUMBER_TEXTS, st.sampled_from(["", " "]))  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SPACED, st.one_of(st.none(), SPACED)), min_size=1, max_size=30))
@pytest.mark.slow
def test_amounts_and_payouts_are_kept_exactly_or_quarantined_as_the_contract_says(pairs):
    amounts, payouts = [a for a, _ in pairs], [p for _, p in pairs]
    checked = checks.check_bets(_bets(amounts, payouts)).sort("_line")
    for row, amount, payout in zip(checked.iter_rows(named=True), amounts, payouts, strict=True):
        bad_payout, bad_amount = _money_reason("payout", payout, False), _money_reason("amount", amount, True)
        if not _trimmed(amount):
            assert row["reason"] == "missing_field", amount
        elif bad_payout:
            assert (row["reason"], row["detail"]) == ("bad_type", bad_payout)
        elif bad_amount:
            assert (row["reason"], row["detail"]) == ("bad_amount", bad_amount)
        else:
            assert row["reason"] is None, (amount, payout)
            assert row["amount"] == Decimal(_trimmed(amount)), amount  # exactly what the text says
            assert row["payout"] == (Decimal(_trimmed(payout)) if _trimmed(payout) else None), payout


def test_amounts_and_payouts_finer_than_four_places_are_never_rounded():
    checked = checks.check_bets(_bets(["25.0000000000001", "25", "25.50000"], ["9.5", "95.00000000000001", None]))
    assert checked.select("reason", "detail").rows() == [
        ("bad_amount", "amount 25.0000000000001 has more than 4 decimal places"),
        ("bad_type", "payout 95.00000000000001 has more than 4 decimal places"),
        (None, None),  # trailing zeros are no places
    ]
    assert checked["amount"].to_list()[2] == Decimal("25.5")


def _rounds(round_nos: list[str | None], times: list[str] | None = None) -> pl.DataFrame:
    times = times or [f"2026-11-01T10:{i % 60:02}:00+00:00" for i in range(len(round_nos))]
    return pl.DataFrame({"round_no": round_nos, "started_at": times}, schema=dict.fromkeys(["round_no", "started_at"],
                                                                                          pl.String)).with_columns(
        table_id=pl.lit("T1"), shoe_id=pl.lit("S1"), player_cards=pl.lit("9H TD"), banker_cards=pl.lit("7C KS"),
        _line=pl.int_range(2, pl.len() + 2, dtype=pl.Int64),
    )  # fmt: skip


def _whole_reason(text: str | None) -> tuple[str | None, int | None]:
    """The contract's whole-number rule by Python's Decimal: (the bad_type detail or None, the value)."""
    text = _trimmed(text)
    if not text:
        return "round_no is missing", None
    read, _, places, _ = _reference(text, 0)
    if not read or places:
        return f"round_no {text} is not a whole number >= 1", None
    number = int(Decimal(text))
    if number < 1:
        return f"round_no {text} is not a whole number >= 1", None
    return (f"round_no {text} is too large (at most {ROUND_NO_MAX})", None) if number > ROUND_NO_MAX else (None, number)


WHOLE_TEXTS = st.one_of(
    SPACED,
    st.integers(-5, 2**64).map(str),
    st.builds(lambda n, zeros: f"{n}.{'0' * zeros}", st.integers(0, 3_000_000_000), st.integers(0, 13)),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(WHOLE_TEXTS, min_size=1, max_size=30))
@pytest.mark.slow
def test_round_numbers_are_whole_numbers_read_from_their_digits(texts):
    """Plain digits go through the compiled sweep, the rest through the full checks: both read the
    digits, so `1e3` and `1.0000000000000001` are no round numbers, and `12.0` is 12."""
    checked = checks.check_rounds(_rounds(texts)).sort("_line")
    for row, text in zip(checked.iter_rows(named=True), texts, strict=True):
        detail, number = _whole_reason(text)
        assert row["detail"] == detail, text
        if number is not None:
            assert row["reason"] is None and row["round_no"] == number, text


def test_round_numbers_in_exponents_or_past_a_floats_digits_are_bad_type():
    checked = checks.check_rounds(_rounds(["1e3", "1.0000000000000001", "12.0", "0012", "+3", "3."]))
    assert checked["detail"].to_list() == [
        "round_no 1e3 is not a whole number >= 1",
        "round_no 1.0000000000000001 is not a whole number >= 1",
        None,
        None,
        None,
        None,
    ]
    assert checked["round_no"].to_list()[2:] == [12, 12, 3, 3]


LEAPS = ["2016-12-31T23:59:60Z", "2016-12-31T23:59:60+00:00", "2016-12-31 23:59:60.5", "2017-01-01T00:59:60+01:00 "]


def test_a_leap_second_is_bad_type_saying_why_in_every_parse():
    """The compiled reader leaves `:60` to the full parse; the full parse (with repairs, and at once
    for times that need none) gives no instant, and the check says it is a leap second."""
    _, read = instants(pl.Series(LEAPS, dtype=pl.String))
    assert not read.any()
    for times in (LEAPS, LEAPS[1:2]):  # the second: every time has seconds and an offset
        frame = pl.DataFrame({"t": times})
        assert frame.select(checks._instant(frame, "t"))["t"].to_list() == [None] * len(times)
    neighbours = ["2016-12-31T23:59:59Z", *LEAPS, "2017-01-01T00:00:00Z"]
    checked = checks.check_rounds(_rounds([str(i) for i in range(1, 7)], neighbours))
    assert checked["reason"].to_list() == [None, "bad_type", "bad_type", "bad_type", "bad_type", None]
    assert checked["detail"][1] == (
        "started_at 2016-12-31T23:59:60Z is a leap second (second 60), not a time the warehouse can store"
    )
    assert checked["started_at"][5] == dt.datetime(2017, 1, 1, tzinfo=dt.UTC)  # the next second, as written


def test_typed_whole_numbers_check_like_their_text_and_never_fail_the_batch():
    """Parquet's integer types, UInt64 past Int64 among them, and floats holding whole values."""
    values = {
        pl.UInt64: ([1, 2**63 + 5, 2**64 - 1, 0], ["1", "9223372036854775813", "18446744073709551615", "0"]),
        pl.Int8: ([1, -2, 127, 0], ["1", "-2", "127", "0"]),
        pl.Int64: ([1, 2**63 - 1, -(2**63), 3], ["1", "9223372036854775807", "-9223372036854775808", "3"]),
        pl.Float64: ([1.0, 2.5, 3.0, float("nan")], ["1.0", "2.5", "3.0", "NaN"]),
        pl.Float32: ([1.0, 2.5, 3.0, float("inf")], ["1.0", "2.5", "3.0", "inf"]),
    }
    for dtype, (typed, text) in values.items():
        frames = [_rounds(text), _rounds(text).with_columns(round_no=pl.Series(typed, dtype=dtype))]
        checked = [checks.check_rounds(frame) for frame in frames]
        assert checked[0]["detail"].to_list() == checked[1]["detail"].to_list(), dtype
        accepted = [frame.filter(pl.col("reason").is_null())["round_no"].to_list() for frame in checked]
        assert accepted[0] == accepted[1] and accepted[0], dtype
        assert checked[1]["reason"].null_count() < len(typed), dtype  # some rows fail: details compared
    big = checks.check_rounds(_rounds(["1", "2"]).with_columns(round_no=pl.Series([1.0, 1e20])))
    assert big["detail"].to_list() == [None, f"round_no 1e+20 is too large (at most {ROUND_NO_MAX})"]
