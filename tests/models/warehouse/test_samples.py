"""The hand-made logs of `data/samples/` (see its README) give exactly what they were made to give:
every bad row quarantined on its line for its reason, exact duplicates counted, good rows accepted,
unreadable files failed, and a second ingest changing nothing."""

import datetime as dt
from collections import Counter
from pathlib import Path

import duckdb
import polars as pl
import pytest

from models.warehouse import iceberg, views
from models.warehouse.columns import frame_schema
from models.warehouse.iceberg import Tables
from models.warehouse.ingest import ingest
from models.warehouse.store import read, write

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"

#: file -> (kind, rows read, accepted, duplicates, {reason: line numbers of the quarantined rows})
EXPECTED = {
    "01_rounds_suited.csv": (
        "rounds", 36, 19, 1,
        {
            "missing_field": [18, 19],
            "bad_type": [20, 21, 22],
            "bad_card": [23, 24],
            "bad_hand_size": [25, 26],
            "tableau_violation": [27, 28, 29],
            "outcome_mismatch": [30],
            "conflicting_duplicate": [32],
            "shoe_overdrawn": [34, 36],
        },
    ),
    "02_rounds_rank_only.csv.gz": (
        "rounds", 20, 13, 1,
        {
            "bad_card": [12, 13],
            "outcome_mismatch": [14],
            "tableau_violation": [15],
            "missing_field": [16],
            "shoe_overdrawn": [19],
        },
    ),
    "03_rounds_value_only.jsonl": (
        "rounds", 23, 14, 1,
        {
            "shoe_overdrawn": [5, 8],
            "bad_type": [16, 19, 20],
            "missing_field": [17, 18],
            "conflicting_duplicate": [22],
        },
    ),
    "04_rounds_chemin_super6.jsonl.zst": (
        "rounds", 14, 10, 1,
        {"tableau_violation": [6, 7], "outcome_mismatch": [12]},
    ),
    "05_rounds_relogged.parquet": (
        "rounds", 14, 9, 1,
        {"conflicting_duplicate": [2], "missing_field": [11], "bad_type": [12, 13]},
    ),
    "06_bets_main.csv": (
        "bets", 41, 25, 1,
        {
            "payout_mismatch": [27, 28],
            "orphan_bet": [29, 30, 31],
            "bad_amount": [32, 33, 34],
            "unknown_bet": [35, 36],
            "missing_field": [37, 38],
            "bad_type": [39, 40],
            "conflicting_duplicate": [42],
        },
    ),
    "07_bets_other.parquet": (
        "bets", 29, 20, 1,
        {
            "payout_mismatch": [6, 22],
            "orphan_bet": [15, 24, 25],
            "unknown_bet": [26],
            "bad_amount": [27],
            "bad_type": [28],
        },
    ),
    "08_bets_scoreboard.jsonl": ("bets", 4, 3, 0, {"bad_type": [3]}),
    "09_table_events.csv": (
        "events", 19, 10, 1,
        {
            "missing_field": [11],
            "bad_type": [12],
            "unknown_event": [13],
            "bad_amount": [14],
            "bad_denominations": [15],
            "conflicting_duplicate": [17],
            "shift_conflict": [18, 20],
        },
    ),
}  # fmt: skip
#: unreadable file -> the start of its error
FAILED = {
    "broken.parquet": "cannot read broken.parquet as parquet",
    "truncated.csv.gz": "cannot read truncated.csv.gz as csv",
}
ALL_REASONS = {
    "missing_field", "bad_type", "bad_card", "bad_hand_size", "tableau_violation", "outcome_mismatch",
    "conflicting_duplicate", "shoe_overdrawn", "orphan_bet", "bad_amount", "unknown_bet", "payout_mismatch",
    "unknown_event", "bad_denominations", "shift_conflict",
}  # fmt: skip
TABLES = (
    "core.rounds", "core.bets", "core.shoes", "core.table_events",
    "quarantine.rounds", "quarantine.bets", "quarantine.table_events",
)  # fmt: skip


def _counts(db: Path) -> dict[str, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in TABLES}


def _quarantined_lines(db: Path) -> dict[str, dict[str, list[int]]]:
    found: dict[str, dict[str, list[int]]] = {}
    with duckdb.connect(str(db), read_only=True) as con:
        for table in ("quarantine.rounds", "quarantine.bets", "quarantine.table_events"):
            for source, reason, line in con.execute(
                f"SELECT source_file, reason, line_no FROM {table} ORDER BY ALL"
            ).fetchall():
                found.setdefault(Path(source).name, {}).setdefault(reason, []).append(line)
    return found


def test_samples_cover_every_format_and_reason():
    names = {path.name for path in SAMPLES.iterdir()}
    assert set(EXPECTED) | set(FAILED) <= names
    for suffix in (".csv", ".csv.gz", ".jsonl", ".jsonl.zst", ".parquet"):
        assert any(name.endswith(suffix) for name in EXPECTED), suffix
    assert {reason for *_, lines in EXPECTED.values() for reason in lines} == ALL_REASONS


def test_samples_ingest_to_exact_counts(tmp_path):
    db = tmp_path / "banco.duckdb"
    results = {result.path.name: result for result in ingest(db, [SAMPLES])}
    assert set(results) == set(EXPECTED) | set(FAILED)

    for name, (kind, rows_read, accepted, duplicates, lines) in EXPECTED.items():
        result = results[name]
        assert result.status == "ok", (name, result.error)
        assert result.kind == kind, name
        assert result.rows_read == rows_read, name
        assert result.accepted == accepted, name
        assert result.duplicates == duplicates, name
        assert result.quarantined == Counter({reason: len(at) for reason, at in lines.items()}), name
        assert result.rows_read == result.accepted + sum(result.quarantined.values()) + result.duplicates, name
    for name, error in FAILED.items():
        assert results[name].status == "failed", name
        assert results[name].error.startswith(error), results[name].error
        assert results[name].rows_read == 0, name

    assert _quarantined_lines(db) == {name: lines for name, (*_, lines) in EXPECTED.items()}
    with duckdb.connect(str(db), read_only=True) as con:
        log = {
            Path(path).name: row
            for path, *row in con.execute(
                "SELECT path, status, rows_read, rows_accepted, rows_quarantined, rows_duplicate FROM meta.ingest_log"
            ).fetchall()
        }
        shoes = dict(
            con.execute(
                "SELECT table_id || '/' || shoe_id, reconciled_by || ' ' || reconciliation FROM core.shoes"
            ).fetchall()
        )
        scoreboard = con.execute("SELECT count(*) FROM core.rounds WHERE NOT has_cards").fetchone()[0]
    for name, (_, rows_read, accepted, duplicates, lines) in EXPECTED.items():
        quarantined = sum(len(at) for at in lines.values())
        assert log[name] == ["ok", rows_read, accepted, quarantined, duplicates], name
    assert {name for name, row in log.items() if row[0] == "failed"} == set(FAILED)
    assert _counts(db) == {
        "core.rounds": 65,
        "core.bets": 48,
        "core.shoes": 9,
        "core.table_events": 10,
        "quarantine.rounds": 37,
        "quarantine.bets": 24,
        "quarantine.table_events": 8,
    }
    assert shoes == {
        "BAC-01/S-0101": "card reconciled",
        "BAC-01/S-0102": "card overdrawn",
        "BAC-02/S-0201": "rank reconciled",
        "BAC-02/S-0202": "rank overdrawn",
        "BAC-03/S-0301": "value overdrawn",
        "BAC-03/S-0302": "none no cards",
        "BAC-04/S-0601": "card reconciled",
        "CDF-01/S-0401": "card reconciled",
        "SX6-01/S-0501": "card reconciled",
    }
    assert scoreboard == 14  # outcome-only rows: BAC-03 / S-0302 and BAC-04 / S-0601, 7 each


@pytest.mark.slow
def test_a_second_ingest_changes_nothing(tmp_path):
    db = tmp_path / "banco.duckdb"
    ingest(db, [SAMPLES])
    before = _counts(db)
    again = {result.path.name: result for result in ingest(db, [SAMPLES])}
    # The readable files were ingested and are skipped; the unreadable ones never were, so they are
    # tried (and logged as failed) again.
    assert {name: result.status for name, result in again.items()} == {
        **dict.fromkeys(EXPECTED, "skipped"),
        **dict.fromkeys(FAILED, "failed"),
    }
    assert all(result.rows_read == 0 and not result.quarantined for result in again.values())
    assert _counts(db) == before
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM meta.ingest_log WHERE status = 'ok'").fetchone()[0] == len(EXPECTED)


def test_a_relog_with_nanosecond_timestamps_is_an_exact_duplicate(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.csv").write_text(
        "table_id,shoe_id,round_no,started_at,player_cards,banker_cards\n"
        "BAC-01,S-0101,1,2026-11-28T21:01:00+01:00,9H TD,7C KS\n"
    )
    pl.DataFrame(
        {
            "table_id": ["BAC-01"],
            "shoe_id": ["S-0101"],
            "round_no": [1],
            "started_at": [dt.datetime(2026, 11, 28, 20, 1, tzinfo=dt.UTC)],
            "player_cards": ["9H TD"],
            "banker_cards": ["7C KS"],
        }
    ).with_columns(pl.col("started_at").cast(pl.Datetime("ns", "UTC"))).write_parquet(logs / "b.parquet")
    results = {result.path.name: result for result in ingest(tmp_path / "banco.duckdb", [logs])}
    assert results["a.csv"].accepted == 1
    assert results["b.parquet"].duplicates == 1
    assert not results["b.parquet"].quarantined


def test_duplicates_are_told_by_content_beside_files_an_earlier_release_stored_its_hash_in(tmp_path):
    """An earlier release stored a `content_hash` column (hashed its own way): a re-log of stored
    rows is still an exact duplicate and a changed row still a conflict, because stored rows are
    hashed when compared, and the table reads its files and the new ones alike, without it."""
    logs = tmp_path / "logs"
    logs.mkdir()
    header = "table_id,shoe_id,round_no,started_at,player_cards,banker_cards\n"
    (logs / "a.csv").write_text(header + "T1,S1,1,2026-11-28T21:01:00+01:00,9H TD,7C KS\n")
    db = tmp_path / "banco.duckdb"
    ingest(db, [logs / "a.csv"])
    tables = Tables.open(db)
    for location, _ in tables.files("core.rounds", tables.commit_point()["core.rounds"]):  # as an older release
        path = iceberg.local_path(location)  # stored it (now a column the table's schema does not name)
        pl.read_parquet(path).with_columns(content_hash=pl.lit(12345, pl.UInt64)).write_parquet(path)
    (logs / "b.csv").write_text(
        header
        + "T1,S1,1,2026-11-28T20:01:00Z,9h 10d,7C KS\n"
        + "T1,S1,1,2026-11-28T20:01:00Z,9H TD,6C KS\n"
        + "T1,S1,2,2026-11-28T20:02:00Z,9H TD,7C KS\n"
    )  # the same coup in other notation, a row that changed, then the next coup
    (result,) = ingest(db, [logs / "b.csv"])
    assert result.duplicates == 1 and dict(result.quarantined) == {"conflicting_duplicate": 1}
    assert result.accepted == 1
    viewed = read(db).sql("SELECT * FROM core.rounds ORDER BY round_no").pl()
    assert viewed.columns == list(frame_schema("core.rounds")) and viewed["round_no"].to_list() == [1, 2]
    with write(db) as con:
        assert views.scan(con, "core.rounds").collect().schema == frame_schema("core.rounds")
