"""`banco build` says in one line what it computed and what it kept, over a real warehouse; a table-day
held back, or a build that failed, in one line each, which `banco report` repeats."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from tests import overflow

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
    assert first[0] == "computed 2 gaming days (no build recorded yet)" and first[1].startswith("built 29 marts: ")
    assert banco() == ["nothing new since the last build: kept the marts of all 2 gaming days"]
    again = banco("--every-day")
    assert again[0].startswith("computed 2 gaming days (asked to compute every day); kept the exact edges of ")


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([str(BANCO), *map(str, args)], capture_output=True, text=True, timeout=300)


def report(db: Path, out: Path) -> subprocess.CompletedProcess:
    done = run("report", "--db", db, "--month", "2026-11", "--format", "csv", "--out", out)
    assert done.returncode == 0 and out.exists(), done.stderr
    return done


@pytest.mark.slow
def test_a_held_back_table_day_is_a_line_and_exit_1_and_the_report_warns_of_it(tmp_path):
    db = overflow.built(tmp_path)
    overflow.overflow(db, tmp_path)
    done = run("build", "--db", db)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.startswith("computed 1 gaming day") and "built 29 marts: " in done.stdout
    (line,) = done.stderr.splitlines()
    assert line.startswith("banco: warning: held back T01 on 2026-11-01 from the marts: InvalidOperationError: ")
    out = tmp_path / "report.csv"
    (warning,) = report(db, out).stderr.splitlines()
    assert warning.startswith(
        "banco report: warning: The marts leave out 1 table-day whose rows the build could not compute: "
        "T01 on 2026-11-01 (InvalidOperationError: "
    )
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["stale"] == warning.removeprefix("banco report: warning: ")


@pytest.mark.slow
def test_a_build_that_fails_whole_is_one_line_and_exit_2_and_the_report_says_the_marts_are_stale(tmp_path):
    db = overflow.built(tmp_path)
    added, *_ = overflow.later_day(db, tmp_path)
    held = overflow.corrupted(added)
    done = run("build", "--db", db)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("banco: error: the build failed (") and "nothing was published" in line
    (warning,) = report(db, tmp_path / "stale.csv").stderr.splitlines()
    assert warning.startswith("banco report: warning: The marts are stale: the last build, at ")
    assert "they are still those of the last build that succeeded" in warning
    added.write_bytes(held)
    assert run("build", "--db", db).returncode == 0
    assert report(db, tmp_path / "fresh.csv").stderr == ""
