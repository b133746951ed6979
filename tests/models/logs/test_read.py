"""Logs as they come: CSV as spreadsheets write it (a byte-order mark, Windows line endings, quoted
fields, empty fields), and JSON values of every type."""

from pathlib import Path

import polars as pl

from models.logs.read import columns_of, read_batches


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
