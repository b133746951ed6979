"""The count room through the real pipeline: a simulated month with labelled count faults and misdeals of
every kind on the same shifts, ingested and built, finds every count fault at its table-shift with its
planted amount unexplained, explains the shifts whose only fault is a quarantined coup, and reconciles
every other shift."""

from decimal import Decimal

import polars as pl
import pytest

from models.game.games import Game
from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import FAULTS_FOLDER, write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import read

SIM = Simulation(shoes=4 * 3 * 10, tables=4, shoes_per_day=3, games=tuple(Game)[:4], seed=7)
SHIFT = ["table_id", "shift_id"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, pl.DataFrame]:
    root = tmp_path_factory.mktemp("count_faults")
    # misdeals of every kind (the chips moved as dealt; the logs of those coups are quarantined)
    write_simulation(SIM, root / "landing", count_fault_rate=0.25, misdeal_rate=0.03)
    db = root / "warehouse" / "banco.duckdb"
    ingest(db, [root / "landing"])
    build(db)
    con = read(db)
    try:
        shifts = con.sql("SELECT * FROM marts.table_shift").pl()
        events = con.sql("SELECT count(*) FROM core.table_events").fetchall()[0][0]
        holes = con.sql(
            "SELECT DISTINCT table_id, gaming_day, quarantined_coups, quarantined_handle FROM marts.table_day"
        ).pl()
        quarantined = con.sql(
            "SELECT count(*) FROM quarantine.rounds WHERE reason <> 'conflicting_duplicate'"
        ).fetchall()[0][0]
    finally:
        con.close()
    labels = pl.read_parquet(sorted((root / "landing" / FAULTS_FOLDER).glob("count_faults_*")))
    misdeals = pl.read_parquet(sorted((root / "landing" / FAULTS_FOLDER).glob("faults_*")))
    return {
        "shifts": shifts, "labels": labels, "events": events, "misdeals": misdeals, "holes": holes,
        "quarantined": quarantined,
    }  # fmt: skip


@pytest.mark.slow
def test_every_injected_fault_is_found_at_its_table_shift(built):
    shifts, labels = built["shifts"], built["labels"]
    assert built["events"] > 0 and labels.height >= 4
    assert set(labels["kind"]) == {"short_fill", "missing_credit_slip", "walked_chips", "overpaid_wager"}
    flagged = shifts.filter(~pl.col("reconciled")).select(*SHIFT, "unexplained", "status", "quarantined_coups")
    found = labels.join(flagged, on=SHIFT, how="left")
    assert found["status"].to_list() == ["unreconciled"] * labels.height
    # exactly the planted amount is left unexplained, whatever quarantined coups the shift also holds
    assert (found["unexplained"] - found["amount"]).abs().max() < Decimal("0.01")
    assert found.filter(pl.col("quarantined_coups") > 0).height >= 2
    assert flagged.height == labels.height  # nothing flagged that was not injected


def test_a_shift_whose_only_fault_is_a_quarantined_coup_is_explained(built):
    shifts, misdeals = built["shifts"], built["misdeals"]
    assert {"wrong_draw", "wrong_outcome", "malformed_card", "orphan_bet"} <= set(misdeals["kind"])
    misdealt = shifts.join(built["labels"], on=SHIFT, how="anti").filter(pl.col("quarantined_coups") > 0)
    assert misdealt.height >= 10 and set(misdealt["status"]) == {"reconciled", "explained"}
    explained = misdealt.filter(status="explained")
    assert explained.height >= 3
    # the count differs from the accepted wagers by what the quarantined coups' wagers took, to the cent
    assert (explained["difference"] - explained["quarantined_win"]).abs().max() < Decimal("0.01")
    assert (explained["difference"].abs() > explained["tolerance"]).all()
    assert explained["attribution"].str.contains("quarantined coup").all()


def test_every_shift_without_a_count_fault_agrees_with_its_logs_to_the_cent(built):
    clean = built["shifts"].join(built["labels"], on=SHIFT, how="anti")
    assert clean.height >= 20
    assert set(clean["status"]) <= {"reconciled", "explained"}
    # a chemin de fer bank's cagnotte can be a fraction of a cent; the count holds cents
    assert clean["unexplained"].abs().max() < Decimal("0.01")
    untouched = clean.filter(quarantined_coups=0, wagers_not_dealt=0)
    assert set(untouched["status"]) == {"reconciled"} and untouched["difference"].abs().max() < Decimal("0.01")


def test_each_table_day_counts_its_quarantined_coups(built):
    holes = built["holes"]
    assert holes["quarantined_coups"].sum() == built["quarantined"] > 0
    # the stake on them is what the shifts priced or bounded: the same wagers, counted once
    shifts = built["shifts"]
    assert holes["quarantined_handle"].sum() >= shifts["quarantined_stake"].sum()
    assert holes["quarantined_handle"].sum() == shifts["quarantined_handle"].sum()
