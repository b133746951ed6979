"""The contract's bounds and windows (docs/round-log-format.md#bounds-and-windows): each value at its
bound goes in, one past it is quarantined with a reason, in every file format, so no accepted row
breaks a later build; a JSON key given twice, a long value's detail, a slip outside its shift."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from models.contract import DETAIL_LENGTH, latest
from models.metrics.build import build
from models.warehouse.ingest import ingest
from tests.models.warehouse.test_table_events import query

ROUNDS_HEADER = "table_id,shoe_id,round_no,started_at,player_cards,banker_cards"
BETS_HEADER = "table_id,shoe_id,round_no,seat,bet,amount,player_id,payout"
EVENTS_HEADER = "table_id,shift_id,event_id,event,recorded_at,amount,denominations,player_id,employee_id"
#: A player win (9 against 7) the tests deal at any time.
COUP = "9H TD,7C KS"


def write(path: Path, header: str, rows: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def quarantined(db: Path, table: str) -> dict[int, tuple[str, str]]:
    rows = query(db, f"SELECT line_no, reason, detail FROM quarantine.{table}")
    return {line: (reason, detail) for line, reason, detail in rows}


def test_amounts_at_their_bound_go_in_and_one_past_is_quarantined(tmp_path):
    db = tmp_path / "banco.duckdb"
    rounds = [f"T1,S1,{n},2026-11-01T10:0{n}:00Z,{COUP}" for n in range(1, 5)]
    bets = [
        "T1,S1,1,1,player,9999999999.9999,P1,",  # the largest wager
        "T1,S1,2,1,player,10000000000,P1,",  # one past
        "T1,S1,3,1,player,25,P1,10000000000000",  # a payout one past its bound
        "T1,S1,4,1,player,25,P1,25",
    ]
    events = [
        "T1,A,O1,opener,2026-11-01T06:00:00Z,999999999999.99,,,E1",  # the largest
        "T1,A,F1,fill,2026-11-01T07:00:00Z,1000000000000.00,,,E1",  # one past
        "T1,A,F2,fill,2026-11-01T07:00:00Z,9999999999999999.99,,,E1",  # what DECIMAL(18, 2) holds
    ]
    ingest(db, [write(tmp_path / "r.csv", ROUNDS_HEADER, rounds), write(tmp_path / "b.csv", BETS_HEADER, bets)])
    ingest(db, [write(tmp_path / "e.csv", EVENTS_HEADER, events)])
    assert quarantined(db, "bets") == {
        3: ("bad_amount", "amount 10000000000 is too large (at most 10 digits before the point)"),
        4: ("bad_type", "payout 10000000000000 is too large (at most 13 digits before the point)"),
    }
    assert quarantined(db, "table_events") == {
        3: ("bad_amount", "amount 1000000000000.00 is too large (at most 12 digits before the point)"),
        4: ("bad_amount", "amount 9999999999999999.99 is too large (at most 12 digits before the point)"),
    }
    assert query(db, "SELECT max(amount) FROM core.bets")[0][0] == Decimal("9999999999.9999")
    assert build(db)  # what went in, the marts hold


#: (time as logged, accepted): the window is 2000-01-01 to a day past the ingest.
WINDOW = [
    ("2000-01-01T00:00:00Z", True),
    ("1999-12-31T23:59:59Z", False),
    ("0001-11-18T00:00:00Z", False),
    ("+12026-11-18T00:00:00Z", False),
]


def _ahead(hours: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_times_outside_the_window_are_quarantined_in_every_format(tmp_path, fmt):
    db = tmp_path / "banco.duckdb"
    times = [*WINDOW, (_ahead(23), True), (_ahead(25), False)]
    rows = [
        {"table_id": "T1", "shift_id": "A", "event_id": f"X{n}", "event": "drop", "recorded_at": at, "amount": "5"}
        for n, (at, _) in enumerate(times)
    ]
    path = tmp_path / f"events.{fmt}"
    if fmt == "csv":
        write(path, "table_id,shift_id,event_id,event,recorded_at,amount", [",".join(r.values()) for r in rows])
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:  # typed timestamps where Arrow can hold them; the others as text
        pq.write_table(pa.Table.from_pylist(rows), path)
    ingest(db, [path])
    first = 2 if fmt == "csv" else 1
    refused = quarantined(db, "table_events")
    assert {line - first for line in refused} == {n for n, (_, good) in enumerate(times) if not good}
    window = "is not between 2000-01-01 and a day past"
    assert all(reason == "bad_type" and window in detail for reason, detail in refused.values())


#: A coup's time, one in year 1, one past the window's end: typed as Parquet timestamps.
TIMES = [
    dt.datetime(2026, 11, 1, 10, tzinfo=dt.UTC),
    dt.datetime(1, 1, 1, tzinfo=dt.UTC),
    latest() + dt.timedelta(hours=1),
]


def test_rounds_outside_the_window_never_reach_the_core_tables(tmp_path):
    db = tmp_path / "banco.duckdb"
    pq.write_table(
        pa.table(
            {
                "table_id": ["T1"] * 3,
                "shoe_id": ["S1"] * 3,
                "round_no": [1, 2, 3],
                "started_at": pa.array(TIMES, pa.timestamp("us", "UTC")),
                "player_cards": ["9H TD"] * 3,
                "banker_cards": ["7C KS"] * 3,
            }
        ),
        tmp_path / "rounds.parquet",
    )
    [result] = ingest(db, [tmp_path / "rounds.parquet"])
    assert (result.accepted, result.quarantined) == (1, {"bad_type": 2})
    assert query(db, "SELECT min(started_at) >= TIMESTAMPTZ '2000-01-01' FROM core.rounds") == [(True,)]


def test_denominations_take_ascii_digits_only(tmp_path):
    db = tmp_path / "banco.duckdb"
    events = ["T1,A,X1,fill,2026-11-01T07:00:00Z,500,١٠٠x5,,", "T1,A,X2,fill,2026-11-01T07:00:00Z,500,100x5,,"]
    ingest(db, [write(tmp_path / "e.csv", EVENTS_HEADER, events)])
    assert quarantined(db, "table_events") == {
        2: ("bad_denominations", "denominations token '١٠٠x5' is not DENOMxCOUNT (such as 25x40)")
    }


def test_a_json_key_given_twice_is_a_duplicate_key(tmp_path):
    db = tmp_path / "banco.duckdb"
    good = {"table_id": "T1", "shift_id": "A", "event_id": "X1", "event": "fill", "recorded_at": "2026-11-01T07:00:00Z"}
    lines = [
        json.dumps(good | {"amount": 5}),
        '{"table_id":"T1","shift_id":"A","event_id":"X2","event":"fill","recorded_at":"2026-11-01T07:00:00Z",'
        '"amount":5,"amount":7}',
        '{"table_id": "T1", "shift_id": "A", "event_id": "X3", "event": "fill", "amount" : 5,'
        ' "recorded_at": "2026-11-01T07:00:00Z", "amount": 7}',  # spaced as pretty printers write
        json.dumps(good | {"event_id": "X4", "amount": 5, "employee_id": 'say "a":1'}),  # `":` inside a value
    ]
    (tmp_path / "events.jsonl").write_text("\n".join(lines) + "\n")
    [result] = ingest(db, [tmp_path / "events.jsonl"])
    assert (result.accepted, result.quarantined) == (2, {"duplicate_key": 2})
    assert quarantined(db, "table_events")[2] == ("duplicate_key", 'a key is given twice: "amount"')
    assert query(db, "SELECT raw FROM quarantine.table_events WHERE line_no = 2")[0][0] == lines[1]


def test_a_csv_header_naming_a_column_twice_fails_the_file(tmp_path):
    db = tmp_path / "banco.duckdb"
    path = write(tmp_path / "e.csv", "table_id,shift_id,event_id,event,recorded_at,amount,amount",
                 ["T1,A,X1,fill,2026-11-01T07:00:00Z,5,7"])  # fmt: skip
    [result] = ingest(db, [path])
    assert result.status == "failed"
    assert result.error == "cannot read e.csv as csv: its header names 'amount' twice"


def test_long_text_is_refused_and_a_long_detail_kept_as_an_excerpt(tmp_path):
    db = tmp_path / "banco.duckdb"
    rounds = [f"T1,S1,{n},2026-11-01T10:0{n}:00Z,{COUP}" for n in range(1, 4)]
    bets = [
        f"T1,S1,1,1,player,25,{'p' * 1_000_000},",
        f"T1,S1,2,{'s' * 1_000_000},player,25,P1,",
        f"T1,S1,3,1,player,{'9' * 100_000},P1,",
    ]
    ingest(db, [write(tmp_path / "r.csv", ROUNDS_HEADER, rounds), write(tmp_path / "b.csv", BETS_HEADER, bets)])
    refused = quarantined(db, "bets")
    assert refused[2] == ("bad_type", "player_id is 1000000 characters long (at most 64)")
    assert refused[3] == ("bad_type", "seat is 1000000 characters long (at most 16)")
    reason, detail = refused[4]
    assert reason == "bad_amount" and detail.endswith("… (an excerpt: the detail runs to 100057 characters)")
    assert detail.startswith("amount 9999") and len(detail) < DETAIL_LENGTH + 60
    # the row as read is kept whole: nothing is lost
    assert query(db, "SELECT length(raw) > 100000 FROM quarantine.bets WHERE line_no = 4") == [(True,)]


SHIFT = [
    "T1,A,O1,opener,2026-11-01T06:00:00Z,1000,,,E1",
    "T1,A,K1,closer,2026-11-01T14:00:00Z,1000,,,E1",
]


def test_a_slip_outside_its_shift_is_a_shift_conflict(tmp_path):
    db = tmp_path / "banco.duckdb"
    events = [
        *SHIFT,
        "T1,A,F1,fill,2026-11-01T14:00:00Z,100,,,E1",  # at the closer: inside
        "T1,A,F2,fill,2026-11-01T15:00:00Z,100,,,E1",
        "T1,A,C1,credit,2026-11-01T05:59:59Z,100,,,E1",
        "T1,A,D1,drop,2026-11-02T03:00:00Z,0,,,E1",  # counted after the close: allowed
    ]
    ingest(db, [write(tmp_path / "e.csv", EVENTS_HEADER, events)])
    after = "fill at 2026-11-01T15:00:00Z recorded after its shift's closer at 2026-11-01T14:00:00Z"
    before = "credit at 2026-11-01T05:59:59Z recorded before its shift's opener at 2026-11-01T06:00:00Z"
    assert quarantined(db, "table_events") == {5: ("shift_conflict", after), 6: ("shift_conflict", before)}
    # a slip stored first, its closer later: the closer is refused, the stored slip never taken back
    ingest(db, [write(tmp_path / "b1.csv", EVENTS_HEADER, ["T1,B,F9,fill,2026-11-01T20:00:00Z,100,,,E1"])])
    ingest(db, [write(tmp_path / "b2.csv", EVENTS_HEADER, ["T1,B,K9,closer,2026-11-01T19:00:00Z,0,,,E1"])])
    assert query(db, "SELECT reason, detail FROM quarantine.table_events WHERE event_id = 'K9'") == [
        ("shift_conflict", "closer at 2026-11-01T19:00:00Z recorded before a slip of its shift at 2026-11-01T20:00:00Z")
    ]
