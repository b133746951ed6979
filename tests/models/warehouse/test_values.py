"""One bad value quarantines its row, never its file: Parquet logs of every column type through the
real `ingest()`, numbers read from their text, and leap seconds, each row where it belongs."""

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from models.warehouse.ingest import ingest
from models.warehouse.store import read

TIMES = ["2026-11-01T10:00:00+00:00", "2026-11-01T10:01:00+00:00", "2026-11-01T10:02:00+00:00"]
ROUNDS = {
    "table_id": pa.array(["T1"] * 3),
    "shoe_id": pa.array(["S1"] * 3),
    "round_no": pa.array([1, 2, 3]),
    "started_at": pa.array(TIMES),
    "player_cards": pa.array(["9H TD", "2C 3C 4C", "8D KD"]),
    "banker_cards": pa.array(["7C KS", "KC 7D", "3S 4S"]),  # the player wins each coup
}
BIG = 2**63 + 5  # past Int64: a strict cast failed the whole file

#: column -> (its values in a three-row rounds file, {line: the bad_type detail of its quarantined row})
ROUND_CASES = {
    "round_no uint64 past 2**63": ("round_no", pa.array([1, BIG, 3], pa.uint64()),
                                   {2: f"round_no {BIG} is too large (at most 2147483647)"}),
    "round_no uint64 max": ("round_no", pa.array([1, 2**64 - 1, 3], pa.uint64()),
                            {2: "round_no 18446744073709551615 is too large (at most 2147483647)"}),
    "decks uint64 past 2**63": ("decks", pa.array([8, BIG, 6], pa.uint64()), {2: f"decks {BIG} is not 1 to 8"}),
    "round_no uint8": ("round_no", pa.array([1, 2, 3], pa.uint8()), {}),
    "round_no uint16": ("round_no", pa.array([1, 2, 3], pa.uint16()), {}),
    "round_no uint32": ("round_no", pa.array([1, 4294967295, 3], pa.uint32()),
                        {2: "round_no 4294967295 is too large (at most 2147483647)"}),
    "round_no int8": ("round_no", pa.array([1, -2, 3], pa.int8()), {2: "round_no -2 is not a whole number >= 1"}),
    "round_no int16": ("round_no", pa.array([1, 2, 3], pa.int16()), {}),
    "round_no int32": ("round_no", pa.array([1, 0, 3], pa.int32()), {2: "round_no 0 is not a whole number >= 1"}),
    "round_no int64": ("round_no", pa.array([1, 2**63 - 1, 3], pa.int64()),
                       {2: "round_no 9223372036854775807 is too large (at most 2147483647)"}),
    "decks int16": ("decks", pa.array([8, -1, 6], pa.int16()), {2: "decks -1 is not 1 to 8"}),
    "round_no float64, 3.0 is 3": ("round_no", pa.array([1.0, 2.5, 3.0]),
                                   {2: "round_no 2.5 is not a whole number >= 1"}),
    "round_no float32": ("round_no", pa.array([1.0, 2.5, 3.0], pa.float32()),
                         {2: "round_no 2.5 is not a whole number >= 1"}),
    "round_no float NaN": ("round_no", pa.array([1.0, float("nan"), 3.0]),
                           {2: "round_no NaN is not a whole number >= 1"}),
    "round_no float past Int64": ("round_no", pa.array([1.0, 1e20, 3.0]),
                                  {2: "round_no 1e+20 is too large (at most 2147483647)"}),
    "decks float": ("decks", pa.array([8.0, 6.5, 6.0]), {2: "decks 6.5 is not 1 to 8"}),
    "round_no decimal": ("round_no", pa.array([Decimal(1), Decimal("2.5"), Decimal(3)], pa.decimal128(10, 1)),
                         {2: "round_no 2.5 is not a whole number >= 1"}),
    "round_no decimal of 38 digits": ("round_no", pa.array([Decimal(1), Decimal("9" * 38), Decimal(3)],
                                                           pa.decimal128(38, 0)),
                                      {2: f"round_no {'9' * 38} is too large (at most 2147483647)"}),
    "round_no text 1e3": ("round_no", pa.array(["1", "1e3", "3"]), {2: "round_no 1e3 is not a whole number >= 1"}),
    "round_no text past a float's digits": ("round_no", pa.array(["1", "1.0000000000000001", "3"]),
                                            {2: "round_no 1.0000000000000001 is not a whole number >= 1"}),
    "round_no text 2.00": ("round_no", pa.array(["1", "2.00", "3.0"]), {}),
    "round_no timestamp": ("round_no", pa.array([dt.datetime(2026, 1, 1)] * 3),
                           dict.fromkeys([1, 2, 3], "round_no 2026-01-01 00:00:00.000000 is not a whole number >= 1")),
    "table_id binary not utf-8": ("table_id", pa.array([b"T1", b"\xff\xfe", b"T1"], pa.binary()),
                                  {2: "table_id \\xff\\xfe is not UTF-8 text"}),
    "player_cards binary not utf-8": ("player_cards", pa.array([b"9H TD", b"2C \xe9", b"8D KD"], pa.large_binary()),
                                      {2: "player_cards 2C \\xe9 is not UTF-8 text"}),
    "table_id binary utf-8": ("table_id", pa.array([b"T1", b"T1", b"T1"], pa.binary()), {}),
    "an extra binary column not utf-8": ("note", pa.array([b"ok", b"\xff", None]), {}),  # ignored: no check reads it
    "an extra duration column": ("note", pa.array([dt.timedelta(1)] * 3), {}),
    "table_id dictionary": ("table_id", pa.array(["T1"] * 3).dictionary_encode(), {}),
    "table_id large_string": ("table_id", pa.array(["T1"] * 3, pa.large_string()), {}),
    "started_at dictionary": ("started_at", pa.array(TIMES).dictionary_encode(), {}),
    "round_no dictionary": ("round_no", pa.array(["1", "2.0", "3e0"]).dictionary_encode(),
                            {3: "round_no 3e0 is not a whole number >= 1"}),
    "player_cards dictionary": ("player_cards", pa.array(["9H TD", "2C 3C 4C", "8D KD"]).dictionary_encode(), {}),
    "started_at date": ("started_at", pa.array([dt.date(2026, 11, 1)] * 3),
                        dict.fromkeys([1, 2, 3], "started_at 2026-11-01 is not an ISO 8601 time")),
    "started_at date64": ("started_at", pa.array([dt.date(2026, 11, 1)] * 3, pa.date64()),
                          dict.fromkeys([1, 2, 3], "started_at 2026-11-01 is not an ISO 8601 time")),
    "started_at time of day": ("started_at", pa.array([dt.time(10, 0)] * 3),
                               dict.fromkeys([1, 2, 3], "started_at 10:00:00 is not an ISO 8601 time")),
    "started_at duration": ("started_at", pa.array([dt.timedelta(days=1)] * 3),
                            dict.fromkeys([1, 2, 3], "started_at P1D is not an ISO 8601 time")),
    "started_at leap second": ("started_at", pa.array([TIMES[0], "2016-12-31T23:59:60Z", TIMES[2]]),
                               {2: "started_at 2016-12-31T23:59:60Z is a leap second (second 60), "
                                   "not a time the warehouse can store"}),
    "started_at binary not utf-8": ("started_at", pa.array([TIMES[0].encode(), b"\xff", TIMES[2].encode()]),
                                    {2: "started_at \\xff is not UTF-8 text"}),
}  # fmt: skip


def _ingest(tmp_path: Path, files: dict[str, dict]):
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    for name, columns in files.items():
        pq.write_table(pa.table(columns), logs / name)
    db = tmp_path / "banco.duckdb"
    return {result.path.name: result for result in ingest(db, [logs])}, read(db)


@pytest.mark.parametrize("case", list(ROUND_CASES))
def test_a_parquet_value_is_accepted_when_right_and_quarantines_only_its_row_when_not(tmp_path, case):
    name, values, quarantined = ROUND_CASES[case]
    results, con = _ingest(tmp_path, {"rounds.parquet": ROUNDS | {name: values}})
    result = results["rounds.parquet"]
    assert result.status == "ok", result.error
    assert dict(result.quarantined) == ({"bad_type": len(quarantined)} if quarantined else {})
    assert result.accepted == 3 - len(quarantined)
    assert dict(con.execute("SELECT line_no, detail FROM quarantine.rounds").fetchall()) == quarantined
    accepted = [line for (line,) in con.execute("SELECT line_no FROM core.rounds ORDER BY 1").fetchall()]
    assert accepted == [line for line in (1, 2, 3) if line not in quarantined]


def test_bytes_that_are_not_utf8_are_kept_in_the_quarantined_rows_raw_text(tmp_path):
    values = ROUNDS | {"table_id": pa.array([b"T1", b"\xff\xfe", b"T1"]), "note": pa.array([None, b"\x80", None])}
    _, con = _ingest(tmp_path, {"rounds.parquet": values})
    raw, table_id = con.execute("SELECT raw, table_id FROM quarantine.rounds").fetchone()
    assert '"table_id":"\\\\xff\\\\xfe"' in raw and '"note":"\\\\x80"' in raw and table_id == "\\xff\\xfe"


def test_timestamps_are_instants_with_or_without_a_zone_at_any_unit(tmp_path):
    moment = dt.datetime(2026, 11, 1, 10, 0, 0, 123456)
    files = {
        "naive.parquet": ROUNDS | {"table_id": pa.array(["A"] * 3),
                                   "started_at": pa.array([moment] * 3, pa.timestamp("us"))},
        "paris.parquet": ROUNDS | {"table_id": pa.array(["B"] * 3),
                                   "started_at": pa.array([moment] * 3, pa.timestamp("ns", "Europe/Paris"))},
        "offset.parquet": ROUNDS | {"table_id": pa.array(["C"] * 3),
                                    "started_at": pa.array([moment] * 3, pa.timestamp("ms", "+01:00"))},
    }  # fmt: skip
    results, con = _ingest(tmp_path, files)
    assert {name: (r.status, r.accepted) for name, r in results.items()} == dict.fromkeys(files, ("ok", 3))
    stored = dict(con.execute("SELECT DISTINCT table_id, started_at FROM core.rounds").fetchall())
    utc = moment.replace(tzinfo=dt.UTC)  # a naive timestamp is UTC; the zoned ones are that instant anyway
    assert stored == {"A": utc, "B": utc, "C": utc.replace(microsecond=123000)}


NULLABLE = {  # column -> the reason and detail of a row holding a null there (None: the row is accepted)
    "table_id": ("missing_field", "table_id is missing"),
    "shoe_id": ("missing_field", "shoe_id is missing"),
    "round_no": ("missing_field", "round_no is missing"),
    "started_at": ("missing_field", "started_at is missing"),
    "player_cards": ("missing_field", "only one hand is logged"),
    "banker_cards": ("missing_field", "only one hand is logged"),
    "game": None,
    "decks": None,
    "dealer_id": None,
    "bank_holder": None,
    "player2_cards": None,
    "outcome": None,
}


@pytest.mark.parametrize("typed", [True, False], ids=["typed", "all-null columns"])
@pytest.mark.slow
def test_a_null_in_any_column_is_missing_or_its_default_for_its_row_only(tmp_path, typed):
    """Each column null in one row of its own file (typed columns, or Parquet's null type)."""
    files = {}
    for j, name in enumerate(NULLABLE):
        columns = ROUNDS | {"table_id": pa.array([f"T{j}"] * 3), "game": pa.array(["punto_banco"] * 3),
                            "decks": pa.array([8, 8, 8], pa.int8()), "outcome": pa.array(["P", "P", "P"]),
                            "dealer_id": pa.array(["D"] * 3), "bank_holder": pa.array(["H"] * 3),
                            "player2_cards": pa.array([None] * 3, pa.string())}  # fmt: skip
        column = columns[name]
        columns[name] = (
            pa.array([None] * 3, pa.null())
            if not typed
            else pa.array([column[0].as_py(), None, column[2].as_py()], column.type)
        )
        files[f"{name}.parquet"] = columns
    results, con = _ingest(tmp_path, files)
    lines = [2] if typed else [1, 2, 3]
    for name, outcome in NULLABLE.items():
        result = results[f"{name}.parquet"]
        assert result.status == "ok", (name, result.error)
        if outcome is None:
            assert result.accepted == 3 and not result.quarantined, name
        else:
            assert dict(result.quarantined) == {outcome[0]: len(lines)} and result.accepted == 3 - len(lines), name
    found = con.execute("SELECT source_file, line_no, reason, detail FROM quarantine.rounds ORDER BY ALL").fetchall()
    assert found == sorted(
        (str(tmp_path / "logs" / f"{name}.parquet"), line, *outcome)
        for name, outcome in NULLABLE.items()
        if outcome
        for line in lines
    )
    assert con.execute("SELECT DISTINCT game, decks FROM core.rounds").fetchall() == [("punto_banco", 8)]


BETS = {
    "table_id": pa.array(["T1"] * 3),
    "shoe_id": pa.array(["S1"] * 3),
    "round_no": pa.array([1, 1, 1]),
    "seat": pa.array(["1", "2", "3"]),
    "bet": pa.array(["player"] * 3),  # the player wins: a payout is the amount
}
BET_CASES = {  # column -> (values, {line: (reason, detail)}, amounts or payouts stored)
    "amount decimal(18,2)": ("amount", pa.array([Decimal("10.00"), Decimal("0.00"), Decimal("25.50")],
                                                pa.decimal128(18, 2)),
                             {2: ("bad_amount", "amount 0.00 is not positive")}, ["10", "25.5"]),
    "amount decimal(20,6)": ("amount", pa.array([Decimal("10"), Decimal("12.345678"), Decimal("25.5")],
                                                pa.decimal128(20, 6)),
                             {2: ("bad_amount", "amount 12.345678 has more than 4 decimal places")}, ["10", "25.5"]),
    "amount decimal(38,0)": ("amount", pa.array([Decimal(10), Decimal("9" * 38), Decimal(25)], pa.decimal128(38, 0)),
                             {2: ("bad_amount", f"amount {'9' * 38} is too large (at most 10 digits before the "
                                                f"point)")},
                             ["10", "25"]),
    "amount float": ("amount", pa.array([10.0, 25.0000000000001, 0.1]),
                     {2: ("bad_amount", "amount 25.0000000000001 has more than 4 decimal places")}, ["10", "0.1"]),
    "amount uint64": ("amount", pa.array([10, BIG, 25], pa.uint64()),
                      {2: ("bad_amount", f"amount {BIG} is too large (at most 10 digits before the point)")},
                      ["10", "25"]),
    "amount text past four places": ("amount", pa.array(["10", "25.0000000000001", "25"]),
                                     {2: ("bad_amount", "amount 25.0000000000001 has more than 4 decimal places")},
                                     ["10", "25"]),
    "amount text exponent": ("amount", pa.array(["10", "1e3", "25"]),
                             {2: ("bad_amount", "amount 1e3 is not a decimal")}, ["10", "25"]),
    "payout text past four places": ("payout", pa.array(["10", "95.00000000000001", None]),
                                     {2: ("bad_type", "payout 95.00000000000001 has more than 4 decimal places")},
                                     ["10", None]),
    "payout decimal(18,4)": ("payout", pa.array([Decimal("10"), Decimal("10.0000"), None], pa.decimal128(18, 4)), {},
                             ["10", "10", None]),
    "side uint64": ("side", pa.array([1, BIG, None], pa.uint64()), {2: ("bad_type", f"side {BIG} is not 1 or 2")},
                    None),
    "seat binary not utf-8": ("seat", pa.array([b"1", b"\xff", b"3"]),
                              {2: ("bad_type", "seat \\xff is not UTF-8 text")}, None),
    "round_no uint64": ("round_no", pa.array([1, BIG, 1], pa.uint64()),
                        {2: ("bad_type", f"round_no {BIG} is too large (at most 2147483647)")}, None),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BET_CASES))
def test_a_bets_parquet_value_is_kept_exactly_or_quarantines_only_its_row(tmp_path, case):
    name, values, quarantined, stored = BET_CASES[case]
    game = "baccarat_banque" if name == "side" else "punto_banco"
    rounds = ROUNDS | {
        "game": pa.array([game] * 3),
        "player2_cards": pa.array(["9H KC" if name == "side" else None] * 3),
    }
    bets = BETS | {"amount": pa.array(["10"] * 3)} | {name: values}
    results, con = _ingest(tmp_path, {"rounds.parquet": rounds, "bets.parquet": bets})
    result = results["bets.parquet"]
    assert result.status == "ok", result.error
    found = {line: (reason, detail) for line, reason, detail in
             con.execute("SELECT line_no, reason, detail FROM quarantine.bets").fetchall()}  # fmt: skip
    assert found == quarantined and result.accepted == 3 - len(quarantined)
    if stored is not None:
        column = "amount" if name == "amount" else "payout"
        kept = [value for (value,) in con.execute(f"SELECT {column} FROM core.bets ORDER BY line_no").fetchall()]
        assert kept == [None if text is None else Decimal(text) for text in stored]


def test_a_json_or_csv_number_is_read_from_its_text(tmp_path):
    """JSON numbers keep the text they were written in: `1e3` and `25.0000000000001` are not read
    through a float (which would make them 1000 and 25)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rounds.jsonl").write_text(
        '{"table_id": "T1", "shoe_id": "S1", "round_no": 1e3, "started_at": "2026-11-01T10:00:00Z", '
        '"player_cards": "9H TD", "banker_cards": "7C KS"}\n'
        '{"table_id": "T1", "shoe_id": "S1", "round_no": 1.0000000000000001, "started_at": "2026-11-01T10:00:00Z", '
        '"player_cards": "9H TD", "banker_cards": "7C KS"}\n'
        '{"table_id": "T1", "shoe_id": "S1", "round_no": 1.0, "started_at": "2026-11-01T10:00:00Z", '
        '"player_cards": "9H TD", "banker_cards": "7C KS"}\n'
    )
    (logs / "bets.jsonl").write_text(
        '{"table_id": "T1", "shoe_id": "S1", "round_no": 1, "seat": "1", "bet": "banker", "amount": 25.0000000000001}\n'
        '{"table_id": "T1", "shoe_id": "S1", "round_no": 1, "seat": "2", "bet": "banker", "amount": 100, '
        '"payout": 95.00000000000001}\n'
        '{"table_id": "T1", "shoe_id": "S1", "round_no": 1, "seat": "3", "bet": "banker", "amount": 100, '
        '"payout": -100.0}\n'
    )
    (logs / "bets.csv").write_text("table_id,shoe_id,round_no,seat,bet,amount,payout\n"
                                   "T1,S1,1,4,banker,25.0000000000001,\nT1,S1,1e0,5,banker,100,95\n")  # fmt: skip
    db = tmp_path / "banco.duckdb"
    results = {result.path.name: result for result in ingest(db, [logs])}
    assert all(result.status == "ok" for result in results.values()), results
    con = read(db)
    rounds = con.execute("SELECT line_no, detail FROM quarantine.rounds ORDER BY 1").fetchall()
    assert rounds == [(1, "round_no 1e3 is not a whole number >= 1"),
                      (2, "round_no 1.0000000000000001 is not a whole number >= 1")]  # fmt: skip
    bets = con.execute("SELECT source_file, line_no, reason, detail FROM quarantine.bets ORDER BY ALL").fetchall()
    assert [(Path(source).name, *rest) for source, *rest in bets] == [
        ("bets.csv", 2, "bad_amount", "amount 25.0000000000001 has more than 4 decimal places"),
        ("bets.csv", 3, "bad_type", "round_no 1e0 is not a whole number >= 1"),
        ("bets.jsonl", 1, "bad_amount", "amount 25.0000000000001 has more than 4 decimal places"),
        ("bets.jsonl", 2, "bad_type", "payout 95.00000000000001 has more than 4 decimal places"),
    ]
    assert con.execute("SELECT seat, amount, payout FROM core.bets").fetchall() == [
        ("3", Decimal("100.0000"), Decimal("-100.0000"))
    ]


def test_a_leap_second_is_bad_type_and_its_neighbours_go_in(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rounds.csv").write_text(
        "table_id,shoe_id,round_no,started_at,player_cards,banker_cards\n"
        "T1,S1,1,2016-12-31T23:59:59Z,9H TD,7C KS\n"
        "T1,S1,2,2016-12-31T23:59:60Z,9H TD,7C KS\n"
        "T1,S1,3,2016-12-31T23:59:60+00:00,9H TD,7C KS\n"
        "T1,S1,4,2016-12-31 23:59:60.250,9H TD,7C KS\n"
        "T1,S1,5,2017-01-01T00:00:00+00:00,9H TD,7C KS\n"
    )
    db = tmp_path / "banco.duckdb"
    (result,) = ingest(db, [logs])
    assert (result.status, result.accepted, dict(result.quarantined)) == ("ok", 2, {"bad_type": 3})
    con = read(db)
    assert con.execute("SELECT line_no, detail FROM quarantine.rounds ORDER BY 1").fetchall() == [
        (line, f"started_at {text} is a leap second (second 60), not a time the warehouse can store")
        for line, text in [
            (3, "2016-12-31T23:59:60Z"),
            (4, "2016-12-31T23:59:60+00:00"),
            (5, "2016-12-31 23:59:60.250"),
        ]
    ]
    stored = con.execute("SELECT round_no, started_at FROM core.rounds ORDER BY 1").fetchall()
    assert stored == [(1, dt.datetime(2016, 12, 31, 23, 59, 59, tzinfo=dt.UTC)),
                      (5, dt.datetime(2017, 1, 1, tzinfo=dt.UTC))]  # fmt: skip


def test_a_parquet_file_polars_cannot_read_fails_with_one_line_and_the_rest_go_in(tmp_path):
    values = ROUNDS | {"table_id": pa.array(["T9"] * 3), "amount": pa.array([Decimal(1)] * 3, pa.decimal256(40, 2))}
    results, con = _ingest(tmp_path, {"good.parquet": ROUNDS, "wide_decimal.parquet": values})
    bad = results["wide_decimal.parquet"]
    assert bad.status == "failed" and bad.error.startswith("cannot read wide_decimal.parquet as parquet: ")
    assert "\n" not in bad.error and bad.rows_read == 0
    assert results["good.parquet"].status == "ok" and results["good.parquet"].accepted == 3
    log = con.execute("SELECT status, error FROM meta.ingest_log WHERE path LIKE '%wide_decimal%'").fetchall()
    assert log == [("failed", bad.error)]


def test_a_files_own_column_named_like_the_readers_mark_neither_spoofs_nor_hides_bad_bytes(tmp_path):
    values = ROUNDS | {"table_id": pa.array([b"T1", b"\xff", b"T1"]), "_not_utf8": pa.array([["table_id"], None, None])}
    results, con = _ingest(tmp_path, {"rounds.parquet": values})
    assert (results["rounds.parquet"].accepted, dict(results["rounds.parquet"].quarantined)) == (2, {"bad_type": 1})
    assert con.execute("SELECT line_no, detail FROM quarantine.rounds").fetchall() == [
        (2, "table_id \\xff is not UTF-8 text")
    ]
