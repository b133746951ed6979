"""Table events (docs/round-log-format.md#table-events): read from every format, checked row by row,
duplicates counted once across files and re-deliveries, each shift's opener and closer held to their
rule, every row accounted for, by the serving writer and by a shard's."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
import zstandard

from models.logs.read import kind_of
from models.warehouse import iceberg, schema
from models.warehouse.assign import by_shard
from models.warehouse.ingest import ingest
from models.warehouse.shards import Sharding
from models.warehouse.store import read, writer

HEADER = "table_id,shift_id,event_id,event,recorded_at,amount,denominations,player_id,employee_id"
#: One clean shift of T1: every kind of event, a breakdown on the opener, the closer and a fill.
SHIFT = [
    "T1,A,O1,opener,2026-11-02T06:00:00Z,2000,100x10 25x40,,E1",
    "T1,A,F1,fill,2026-11-02T08:00:00Z,500.50,,,E2",
    "T1,A,C1,credit,2026-11-02T09:00:00+01:00,300,100x3,,E2",
    "T1,A,M1,marker,2026-11-02 10:00,1000,,P1,E1",
    "T1,A,P1,marker_payment,2026-11-02T11:00:00Z,400,,P1,E1",
    "T1,A,D1,drop,2026-11-02T14:00:00Z,0,,,E3",
    "T1,A,K1,closer,2026-11-02T14:00:00Z,1750.25,,,E1",
]
ACCOUNTED = (
    "SELECT count(*) FROM meta.ingest_log WHERE status = 'ok' AND "
    "(rows_read <> rows_accepted + rows_quarantined + rows_duplicate)"
)


def write_csv(path: Path, rows: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    return path


def query(db: Path, sql: str) -> list[tuple]:
    con = read(db)
    try:
        return con.sql(sql).fetchall()
    finally:
        con.close()


def quarantined(db: Path) -> list[tuple]:
    return query(db, "SELECT line_no, reason, detail FROM quarantine.table_events ORDER BY source_file, line_no")


def test_a_clean_shift_goes_in_whole_with_its_types(tmp_path):
    db = tmp_path / "banco.duckdb"
    [result] = ingest(db, [write_csv(tmp_path / "events.csv", SHIFT)])
    assert (result.kind, result.status, result.rows_read, result.accepted) == ("events", "ok", 7, 7)
    rows = query(db, "SELECT event_id, event, recorded_at, amount, denominations, player_id FROM core.table_events")
    by_id = {row[0]: row[1:] for row in rows}
    utc = dt.UTC
    assert by_id["O1"] == ("opener", dt.datetime(2026, 11, 2, 6, tzinfo=utc), Decimal("2000.00"), "100x10 25x40", None)
    assert by_id["C1"][1] == dt.datetime(2026, 11, 2, 8, tzinfo=utc)  # the offset honoured
    assert by_id["M1"][1:] == (dt.datetime(2026, 11, 2, 10, tzinfo=utc), Decimal("1000.00"), None, "P1")  # naive: UTC
    assert by_id["D1"][2] == Decimal("0.00")  # an empty drop box counts
    assert query(db, "SELECT kind, rows_accepted FROM meta.ingest_log") == [("events", 7)]
    types = dict(query(db, "SELECT column_name, column_type FROM (DESCRIBE core.table_events)"))
    assert types["amount"] == "DECIMAL(18,2)" and types["recorded_at"] == "TIMESTAMP WITH TIME ZONE"


#: (row, reason, detail): every reason a row is rejected for on its own, in the order of the checks.
ON_THEIR_OWN = [
    ("T1,A,X1,fill,2026-11-02T08:00:00Z,,,,", "missing_field", "amount is missing"),
    (",A,X2,fill,2026-11-02T08:00:00Z,5,,,", "missing_field", "table_id is missing"),
    ("T1,,X3,fill,2026-11-02T08:00:00Z,5,,,", "missing_field", "shift_id is missing"),
    ("T1,A,,fill,2026-11-02T08:00:00Z,5,,,", "missing_field", "event_id is missing"),
    ("T1,A,X5,,2026-11-02T08:00:00Z,5,,,", "missing_field", "event is missing"),
    ("T1,A,X6,fill,,5,,,", "missing_field", "recorded_at is missing"),
    ("T1,A,X7,fill,2026-11-02,5,,,", "bad_type", "recorded_at 2026-11-02 is not an ISO 8601 time"),
    (
        "T1,A,X8,fill,2016-12-31T23:59:60Z,5,,,",
        "bad_type",
        "recorded_at 2016-12-31T23:59:60Z is a leap second (second 60), not a time the warehouse can store",
    ),
    ("T1,A,X9,tip,2026-11-02T08:00:00Z,5,,,", "unknown_event", "unknown event 'tip'"),
    ("T1,A,X10,fill,2026-11-02T08:00:00Z,0,,,", "bad_amount", "amount 0 is not positive (fill: above 0)"),
    ("T1,A,X11,marker,2026-11-02T08:00:00Z,-5,,P1,", "bad_amount", "amount -5 is not positive (marker: above 0)"),
    ("T1,A,X12,drop,2026-11-02T08:00:00Z,-0.01,,,", "bad_amount", "amount -0.01 is negative (drop: 0 or more)"),
    ("T1,A,X13,credit,2026-11-02T08:00:00Z,1e3,,,", "bad_amount", "amount 1e3 is not a decimal"),
    ("T1,A,X14,credit,2026-11-02T08:00:00Z,10.005,,,", "bad_amount", "amount 10.005 has more than 2 decimal places"),
    (
        "T1,A,X15,credit,2026-11-02T08:00:00Z,12345678901234567,,,",
        "bad_amount",
        "amount 12345678901234567 is too large (at most 12 digits before the point)",
    ),
    (
        "T1,A,X16,fill,2026-11-02T08:00:00Z,100,100 x 1,,",
        "bad_denominations",
        "denominations token '100' is not DENOMxCOUNT (such as 25x40)",
    ),
    (
        "T1,A,X17,fill,2026-11-02T08:00:00Z,100,100x1 0x5,,",
        "bad_denominations",
        "denominations name a chip of 0",
    ),
    (
        "T1,A,X18,fill,2026-11-02T08:00:00Z,200,100x1 100x1,,",
        "bad_denominations",
        "denominations name 100.00 twice",
    ),
    (
        "T1,A,X19,fill,2026-11-02T08:00:00Z,100,25x3,,",
        "bad_denominations",
        "denominations add up to 75.00, not the amount 100.00",
    ),
]


def test_every_reason_a_row_fails_on_its_own(tmp_path):
    db = tmp_path / "banco.duckdb"
    path = write_csv(tmp_path / "bad.csv", [row for row, _, _ in ON_THEIR_OWN])
    [result] = ingest(db, [path])
    assert result.accepted == 0 and result.rows_read == len(ON_THEIR_OWN)
    expected = [(line, reason, detail) for line, (_, reason, detail) in enumerate(ON_THEIR_OWN, start=2)]
    assert quarantined(db) == expected
    # the row as read, and its key as far as it goes
    raw, table_id, event_id = query(
        db, "SELECT raw, table_id, event_id FROM quarantine.table_events WHERE line_no = 10"
    )[0]
    assert json.loads(raw)["event"] == "tip" and (table_id, event_id) == ("T1", "X9")


def test_the_first_failure_wins_and_event_names_are_not_case_sensitive(tmp_path):
    db = tmp_path / "banco.duckdb"
    rows = [
        "T1,A,Y1,TIP,not a time,-1,zz,,",  # bad_type comes before unknown_event, bad_amount, ...
        "T1,A,Y2,Fill,2026-11-02T08:00:00Z,-1,zz,,",  # bad_amount before bad_denominations
        "T1,A,Y3,FILL,2026-11-02T08:00:00Z,125,100X1  25x1 ,,",  # fine: `X`, spaces
        "T1,A,Y4,closer,2026-11-02T08:00:00Z,0,,,",  # an empty tray is a count
    ]
    ingest(db, [write_csv(tmp_path / "order.csv", rows)])
    assert [row[:2] for row in quarantined(db)] == [(2, "bad_type"), (3, "bad_amount")]
    stored = query(db, "SELECT event_id, event, denominations FROM core.table_events ORDER BY 1")
    assert stored == [("Y3", "fill", "100x1 25x1"), ("Y4", "closer", None)]


def test_duplicates_count_once_within_and_across_files_and_deliveries(tmp_path):
    db = tmp_path / "banco.duckdb"
    first = write_csv(tmp_path / "a" / "events.csv", [*SHIFT, SHIFT[1]])  # F1 twice, the same
    [one] = ingest(db, [first])
    assert (one.accepted, one.duplicates) == (7, 1)
    # the same bytes again: skipped, nothing read
    [again] = ingest(db, [first])
    assert again.status == "skipped"
    # a re-export of the same rows, in another order and format: every row a duplicate
    relog = tmp_path / "b" / "events.jsonl"
    relog.parent.mkdir()
    frame = pl.read_csv(first, infer_schema=False)
    relog.write_text("\n".join(json.dumps(row) for row in reversed(frame.to_dicts())) + "\n")
    [copy] = ingest(db, [relog])
    assert (copy.rows_read, copy.accepted, copy.duplicates, sum(copy.quarantined.values())) == (8, 0, 8, 0)
    # the same key with other content in a third file: a conflict naming where it is stored
    changed = write_csv(tmp_path / "c" / "events.csv", ["T1,A,F1,fill,2026-11-02T08:00:00Z,600,,,E2"])
    ingest(db, [changed])
    assert quarantined(db) == [
        (2, "conflicting_duplicate", f"already stored with other content from {first}"),
    ]
    within = write_csv(
        tmp_path / "d" / "events.csv",
        ["T2,A,F9,fill,2026-11-02T08:00:00Z,5,,,", "T2,A,F9,fill,2026-11-02T08:00:00Z,6,,,"],
    )
    ingest(db, [within])
    assert query(db, f"SELECT detail FROM quarantine.table_events WHERE source_file = '{within}'") == [
        ("logged again with other content (first at line 2)",)
    ]
    assert query(db, "SELECT count(*) FROM core.table_events") == [(8,)]
    assert query(db, ACCOUNTED) == [(0,)]
    # the same event id on another table is another event
    other = write_csv(tmp_path / "e" / "events.csv", ["T3,A,F1,fill,2026-11-02T08:00:00Z,500.50,,,E2"])
    [elsewhere] = ingest(db, [other])
    assert elsewhere.accepted == 1


def test_shift_conflicts_within_a_file_and_against_the_stored_ones(tmp_path):
    db = tmp_path / "banco.duckdb"
    rows = [
        "T1,A,O1,opener,2026-11-02T06:00:00Z,100,,,",
        "T1,A,O2,opener,2026-11-02T07:00:00Z,100,,,",  # a second opener
        "T1,B,K1,closer,2026-11-02T05:00:00Z,100,,,",  # B: closer logged first, before its opener
        "T1,B,O3,opener,2026-11-02T06:00:00Z,100,,,",
        "T1,C,K2,closer,2026-11-02T12:00:00Z,100,,,",  # C: the opener comes in the next file
        "T1,D,O4,opener,2026-11-02T06:00:00Z,100,,,",
        "T1,D,K3,closer,2026-11-02T06:00:00Z,100,,,",  # closed the instant it opened: fine
    ]
    first = write_csv(tmp_path / "a.csv", rows)
    [one] = ingest(db, [first])
    assert one.quarantined == {"shift_conflict": 2}
    assert quarantined(db) == [
        (3, "shift_conflict", f"a second opener of shift T1 / A (the first: {first} line 2)"),
        (
            4,
            "shift_conflict",
            "closer at 2026-11-02T05:00:00Z recorded before its shift's opener at 2026-11-02T06:00:00Z",
        ),
    ]
    later = [
        "T1,A,K4,closer,2026-11-02T14:00:00Z,100,,,",  # A's closer: fine
        "T1,A,K5,closer,2026-11-02T15:00:00Z,100,,,",  # a second one
        "T1,C,O5,opener,2026-11-02T13:00:00Z,100,,,",  # after C's stored closer
        "T1,A,O1,opener,2026-11-02T06:00:00Z,100,,,",  # a duplicate is counted, no conflict
    ]
    second = write_csv(tmp_path / "b.csv", later)
    [two] = ingest(db, [second])
    assert (two.accepted, two.duplicates, two.quarantined) == (1, 1, {"shift_conflict": 2})
    assert quarantined(db)[2:] == [
        (3, "shift_conflict", f"a second closer of shift T1 / A (the first: {second} line 2)"),
        (
            4,
            "shift_conflict",
            "opener at 2026-11-02T13:00:00Z recorded after its shift's closer at 2026-11-02T12:00:00Z",
        ),
    ]
    shifts = query(db, "SELECT shift_id, list(event ORDER BY event) FROM core.table_events GROUP BY 1 ORDER BY 1")
    assert shifts == [("A", ["closer", "opener"]), ("B", ["opener"]), ("C", ["closer"]), ("D", ["closer", "opener"])]


def _formats(tmp_path: Path, frame: pl.DataFrame) -> list[Path]:
    """The same rows as CSV, JSON Lines (plain, gzip, zstd) and typed Parquet, each in a folder of its own."""
    lines = "\n".join(json.dumps({k: v for k, v in row.items() if v is not None}) for row in frame.to_dicts()) + "\n"
    paths = []
    for name, data in (
        ("events.jsonl", lines.encode()),
        ("events.jsonl.gz", gzip.compress(lines.encode())),
        ("events.jsonl.zst", zstandard.ZstdCompressor().compress(lines.encode())),
    ):
        path = tmp_path / name.replace(".", "_") / name
        path.parent.mkdir()
        path.write_bytes(data)
        paths.append(path)
    typed = frame.with_columns(
        pl.col("recorded_at").str.to_datetime(time_zone="UTC", time_unit="us", format=None, strict=True),
        pl.col("amount").cast(pl.Decimal(12, 2)),
    )
    parquet = tmp_path / "parquet" / "events.parquet"
    parquet.parent.mkdir()
    typed.write_parquet(parquet)
    return [write_csv(tmp_path / "csv" / "events.csv", SHIFT), *paths, parquet]


def test_every_format_gives_the_same_rows(tmp_path):
    frame = pl.read_csv(write_csv(tmp_path / "source.csv", SHIFT), infer_schema=False).with_columns(
        pl.col("recorded_at").str.replace(" ", "T").str.replace(r"T(\d\d:\d\d)$", "T${1}:00Z")
    )
    columns = "table_id, shift_id, event_id, event, recorded_at, amount, denominations, player_id, employee_id"
    seen = []
    for path in _formats(tmp_path, frame):
        assert kind_of(path) == "events", path
        db = tmp_path / f"db-{path.name}" / "banco.duckdb"
        [result] = ingest(db, [path])
        assert (result.status, result.accepted) == ("ok", 7), (path, result.error, quarantined(db))
        seen.append(query(db, f"SELECT {columns} FROM core.table_events ORDER BY event_id"))
    assert all(rows == seen[0] for rows in seen)


def test_a_jsonl_file_is_events_if_any_record_names_an_event(tmp_path):
    path = tmp_path / "late.jsonl"
    path.write_text('{"table_id": "T1", "shift_id": "A", "event_id": "E0"}\n{"event": "fill"}\n')
    assert kind_of(path) == "events"
    bets = tmp_path / "bets.csv"
    bets.write_text("table_id,shoe_id,round_no,seat,bet,amount,event\n")
    assert kind_of(bets) == "bets"  # `bet` tells first


def test_a_run_takes_rounds_then_bets_then_events(tmp_path):
    landing = tmp_path / "landing"
    write_csv(landing / "0_events.csv", SHIFT)
    (landing / "1_rounds.csv").write_text(
        "table_id,shoe_id,round_no,started_at,outcome\nT1,S1,1,2026-11-02T07:00:00Z,B\n"
    )
    (landing / "2_bets.csv").write_text("table_id,shoe_id,round_no,seat,bet,amount\nT1,S1,1,1,banker,10\n")
    results = ingest(tmp_path / "banco.duckdb", [landing])
    assert [result.kind for result in results] == ["rounds", "bets", "events"]
    assert all(result.status == "ok" and not result.quarantined for result in results)


def test_a_shard_writer_takes_the_events_of_its_tables(tmp_path):
    sharding = Sharding(2)
    tables = {sharding.of(f"T{n}"): f"T{n}" for n in range(1, 20)}
    mine, other = tables["s0"], tables["s1"]
    landing = tmp_path / "landing"
    ours = write_csv(landing / "s0.csv", [row.replace("T1,", f"{mine},", 1) for row in SHIFT])
    theirs = write_csv(landing / "s1.csv", [row.replace("T1,", f"{other},", 1) for row in SHIFT])
    grouped = by_shard([ours, theirs], sharding)
    assert grouped["s0"] == [ours] and grouped["s1"] == [theirs]
    db = tmp_path / "banco.duckdb"
    for shard, paths in (("s0", [ours]), ("s1", [theirs])):
        [result] = ingest(db, paths, shard=shard)
        assert (result.kind, result.status, result.accepted) == ("events", "ok", 7)
    with writer(db):  # the serving writer publishes what the shards committed
        pass
    assert query(db, "SELECT table_id, count(*) FROM core.table_events GROUP BY 1 ORDER BY 1") == sorted(
        [(mine, 7), (other, 7)]
    )
    assert ingest(db, [ours], shard="s0")[0].status == "skipped"


def test_a_warehouse_made_before_the_events_tables_takes_them_on(tmp_path):
    """A warehouse whose catalog has no events tables (as one made before them): its next writer
    makes them, its rows stay, and events go in beside them."""
    db = tmp_path / "banco.duckdb"
    rounds = tmp_path / "rounds.csv"
    rounds.write_text("table_id,shoe_id,round_no,started_at,outcome\nT1,S1,1,2026-11-02T07:00:00Z,B\n")
    ingest(db, [rounds])
    # as the release before left it: no events tables in the catalog, no views of them in the file
    tables = iceberg.Tables.open(db)
    for name in (schema.CORE_TABLE_EVENTS, schema.QUARANTINE_TABLE_EVENTS):
        tables.catalog.drop_table(name)
    assert not tables.catalog.table_exists(schema.CORE_TABLE_EVENTS)
    import duckdb

    con = duckdb.connect(str(db))
    for name in (schema.CORE_TABLE_EVENTS, schema.QUARANTINE_TABLE_EVENTS):
        con.execute(f"DROP VIEW {name}")
    con.close()
    [result] = ingest(db, [write_csv(tmp_path / "events.csv", [*SHIFT, "T1,A,O9,opener,2026-11-02T07:00:00Z,1,,,"])])
    assert (result.status, result.accepted, result.quarantined) == ("ok", 7, {"shift_conflict": 1})
    assert query(db, "SELECT count(*) FROM core.rounds") == [(1,)]
    assert query(db, "SELECT count(*) FROM core.table_events") == [(7,)]
    assert query(db, ACCOUNTED) == [(0,)]
    snapshots = dict(query(db, "SELECT table_name, rows FROM meta.snapshots"))
    assert snapshots[schema.CORE_TABLE_EVENTS] == 7 and snapshots[schema.QUARANTINE_TABLE_EVENTS] == 1


@pytest.mark.parametrize("shuffled", [False, True])
def test_every_row_is_accounted_across_batches(tmp_path, monkeypatch, shuffled):
    """Batches smaller than a file: a shift's opener in one batch, its second opener in the next."""
    from models.logs import read as reading

    monkeypatch.setattr(reading, "BATCH_ROWS", 3)
    rows = [*SHIFT, "T1,A,O2,opener,2026-11-02T07:00:00Z,5,,,", SHIFT[0], "T1,A,F1,fill,2026-11-02T08:00:00Z,1,,,"]
    if shuffled:
        rows = rows[::-1]
    db = tmp_path / "banco.duckdb"
    [result] = ingest(db, [write_csv(tmp_path / "events.csv", rows)])
    assert result.rows_read == 10
    assert result.accepted + result.duplicates + sum(result.quarantined.values()) == 10
    assert result.duplicates == 1 and result.quarantined["conflicting_duplicate"] == 1
    assert result.quarantined["shift_conflict"] == 1
    assert query(db, "SELECT count(*) FROM core.table_events") == [(result.accepted,)]


def test_the_smallest_chip_of_a_breakdown():
    from models.logs.denominations import smallest

    frame = pl.DataFrame({"d": ["1000x5 100x20 25x40", "0.50x8  5X1", None, "zz"]})
    got = frame.select(smallest(pl.col("d"))).to_series().to_list()
    assert got == [Decimal("25.00"), Decimal("0.50"), None, None]
