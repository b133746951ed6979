"""The count room through the real pipeline: a simulated month with labelled count faults, ingested and
built, finds every fault at its table-shift and reconciles every other shift."""

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
    write_simulation(SIM, root / "landing", count_fault_rate=0.25)
    db = root / "warehouse" / "banco.duckdb"
    ingest(db, [root / "landing"])
    build(db)
    con = read(db)
    try:
        shifts = con.sql("SELECT * FROM marts.table_shift").pl()
        events = con.sql("SELECT count(*) FROM core.table_events").fetchall()[0][0]
    finally:
        con.close()
    labels = pl.read_parquet(sorted((root / "landing" / FAULTS_FOLDER).glob("count_faults_*")))
    return {"shifts": shifts, "labels": labels, "events": events}


@pytest.mark.slow
def test_every_injected_fault_is_found_at_its_table_shift(built):
    shifts, labels = built["shifts"], built["labels"]
    assert built["events"] > 0 and labels.height >= 4
    assert set(labels["kind"]) == {"short_fill", "missing_credit_slip", "walked_chips", "overpaid_wager"}
    flagged = shifts.filter(~pl.col("reconciled")).select(*SHIFT, "difference", "status")
    found = labels.join(flagged, on=SHIFT, how="left")
    assert found["status"].to_list() == ["unreconciled"] * labels.height
    assert (found["difference"] - found["amount"]).abs().max() < Decimal("0.01")
    assert flagged.height == labels.height  # nothing flagged that was not injected


def test_every_clean_shift_reconciles_to_the_cent(built):
    clean = built["shifts"].join(built["labels"], on=SHIFT, how="anti")
    assert clean.height >= 20
    assert set(clean["status"]) == {"reconciled"}
    # a chemin de fer bank's cagnotte can be a fraction of a cent; the count holds cents
    assert clean["difference"].abs().max() < Decimal("0.01")
