"""`banco build` says in one line what it computed and what it kept, over a real warehouse."""

import subprocess
import sys
from pathlib import Path

import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest

BANCO = Path(sys.executable).with_name("banco")


@pytest.mark.slow
def test_a_second_build_keeps_every_day_and_says_so(tmp_path):
    write_simulation(Simulation(shoes=8, tables=2, shoes_per_day=2, seed=9), tmp_path / "in")
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "in"])

    def banco(*args: str) -> list[str]:
        command = [str(BANCO), "build", "--db", str(db), *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    first = banco()
    assert first[0] == "computed 2 gaming days (no build recorded yet)" and first[1].startswith("built 26 marts: ")
    assert banco() == ["nothing new since the last build: kept the marts of all 2 gaming days"]
    again = banco("--every-day")
    assert again[0].startswith("computed 2 gaming days (asked to compute every day); kept the exact edges of ")
