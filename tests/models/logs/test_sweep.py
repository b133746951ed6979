"""The compiled sweep and the full checks are twins: on any batch, rows the sweep vouches for come out
exactly (values and types) as every check in order makes them, and the others go to those checks."""

import datetime as dt

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from models.game.cards import RANKS, SUITS
from models.game.games import Game
from models.logs import arrow_text, checks
from models.logs.instants import instants

CANONICAL = [r + s for r in RANKS for s in ["", *SUITS]] + ["0", "1"]
ODD = ["10H", "9h", "1H", "0S", "XX", "", " ", "AH,", "10"]
HANDS = st.one_of(
    st.lists(st.sampled_from(CANONICAL), min_size=2, max_size=3).map(" ".join),
    st.lists(st.sampled_from(CANONICAL + ODD), min_size=0, max_size=4).map(" ".join),
    st.sampled_from(["9H  3S", " 9H 3S", "9H 3S ", "9H,3S", "TH TD TS TC", "AH KD 5C 2S"]),
    st.none(),
)
TEXT = st.one_of(
    st.none(), st.sampled_from(["T1", "T2", " T1", "T1 ", "", "a-very-long-table-name", "tête ", "x\u00a0"])
)
INSTANT = dt.datetime(2026, 11, 1, 10, tzinfo=dt.UTC)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
ROW = st.fixed_dictionaries(
    {
        "table_id": TEXT,
        "shoe_id": st.one_of(TEXT, st.just("S-2026-11-01-long-shoe-name")),
        "round_no": st.one_of(st.none(), st.integers(-2, 90).map(str), st.sampled_from(["3.0", "x", " 4"])),
        "started_at": st.one_of(
            st.none(),
            st.integers(0, 10_000).map(lambda s: (INSTANT + dt.timedelta(seconds=s)).isoformat()),
            st.sampled_from(["2026-11-01 10:00", "2026-11-01T10:00:00Z", "soon"]),
        ),
        "player_cards": HANDS,
        "banker_cards": HANDS,
        "player2_cards": st.one_of(st.none(), st.none(), HANDS),
        "game": st.one_of(st.none(), st.sampled_from([*(g.value for g in Game), "Super6", " banco", "whist"])),
        "decks": st.one_of(st.none(), st.sampled_from(["8", "6", "1", "0", "9", "8.0", "", "six"])),
        "dealer_id": TEXT,
        "bank_holder": TEXT,
        "outcome": st.one_of(st.none(), st.sampled_from(["B", "P", "T", "b", " P", "X", ""])),
    }
)


def _fully(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    return checks._check_rounds_fully(checks._with_all_columns(frame, checks.ROUND_INPUT_COLUMNS)).select(columns)


@settings(max_examples=150, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=40))
@pytest.mark.slow
def test_the_sweep_and_the_full_checks_agree_on_every_row(rows):
    frame = pl.DataFrame(rows, schema={name: pl.String for name in rows[0]}).with_columns(
        _line=pl.int_range(2, pl.len() + 2, dtype=pl.Int64)
    )
    checked = checks.check_rounds(frame)
    assert_frame_equal(checked, _fully(frame, checked.columns))


def test_plain_rows_are_swept_and_the_others_are_not():
    good = {"table_id": "T1", "shoe_id": "S1", "round_no": "1", "started_at": "2026-11-01T10:00:00+00:00"}
    rows = [
        good | {"player_cards": "4H 3S", "banker_cards": "2H 3C 5D"},  # plain: cards (the player stood on 7)
        good | {"outcome": "B"},  # plain: an outcome only
        good | {"player_cards": "4h 3s", "banker_cards": "2H 3C 5D"},  # lower case: the full checks read it
        good | {"player_cards": "4H 3S", "banker_cards": "2H 3C 5D", "outcome": "B"},  # the cards give P
        good | {"player_cards": "2H 3S", "banker_cards": "7H KC"},  # the player should have drawn on 5
        good | {"table_id": "T1 ", "player_cards": "4H 3S", "banker_cards": "2H 3C 5D"},  # needs trimming
    ]
    frame = pl.DataFrame(rows).with_columns(_line=pl.int_range(2, pl.len() + 2, dtype=pl.Int64))
    frame = checks._with_all_columns(frame, checks.ROUND_INPUT_COLUMNS)
    plain, _ = checks._swept_rounds(frame)
    assert plain.tolist() == [True, True, False, False, False, False]


def test_plain_text_reads_long_strings_from_their_buffers():
    names = pl.Series(["T1", "a table with a long name", "a table with a long name ", " x", None, "", "y" * 13])
    assert arrow_text.plain_text(names).tolist() == [True, True, False, False, False, False, True]


PLAIN_HAND = st.lists(st.sampled_from(CANONICAL), min_size=2, max_size=3).map(" ".join)
NEARLY_PLAIN = st.fixed_dictionaries(
    {
        "table_id": st.just("T1"),
        "shoe_id": st.just("S1"),
        "round_no": st.integers(1, 90).map(str),
        "started_at": st.just("2026-11-01T10:00:00.250+01:00"),
        "player_cards": PLAIN_HAND,
        "banker_cards": PLAIN_HAND,
        "player2_cards": st.one_of(st.none(), PLAIN_HAND),
        "game": st.sampled_from([g.value for g in Game]),
        "decks": st.sampled_from([None, "6", "8"]),
        "outcome": st.sampled_from([None, "B", "P", "T"]),
    }
)


@settings(max_examples=150, deadline=None)
@given(st.lists(NEARLY_PLAIN, min_size=1, max_size=60))
@pytest.mark.slow
def test_the_twins_agree_where_only_the_cards_decide(rows):
    """Canonical hands of every game, with and without a second hand: the tableau and the outcome
    decide which rows are plain, and the plain rows' totals, pairs and outcomes must match."""
    frame = pl.DataFrame(rows, schema={name: pl.String for name in rows[0]}).with_columns(
        _line=pl.int_range(2, pl.len() + 2, dtype=pl.Int64)
    )
    checked = checks.check_rounds(frame)
    assert_frame_equal(checked, _fully(frame, checked.columns))


TIMES = st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 30))
OFFSETS = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(
    lambda m: f"{'+' if m >= 0 else '-'}{abs(m) // 60:02}:{abs(m) % 60:02}"
)


def _iso(moment: dt.datetime, digits: int, offset: str) -> str:
    fraction = "." + str(moment.microsecond).zfill(6)[:digits] if digits else ""
    return moment.isoformat(timespec="seconds") + fraction + offset


TEXTS = st.one_of(
    st.builds(_iso, TIMES, st.integers(0, 6), OFFSETS),
    st.builds(lambda t, extra, offset: t.isoformat(timespec="microseconds") + extra + offset,
              TIMES, st.sampled_from(["", "7", "789"]), OFFSETS),
    st.sampled_from(["2026-02-29T10:00:00+00:00", "2024-02-29T10:00:00+00:00", "1900-02-29T00:00:00+00:00",
                     "2000-02-29T00:00:00+00:00", "2026-04-31T10:00:00+00:00", "2026-11-01T24:00:00+00:00",
                     "2026-11-01T10:00:60+00:00", "2026-11-01T10:00:00+24:00", "2026-11-01T10:00:00.+00:00",
                     "2026-11-01T10:00:00.1234567890+00:00", "2026-11-01 10:00:00+00:00", "2026-11-01T10:00:00Z",
                     "2026-11-01T10:00:00+0000", " 2026-11-01T10:00:00+00:00", "2026-13-01T10:00:00+00:00"]),
    st.text(max_size=30),
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=30))
def test_iso_times_read_at_machine_speed_agree_with_the_full_parse(texts):
    frame = pl.DataFrame({"started_at": texts}, schema={"started_at": pl.String})
    micros, ok = instants(frame["started_at"])
    full = frame.select(checks._instant(frame, "started_at")).to_series()
    for text, micro, read, expected in zip(texts, micros, ok, full, strict=True):
        if read:
            assert expected is not None, text
            assert micro == (expected - EPOCH) // dt.timedelta(microseconds=1), text


def test_plain_iso_times_are_read_and_the_rest_left_to_the_full_parse():
    texts = ["2026-11-01T06:09:04.843+01:00", "2024-02-29T23:59:59.999999-05:30", "0001-01-01T00:00:00+00:00",
             "2026-11-01T06:09:04.123456789+00:00", "2026-11-01T06:09:04Z", "2026-11-01 06:09:04+00:00",
             "2026-02-29T10:00:00+00:00", "2026-11-01T10:00:60+00:00", None]  # fmt: skip
    micros, ok = instants(pl.Series(texts, dtype=pl.String))
    assert ok.tolist() == [True, True, True, True, False, False, False, False, False]
    assert micros[0] == (dt.datetime(2026, 11, 1, 5, 9, 4, 843000, tzinfo=dt.UTC) - EPOCH) // dt.timedelta(
        microseconds=1
    )
