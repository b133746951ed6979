"""Parquet columns of every type come out of the reader as the checks read them: bytes as text (those
that are not UTF-8 escaped and named), durations as ISO 8601 text, dates as dates, nested bytes as
JSON; and a file's own column named like the reader's mark is not taken for it."""

import datetime as dt

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from models.logs.parquet import NOT_UTF8, batches


def _read(tmp_path, columns: dict) -> pl.DataFrame:
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table(columns), path)
    return pl.concat(list(batches(path, 2)), how="diagonal")  # two rows a batch: marks are told batch by batch


def test_bytes_read_as_text_and_bytes_not_utf8_escaped_and_named(tmp_path):
    frame = _read(
        tmp_path,
        {
            "table_id": pa.array([b"T1", b"\xff\xfe", b"T3", None, b"caf\xc3\xa9"], pa.binary()),
            "note": pa.array([b"a", b"b", b"\x80", b"d", b"e"], pa.large_binary()),
            "shoe_id": pa.array([b"S1", b"S2", b"S3", b"S4", b"S5"], pa.binary(2)),
        },
    )
    assert frame["table_id"].to_list() == ["T1", "\\xff\\xfe", "T3", None, "café"]
    assert frame["note"].to_list() == ["a", "b", "\\x80", "d", "e"] and frame["shoe_id"].dtype == pl.String
    assert frame[NOT_UTF8].to_list() == [None, ["table_id"], ["note"], None, None]
    assert frame["_line"].to_list() == [1, 2, 3, 4, 5]


def test_a_file_with_no_bad_bytes_has_no_mark_and_its_own_column_of_that_name_is_dropped(tmp_path):
    frame = _read(tmp_path, {"table_id": pa.array([b"T1", b"T2"]), NOT_UTF8: pa.array([["table_id"], None])})
    assert NOT_UTF8 not in frame.columns and frame["table_id"].to_list() == ["T1", "T2"]


def test_durations_read_as_iso_text_and_dates_as_dates_whatever_arrow_type_wrote_them(tmp_path):
    frame = _read(
        tmp_path,
        {
            "started_at": pa.array([dt.timedelta(days=1, seconds=5), None], pa.duration("ns")),
            "day": pa.array([dt.date(2026, 11, 1), None], pa.date64()),  # Polars alone reads midnight timestamps
            "day32": pa.array([dt.date(2026, 11, 1), None], pa.date32()),
        },
    )
    assert frame["started_at"].to_list() == ["P1DT5S", None]
    assert frame.schema["day"] == pl.Date == frame.schema["day32"]
    assert frame["day"].to_list() == [dt.date(2026, 11, 1), None]


def test_lists_and_structs_holding_bytes_read_as_json_with_escapes(tmp_path):
    """Polars cannot write bytes as JSON (it panics): such a column is written value by value."""
    frame = _read(
        tmp_path,
        {
            "player_cards": pa.array([[b"9H", b"\xff"], None]),
            "extra": pa.array([{"a": b"x", "n": 1}, {"a": None, "n": 2}]),
            "hands": pa.array([["2H", "3S"], []]),
        },
    )
    assert frame["player_cards"].to_list() == ['["9H","\\\\xff"]', None]
    assert frame["extra"].to_list() == ['{"a":"x","n":1}', '{"a":null,"n":2}']
    assert frame["hands"].to_list() == ['["2H","3S"]', "[]"]
