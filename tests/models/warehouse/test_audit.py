"""The audits the blocking checks run: sound on what ingest stored, and failing on a tampered warehouse."""

import datetime as dt
from pathlib import Path

import duckdb
import polars as pl
import pytest

from models.gaming_day import GamingDay
from models.metrics.bands import banker_share_band
from models.metrics.days import coups_of_days, days_touched_since, days_with_coups
from models.warehouse import audit, files, iceberg
from models.warehouse.iceberg import Tables
from models.warehouse.ingest import ingest
from models.warehouse.store import writer

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"
EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


def ingested(tmp_path) -> Path:
    db = tmp_path / "banco.duckdb"
    ingest(db, [SAMPLES])
    return db


@pytest.mark.slow
def test_a_sound_warehouse_passes_every_audit(tmp_path):
    con = duckdb.connect(str(ingested(tmp_path)))
    assert audit.unaccounted_files(con).height == 0
    assert audit.overdrawn_shoes(con, EPOCH).height == 0
    violations, rows = audit.tableau_violations(con, EPOCH)
    expected = con.sql("SELECT count(*) FROM quarantine.rounds WHERE reason = 'tableau_violation'").fetchall()
    read = con.sql("SELECT sum(rows_read) FROM meta.ingest_log WHERE kind = 'rounds' AND status = 'ok'").fetchall()
    assert violations == expected[0][0] > 0 and rows == read[0][0]
    assert audit.tableau_violations(con, dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)) == (0, 0)


def tamper(db: Path, change) -> None:
    """Rewrite in place every data file of core.rounds at the warehouse's commit through `change`
    (data files are never rewritten otherwise: this is the tampering the audits must catch)."""
    tables = Tables.open(db)
    listed = tables.files("core.rounds", tables.commit_point()["core.rounds"])
    assert listed
    for location, _ in listed:
        path = iceberg.local_path(location)
        change(pl.read_parquet(path)).write_parquet(path)


@pytest.mark.slow
def test_a_row_lost_from_a_table_is_found(tmp_path):
    db = ingested(tmp_path)
    con = duckdb.connect(str(db))
    path, line = con.sql("SELECT source_file, line_no FROM core.rounds LIMIT 1").fetchall()[0]
    con.close()
    lost = (pl.col("source_file") == path) & (pl.col("line_no") == line)
    tamper(db, lambda frame: frame.filter(~lost))
    bad = audit.unaccounted_files(duckdb.connect(str(db)))
    assert bad["path"].to_list() == [path]
    assert bad["stored_accepted"][0] == bad["rows_accepted"][0] - 1
    con = duckdb.connect(str(db))
    assert audit.unaccounted_files(con, EPOCH).equals(bad)  # the file is of the ingests since then
    assert audit.unaccounted_files(con, dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).height == 0


@pytest.mark.slow
def test_a_stored_coup_that_overdraws_its_shoe_is_found(tmp_path):
    db = ingested(tmp_path)
    con = duckdb.connect(str(db))
    # a one-deck shoe holds one 9 of hearts: store a second coup repeating the first coup's cards
    shoe = con.sql(
        "SELECT table_id, shoe_id FROM core.rounds WHERE has_cards AND player_cards LIKE '%H%' LIMIT 1"
    ).fetchall()[0]
    first = con.sql(
        "SELECT * REPLACE (round_no + 1000 AS round_no) FROM core.rounds "
        "WHERE table_id = ? AND shoe_id = ? ORDER BY round_no LIMIT 1",
        params=list(shoe),
    ).pl()
    con.close()
    in_shoe = (pl.col("table_id") == shoe[0]) & (pl.col("shoe_id") == shoe[1])
    tamper(db, lambda frame: frame.with_columns(decks=pl.when(in_shoe).then(1).otherwise("decks").cast(pl.Int8)))
    with writer(db) as w:  # the coup committed as a writer commits: the table, then the log
        location = w.tables.location("core.rounds", "tampered")
        files.write(w.tables.io, location, "core.rounds", first.with_columns(decks=pl.lit(1, pl.Int8)))
        w.tables.add("core.rounds", [location], "tampered")
        w.commit("tampered")
    bad = audit.overdrawn_shoes(duckdb.connect(str(db)), EPOCH)
    assert bad.height >= 1 and set(zip(bad["table_id"], bad["shoe_id"], strict=True)) == {shoe}


@pytest.mark.slow
def test_gaming_days_and_bands_from_the_stored_coups(tmp_path):
    db = ingested(tmp_path)
    con = duckdb.connect(str(db))
    day = GamingDay()
    days = days_with_coups(con, day)
    assert days and days == days_touched_since(con, EPOCH, day)
    assert days_touched_since(con, dt.datetime.now(dt.UTC) + dt.timedelta(hours=1), day) == []
    coups = coups_of_days(con, days, day)
    assert coups.height == con.sql("SELECT count(*) FROM core.rounds").fetchall()[0][0]
    bands = banker_share_band(coups.lazy(), ["game"])
    assert bands["coups"].sum() == coups.height
    assert (bands["ties"] == bands["coups"] - bands["decided"]).all()
