"""Logs as they come: CSV as spreadsheets write it (a byte-order mark, Windows line endings, quoted
fields, empty fields), JSON values of every type, and files broken or odd in every way the reader
must tell: line endings, byte-order marks, compressed streams cut short, lines that are no rows."""

import codecs
import gzip
import json
import os
import threading
from pathlib import Path

import polars as pl
import pytest
import zstandard

from models.logs import read, streams
from models.logs.read import UnreadableFile, columns_of, kind_of, read_batches


def test_a_spreadsheet_csv_reads_as_text_with_empty_fields_as_nulls(tmp_path):
    path = tmp_path / "rounds.csv"
    path.write_bytes(
        b"\xef\xbb\xbftable_id,shoe_id,round_no,started_at,player_cards,banker_cards,outcome\r\n"
        b'T1,S1,1,2026-11-01T10:00:00+00:00,9H KD,8S KC,\r\n"T1","S1",2,2026-11-01T10:01:00+00:00,"9H, KD",8S KC,P\r\n'
    )
    assert columns_of(Path(path))[0] == "table_id"
    (batch,) = list(read_batches(path))
    assert batch.columns[0] == "table_id" and batch["_line"].to_list() == [2, 3]
    assert batch["outcome"].to_list() == [None, "P"] and batch["player_cards"].to_list() == ["9H KD", "9H, KD"]


def test_json_values_read_as_text_spelled_as_json_wrote_them(tmp_path):
    path = tmp_path / "rounds.jsonl"
    path.write_text(
        '{"table_id": 7, "round_no": true, "decks": 8, "player_cards": ["AS", "KH"], "outcome": null}\n[1, 2]\n'
    )
    (batch,) = list(read_batches(path))
    row = batch.filter(batch["_unparsed"].is_null()).row(0, named=True)
    assert (row["table_id"], row["round_no"], row["decks"]) == ("7", "true", "8")
    assert row["player_cards"] == '["AS", "KH"]' and row["outcome"] is None
    assert batch["_unparsed"].drop_nulls().to_list() == ["[1, 2]"]


def test_parquet_lists_and_structs_read_as_their_json_text(tmp_path):
    path = tmp_path / "rounds.parquet"
    pl.DataFrame(
        {"table_id": ["T1", "T1"], "player_cards": [["2H", "3S"], None], "extra": [{"a": 1}, {"a": None}]}
    ).write_parquet(path)
    (batch,) = list(read_batches(path))
    assert batch["player_cards"].to_list() == ['["2H","3S"]', None]
    assert batch["extra"].to_list() == ['{"a":1}', '{"a":null}'] and batch["table_id"].to_list() == ["T1", "T1"]


def test_a_ragged_csv_reads_on_row_by_row_naming_columns_as_polars_does(tmp_path):
    path = tmp_path / "rounds.csv"
    path.write_bytes(b"\xef\xbb\xbftable_id,note,note\nT1,,b\nT2,a,b,c\nT3\n")
    (batch,) = list(read_batches(path))
    assert batch.columns[:3] == ["table_id", "note", "note_duplicated_0"]
    assert batch["table_id"].to_list() == ["T1", "T2", "T3"] and batch["note"].to_list() == [None, "a", None]
    assert batch["_unparsed"].to_list() == [None, "T2,a,b,c", None]
    assert batch["_unparsed_detail"].to_list() == [None, "4 fields where the header has 3", None]
    assert batch["_line"].to_list() == [2, 3, 4]


def test_a_nested_column_named_outside_ascii_reads_as_json_text(tmp_path):
    path = tmp_path / "rounds.parquet"
    pl.DataFrame({"mains_joueur": [["2H"]], "détail": [{"clé": 1}]}).write_parquet(path)
    (batch,) = list(read_batches(path))
    assert batch.row(0)[:2] == ('["2H"]', '{"clé":1}')


# Line endings, byte-order marks, compressed streams cut short, lines that cannot be rows, the kind
# of a file and the names no file may use: each as the reader sees it.

ROUNDS = "table_id,shoe_id,round_no,started_at,player_cards,banker_cards,outcome"
ROWS = [f"T1,S1,{n},2026-11-01T10:{n:02d}:00+00:00,9H KD,8S KC," for n in range(1, 7)]


def _packed(data: bytes, compression: str | None) -> bytes:
    if compression == "gzip":
        return gzip.compress(data)
    if compression == "zstd":
        return zstandard.ZstdCompressor(write_checksum=True).compress(data)
    return data


SUFFIX = {None: "", "gzip": ".gz", "zstd": ".zst"}


def _rows(path: Path) -> pl.DataFrame:
    return pl.concat(list(read_batches(path)), how="diagonal_relaxed")


@pytest.mark.parametrize("compression", [None, "gzip", "zstd"])
def test_a_csv_of_lone_carriage_returns_reads_every_row(tmp_path, compression):
    path = tmp_path / f"rounds.csv{SUFFIX[compression]}"
    path.write_bytes(_packed("\r".join([ROUNDS, *ROWS, ""]).encode(), compression))
    rows = _rows(path)
    assert rows["round_no"].to_list() == [str(n) for n in range(1, 7)] and rows["_line"].to_list() == list(range(2, 8))
    assert "_unparsed" not in rows.columns and rows["outcome"].null_count() == 6


def test_mixed_line_endings_read_right_in_the_first_block_and_past_it(tmp_path):
    endings = ["\n", "\r\n", "\r"]
    small = tmp_path / "small.csv"
    small.write_bytes("".join(line + endings[n % 3] for n, line in enumerate([ROUNDS, *ROWS])).encode())
    assert _rows(small)["round_no"].to_list() == [str(n) for n in range(1, 7)]
    # a file whose first block ends every line with `\n`, and later lines with `\r` or `\r\n`
    many = [f"T1,S1,{n},2026-11-01T10:00:00+00:00,9H KD,8S KC,B" for n in range(1, 60_001)]
    assert len("\n".join(many[:30_000])) > streams.BLOCK
    text = (
        "\n".join([ROUNDS, *many[:30_000]])
        + "\n"
        + "".join(line + endings[n % 3] for n, line in enumerate(many[30_000:]))
    )
    large = tmp_path / "large.csv"
    large.write_bytes(text.encode())
    rows = _rows(large)
    assert rows["round_no"].to_list() == [str(n) for n in range(1, 60_001)]
    assert rows["_line"].to_list() == list(range(2, 60_002)) and set(rows["outcome"]) == {"B"}
    assert rows["_unparsed"].null_count() == rows.height  # read on row by row, nothing made unparsed


@pytest.mark.parametrize("compression", [None, "gzip", "zstd"])
def test_json_lines_end_at_any_line_ending(tmp_path, compression):
    records = [json.dumps({"table_id": "T1", "round_no": n}) for n in range(1, 7)]
    path = tmp_path / f"rounds.jsonl{SUFFIX[compression]}"
    text = "\r".join(records[:2]) + "\r\n" + "\n".join(records[2:4]) + "\r\r\n" + "\r".join(records[4:])
    path.write_bytes(_packed(text.encode(), compression))
    rows = _rows(path)
    assert rows["round_no"].to_list() == [str(n) for n in range(1, 7)] and rows["_line"].to_list() == [1, 2, 3, 4, 6, 7]


@pytest.mark.parametrize("compression", [None, "gzip", "zstd"])
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_byte_order_mark_is_stripped_in_every_text_format(tmp_path, fmt, compression):
    text = "\n".join([ROUNDS, *ROWS]) if fmt == "csv" else json.dumps({"table_id": "T1", "round_no": 1})
    path = tmp_path / f"rounds.{fmt}{SUFFIX[compression]}"
    path.write_bytes(_packed(codecs.BOM_UTF8 + text.encode() + b"\n", compression))
    rows = _rows(path)
    assert rows.columns[0] == "table_id" and rows["table_id"][0] == "T1" and "_unparsed" not in rows.columns
    assert columns_of(path)[0] == "table_id"


def _zstd_rows(count: int) -> bytes:
    return "".join(json.dumps({"table_id": "T1", "round_no": n}) + "\n" for n in range(1, count + 1)).encode()


@pytest.mark.parametrize("kept", [0.5, 0.75, 0.93, 0.99])
@pytest.mark.parametrize("framing", ["one frame with its size", "a streamed frame", "two frames"])
def test_a_zstd_file_cut_short_is_unreadable_at_any_point(tmp_path, kept, framing):
    data = _zstd_rows(4836)
    if framing == "one frame with its size":
        packed = zstandard.ZstdCompressor(write_checksum=True).compress(data)
    elif framing == "a streamed frame":  # no content size in its header: only the frame's end tells
        writer = zstandard.ZstdCompressor().compressobj()
        packed = writer.compress(data) + writer.flush()
    else:
        half = len(data) // 2
        packed = zstandard.ZstdCompressor().compress(data[:half]) + zstandard.ZstdCompressor().compress(data[half:])
    whole = tmp_path / "whole.jsonl.zst"
    whole.write_bytes(packed)
    assert _rows(whole).height == 4836  # every frame read, whole
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(packed[: int(len(packed) * kept)])
    with pytest.raises(UnreadableFile, match=r"cut.jsonl.zst as jsonl \(zstd\): .*truncated"):
        list(read_batches(cut))
    with pytest.raises(UnreadableFile, match="truncated"):
        kind_of(cut)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_gzip_file_cut_short_or_empty_is_unreadable(tmp_path, fmt):
    data = gzip.compress(("\n".join([ROUNDS, *ROWS]) + "\n").encode())
    cut = tmp_path / f"cut.{fmt}.gz"
    cut.write_bytes(data[: len(data) * 3 // 4])
    with pytest.raises(UnreadableFile, match="end-of-stream marker"):
        list(read_batches(cut))
    cut.write_bytes(b"")
    with pytest.raises(UnreadableFile, match="an empty file is no gzip stream"):
        list(read_batches(cut))


def test_a_json_line_nested_too_deep_or_not_utf8_is_unparsed_and_its_neighbours_read(tmp_path):
    path = tmp_path / "rounds.jsonl"
    good = [json.dumps({"table_id": "T1", "round_no": n}).encode() for n in range(1, 5)]
    deep = b"[" * 100_000 + b"]" * 100_000
    lines = [good[0], deep, good[1], b'{"table_id": "T\xff1", "round_no": 3}', good[2], b'{"a": [[[[1]]]]}', good[3]]
    path.write_bytes(b"\n".join(lines) + b"\n")
    rows = _rows(path).sort("_line")
    assert rows["_line"].to_list() == list(range(1, 8))
    assert rows["_unparsed_detail"].to_list() == [
        None,
        "nested too deeply to read",
        None,
        "not UTF-8",
        None,
        None,
        None,
    ]
    assert rows["_unparsed"][3] == '{"table_id": "T\\xff1", "round_no": 3}'
    assert rows["table_id"].to_list() == ["T1", None, "T1", None, "T1", None, "T1"] and rows["a"][5] == "[[[[1]]]]"


def test_a_csv_line_not_utf8_is_unparsed_and_the_rest_reads_on(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 2)  # the line comes after batches already given
    lines = [ROUNDS.encode(), *(row.encode() for row in ROWS)]
    lines[4] = lines[4].replace(b"9H KD", b"9H \xffKD")
    path = tmp_path / "rounds.csv"
    path.write_bytes(b"\n".join(lines) + b"\n")
    rows = _rows(path)
    assert rows["_line"].to_list() == list(range(2, 8)) and rows["round_no"].to_list() == [str(n) for n in range(1, 7)]
    assert rows["_unparsed_detail"].to_list() == [None, None, None, "not UTF-8", None, None]
    assert rows["_unparsed"][3] == "T1,S1,4,2026-11-01T10:04:00+00:00,9H \\xffKD,8S KC,"


def test_a_csv_header_not_utf8_makes_the_file_unreadable(tmp_path):
    path = tmp_path / "rounds.csv"
    path.write_bytes(b"table_id,sh\xffoe_id\nT1,S1\n")
    with pytest.raises(UnreadableFile, match="the header is not UTF-8"):
        kind_of(path)  # before any row is read (Polars would read the name with a replacement character)


def test_the_kind_of_a_file_comes_from_its_parsed_header_or_any_record(tmp_path):
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('"x,bet",table_id\n1,T1\n')
    named = tmp_path / "named.csv"
    named.write_text("table_id,shoe_id,round_no,seat,bet,amount\n")
    assert columns_of(quoted) == ["x,bet", "table_id"] and kind_of(quoted) == "rounds" and kind_of(named) == "bets"
    bet = json.dumps({"table_id": "T1", "seat": "3", "bet": "banker", "amount": 10})
    blank_first = tmp_path / "blank_first.jsonl"
    blank_first.write_text(f"\n  \n{bet}\n")
    lacking_first = tmp_path / "lacking_first.jsonl"
    lacking_first.write_text(json.dumps({"table_id": "T1", "seat": "3", "amount": 10}) + "\n" + bet + "\n")
    in_a_value = tmp_path / "in_a_value.jsonl"
    in_a_value.write_text(json.dumps({"dealer_id": '"bet"', "note": {"bet": 1}}) + "\n")
    assert [kind_of(p) for p in (blank_first, lacking_first, in_a_value)] == ["bets", "bets", "rounds"]
    assert columns_of(blank_first) == ["table_id", "seat", "bet", "amount"]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_input_columns_beginning_with_an_underscore_are_dropped(tmp_path, fmt):
    frame = pl.DataFrame(
        {"table_id": ["T1", "T2"], "_line": ["7", "8"], "_unparsed": ["spoof", None], "_unparsed_detail": ["x", "y"],
         "_game": ["1", "2"]}
    )  # fmt: skip
    path = tmp_path / f"rounds.{fmt}"
    {"csv": frame.write_csv, "jsonl": frame.write_ndjson, "parquet": frame.write_parquet}[fmt](path)
    rows = _rows(path)
    assert rows.columns == ["table_id", "_line"] and rows["_line"].to_list() == ([2, 3] if fmt == "csv" else [1, 2])
    assert columns_of(path) == ["table_id"]


def test_json_numbers_reach_the_checks_spelled_as_the_log_wrote_them(tmp_path):
    path = tmp_path / "bets.jsonl"
    path.write_text(
        '{"round_no": 1e3, "decks": 1.0000000000000001, "amount": 25.0000000000001, "seat": 3, "x": [1e3]}\n'
    )
    row = _rows(path).row(0, named=True)
    assert (row["round_no"], row["decks"], row["amount"], row["seat"]) == (
        "1e3",
        "1.0000000000000001",
        "25.0000000000001",
        "3",
    )
    assert row["x"] == "[1000.0]"  # a nested number as JSON writes it: such a value is quarantined anyway


def test_a_fifo_or_a_folder_is_never_opened(tmp_path):
    fifo = tmp_path / "rounds.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: open(fifo, "wb").close(), daemon=True)  # waits for a reader
    writer.start()
    with pytest.raises(UnreadableFile, match=r"rounds.csv as csv: a FIFO \(named pipe\), not a regular file"):
        kind_of(fifo)
    with pytest.raises(UnreadableFile, match="a FIFO"):
        list(read_batches(fifo))
    assert writer.is_alive()  # no reader ever opened the FIFO
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # let the writer go
    writer.join(5)
    os.close(reader)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    with pytest.raises(UnreadableFile, match=r"folder\.jsonl as jsonl: a folder, not a file"):
        kind_of(folder)
