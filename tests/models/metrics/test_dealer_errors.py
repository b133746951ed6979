"""A dealer's errors counted from a real warehouse's quarantine: a simulation with misdeals (Parquet),
and hand-written CSV and JSON Lines logs with each error, rows no dealer or time can be read from,
and lines that are no row at all."""

import datetime as dt

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.gaming_day import GamingDay, gaming_day
from models.metrics.dealer_errors import COUNTS, SCHEMA, dealer_errors
from models.metrics.pace import dealer_pace
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import current

DAY = GamingDay()
NOV_1 = dt.date(2026, 11, 1)
ORDER = ["gaming_day", "dealer_id", "table_id"]  # as dealer_errors sorts its rows

#: Table HT1, shoe H1. Round 1 goes in (its bets are settled against it); the others are quarantined.
ROUNDS_CSV = """\
table_id,shoe_id,round_no,started_at,game,dealer_id,player_cards,banker_cards,outcome
HT1,H1,1,2026-11-01T10:00:00Z,punto_banco,DX,9H KS,2C 3D,P
HT1,H1,2,2026-11-01T10:01:00Z,punto_banco,DX,2H 3S,KD QC,
HT1,H1,3,2026-11-01T10:02:00Z,punto_banco,DX,9C KH,2D 3H,B
HT1,H1,4,2026-11-01T10:03:00Z,punto_banco,DX,1X KS,2C 3D,
HT1,H1,5,2026-11-01T10:04:00Z,punto_banco,,2S 3C,KH QD,
HT1,H1,6,2026-11-01,punto_banco,DX,2D 3D,KS QS,
HT1,H1,7,2026-11-01 10:07Z,punto_banco, DX ,2C 3H,QH KC,
HT1,H1,8,2026-11-02T05:30:00+00:00,punto_banco,DX,4H 2S,JC JD,
HT1,H1,9,2026-11-01T10:09:00Z,punto_banco,DX,9D KD,2H 3C,P,one field too many
"""
#: a tableau violation at 11:30 Paris time (10:30 UTC), a JSON array, a line nested past reading
ROUNDS_JSONL = (
    '{"table_id": "HT1", "shoe_id": "H1", "round_no": 20, "started_at": "2026-11-01T11:30:00+01:00",'
    ' "dealer_id": "DY", "player_cards": "3H 2D", "banker_cards": "KC QH"}\n'
    "[1, 2]\n" + "[" * 3000 + "]" * 3000 + "\n"
)
#: a bet paid right, a payout mismatch on round 1, and a bet on the quarantined round 2 (an orphan)
BETS_JSONL = """\
{"table_id": "HT1", "shoe_id": "H1", "round_no": 1, "seat": "1", "bet": "player", "amount": "10", "payout": "10"}
{"table_id": "HT1", "shoe_id": "H1", "round_no": 1, "seat": "2", "bet": "banker", "amount": "10", "payout": "9.5"}
{"table_id": "HT1", "shoe_id": "H1", "round_no": 2, "seat": "1", "bet": "player", "amount": "10", "payout": "10"}
"""

#: a tableau violation in Parquet: its time a timestamp without a zone (UTC), its dealer a number
PARQUET_ROUND = pl.DataFrame(
    {
        "table_id": ["HT2"], "shoe_id": ["P1"], "round_no": [1], "started_at": [dt.datetime(2026, 11, 2, 5, 59, 59)],
        "dealer_id": [7], "player_cards": ["2H 3S"], "banker_cards": ["KD QC"],
    }
)  # fmt: skip


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("dealer-errors")
    landing = root / "landing"
    sim = Simulation(shoes=12, tables=3, shoes_per_day=2, start=NOV_1, seed=19)
    write_simulation(sim, landing, misdeal_rate=0.04)
    (landing / "rounds_hand.csv").write_text(ROUNDS_CSV)
    (landing / "rounds_hand.jsonl").write_text(ROUNDS_JSONL)
    (landing / "bets_hand.jsonl").write_text(BETS_JSONL)
    PARQUET_ROUND.write_parquet(landing / "rounds_hand.parquet")
    db = root / "banco.duckdb"
    ingest(db, [landing])
    return db


def errors(db, day_bounds=None, tables=None) -> pl.DataFrame:
    with current(db) as con:
        return dealer_errors(con, day_bounds, tables, DAY)


def test_the_hand_written_errors_are_counted_on_their_dealer_table_and_day(warehouse):
    got = errors(warehouse, tables=["HT1"])
    # DX: the tableau violations of rounds 2, 7 and 8 (05:30 the next morning is still Nov 1's gaming
    # day), the outcome mismatch of round 3, the bad card of round 4, the payout mismatch on round 1.
    # Not counted: round 5 (no dealer), round 6 (no time), the line of too many fields, the array,
    # the nested line, and the orphan bet (its round is no accepted coup).
    expected = pl.DataFrame(
        [("DX", "HT1", NOV_1, 6, 3, 1, 1), ("DY", "HT1", NOV_1, 1, 1, 0, 0)], schema=SCHEMA, orient="row"
    )
    assert_frame_equal(got, expected)
    parquet = pl.DataFrame([("7", "HT2", NOV_1, 1, 1, 0, 0)], schema=SCHEMA, orient="row")
    assert_frame_equal(errors(warehouse, tables=["HT2"]), parquet)
    with current(warehouse) as con:  # the rows passed over are there, and are what the comment says
        reasons = con.sql(
            "SELECT reason, count(*) FROM (SELECT reason, table_id FROM quarantine.rounds UNION ALL "
            "SELECT reason, table_id FROM quarantine.bets) WHERE table_id = 'HT1' OR table_id IS NULL GROUP BY ALL"
        ).fetchall()
    assert dict(reasons) == {"tableau_violation": 5, "outcome_mismatch": 1, "bad_card": 1, "bad_type": 4} | {
        "payout_mismatch": 1,
        "orphan_bet": 1,
    }


def direct(con, tables: list[str]) -> pl.DataFrame:
    """The counts read straight from the quarantine with DuckDB's own JSON and time parsing."""
    con.execute("SET TimeZone = 'UTC'")
    listed = ", ".join(f"'{table}'" for table in tables)
    rows = (
        "SELECT json_extract_string(raw, '$.dealer_id') AS dealer_id, table_id, reason, "
        "try_cast(json_extract_string(raw, '$.started_at') AS TIMESTAMPTZ) AS played "
        f"FROM quarantine.rounds WHERE table_id IN ({listed}) "
        "UNION ALL SELECT r.dealer_id, q.table_id, q.reason, r.started_at FROM quarantine.bets q "
        f"JOIN core.rounds r USING (table_id, shoe_id, round_no) WHERE q.table_id IN ({listed})"
    )
    return con.sql(
        f"WITH rows AS ({rows}) SELECT dealer_id, table_id, (played - INTERVAL 6 HOUR)::DATE AS gaming_day, "
        "count(*) AS quarantined, count(*) FILTER (reason = 'tableau_violation') AS tableau_violations, "
        "count(*) FILTER (reason = 'outcome_mismatch') AS outcome_mismatches, "
        "count(*) FILTER (reason = 'payout_mismatch') AS payout_mismatches "
        "FROM rows WHERE dealer_id IS NOT NULL AND played IS NOT NULL GROUP BY ALL"
    ).pl()


def test_the_simulated_misdeals_agree_with_the_quarantine_read_directly(warehouse):
    with current(warehouse) as con:
        tables = [t for (t,) in con.sql("SELECT DISTINCT table_id FROM core.rounds WHERE table_id <> 'HT1'").fetchall()]
        expected = direct(con, tables).cast(SCHEMA).sort(ORDER)
        got = dealer_errors(con, None, tables, DAY)
    assert len(tables) == 3
    assert got["tableau_violations"].sum() > 3 and got["outcome_mismatches"].sum() > 3
    assert got["quarantined"].sum() > got.select(COUNTS[1:]).sum_horizontal().sum()  # bad cards, overdrawn shoes
    assert_frame_equal(got, expected)


def test_the_days_and_tables_asked_for_only(warehouse):
    every = errors(warehouse)
    days = every["gaming_day"].unique().sort().to_list()
    assert len(days) >= 2
    for day in days:
        alone = errors(warehouse, [DAY.bounds(day, day)])
        assert_frame_equal(alone, every.filter(gaming_day=day))
    both = errors(warehouse, [DAY.bounds(days[0], days[0]), DAY.bounds(days[-1], days[-1])])
    assert_frame_equal(both, every.filter(pl.col("gaming_day").is_in([days[0], days[-1]])))
    assert_frame_equal(errors(warehouse, tables=["HT1"]), every.filter(table_id="HT1"))
    assert errors(warehouse, tables=[]).height == 0
    assert errors(warehouse, day_bounds=[]).height == 0


def test_an_empty_warehouse_has_no_errors(tmp_path):
    db = tmp_path / "banco.duckdb"
    ingest(db, [])
    got = errors(db)
    assert got.height == 0 and got.schema == pl.Schema(SCHEMA)


def test_the_pace_of_the_warehouses_coups_carries_the_errors_of_each_dealer_who_dealt(warehouse):
    with current(warehouse) as con:
        coups = con.sql("SELECT table_id, shoe_id, round_no, started_at, game, dealer_id FROM core.rounds").pl()
        errs = dealer_errors(con, None, None, DAY)
    pace = dealer_pace(coups.lazy().with_columns(gaming_day(pl.col("started_at"), DAY)), errs)
    dealt = errs.join(pace.select(*ORDER).unique(), on=ORDER, how="semi")
    assert dealt.height < errs.height  # D999, who only logged conflicting duplicates, dealt nothing
    assert pace.select(COUNTS).sum().rows() == dealt.select(COUNTS).sum().rows()
    hand = pace.filter(dealer_id="DX").row(0, named=True)
    assert (hand["coups"], hand["minutes"], hand["quarantined"], hand["payout_mismatches"]) == (1, 0.0, 6, 1)
