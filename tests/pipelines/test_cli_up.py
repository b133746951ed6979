"""`banco up` on a fresh folder: a demo month dealt, ingested and built, with a readable report."""

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


def test_up_deals_a_demo_month_and_builds_the_warehouse(tmp_path):
    db, landing = tmp_path / "banco.duckdb", tmp_path / "landing"
    args = [BANCO, "up", "--db", str(db), "--landing", str(landing), "--demo-days", "3"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "dealing a demo month" in result.stdout and "built 12 marts" in result.stdout
    for game in ("punto_banco", "super6", "ez_baccarat", "chemin_de_fer", "baccarat_banque", "banco"):
        assert game in result.stdout
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")), read_only=True)
    games = con.execute("SELECT count(DISTINCT game) FROM core.rounds").fetchall()[0][0]
    faults = con.execute("SELECT count(*) FROM quarantine.rounds").fetchall()[0][0]
    con.close()
    assert games == 6 and faults > 0  # the demo carries a few misdeals for the integrity views
    again = subprocess.run(args, capture_output=True, text=True, timeout=600)  # nothing new the second time
    assert again.returncode == 0 and "dealing a demo month" not in again.stdout
    assert "ingested 0 new files" in again.stdout
