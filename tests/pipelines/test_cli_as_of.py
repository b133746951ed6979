"""Time travel through the CLI on one small real warehouse: a report and its manifest made, more days
ingested and built, then `banco report --as-of`, `banco verify` and `banco sql --as-of` as of before."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from pipelines.cli import main
from tests.pipelines import count_room_marts

FORMATS = ("csv", "xlsx", "pdf")
COUNT = "SELECT count(*) AS n FROM core.rounds"


def _days(folder: Path, start: dt.date, seed: int) -> Path:
    """Two gaming days of two tables, with bets and the count room's events."""
    write_simulation(Simulation(shoes=4, tables=2, shoes_per_day=1, start=start, seed=seed), folder)
    return folder


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def travelled(tmp_path_factory) -> SimpleNamespace:
    """October's report (every format) of a warehouse of 30 and 31 October, then 1 and 2 November
    ingested and built over it; the rows and a time of before."""
    root = tmp_path_factory.mktemp("as-of")
    db = root / "banco.duckdb"
    ingest(db, [_days(root / "october", dt.date(2026, 10, 30), seed=3)])
    build(db)
    reports = {}
    for fmt in FORMATS:
        out = root / "reports" / f"october.{fmt}"
        assert main(["report", "--db", str(db), "--month", "2026-10", "--format", fmt, "--out", str(out)]) == 0
        reports[fmt] = out
    before = dt.datetime.now(dt.UTC)
    rows = _count(db)
    ingest(db, [_days(root / "november", dt.date(2026, 11, 1), seed=4)])
    build(db)
    assert _count(db) > rows
    return SimpleNamespace(db=str(db), reports=reports, rows=rows, before=before, root=root)


def _count(db: Path) -> int:
    from models.warehouse.store import read

    con = read(db)
    try:
        return con.sql(COUNT).fetchall()[0][0]
    finally:
        con.close()


def _manifest(file: Path) -> dict:
    return json.loads(file.with_name(file.name + ".manifest.json").read_text())


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_report_made_again_as_of_its_manifest_is_the_same_bytes(travelled, capsys, tmp_path, fmt):
    original = travelled.reports[fmt]
    manifest = _manifest(original)
    assert manifest["files"] == {original.name: hashlib.sha256(original.read_bytes()).hexdigest()}
    assert manifest["month"] == "2026-10" and manifest["format"] == fmt and manifest["version"]
    assert manifest["settings"]["marts"]["timezone"] == "UTC" and manifest["settings"]["report"]["property_name"]
    snapshots = manifest["commit"]["snapshots"]
    assert snapshots["meta.ingest_log"] == manifest["commit"]["log_snapshot"] and "core.rounds" in snapshots
    again = tmp_path / f"again.{fmt}"
    where = str(original.with_name(original.name + ".manifest.json"))
    status, out, err = _cli(capsys, "report", "--db", travelled.db, "--as-of", where, "--out", str(again))
    assert status == 0 and out.startswith(f"wrote {again}: 2 tables") and str(manifest["commit"]["log_snapshot"]) in err
    assert again.read_bytes() == original.read_bytes()
    # the new file's own manifest names the same commit and settings
    assert {k: v for k, v in _manifest(again).items() if k != "files"} == {
        k: v for k, v in manifest.items() if k != "files"
    }


def test_verify_passes_on_the_files_as_written_and_catches_one_changed_byte(travelled, capsys, tmp_path):
    where = travelled.reports["csv"].with_name("october.csv.manifest.json")
    status, out, err = _cli(capsys, "verify", "--db", travelled.db, str(where))
    assert status == 0 and out.startswith("verified: october.csv is the file its manifest names;") and err == ""
    assert out.count("\n") == 1 and "the same bytes" in out
    for name in ("october.csv", "october.csv.manifest.json"):
        shutil.copy(travelled.reports["csv"].with_name(name), tmp_path / name)
    changed = bytearray((tmp_path / "october.csv").read_bytes())
    changed[-2] ^= 1
    (tmp_path / "october.csv").write_bytes(bytes(changed))
    status, out, err = _cli(capsys, "verify", "--db", travelled.db, str(tmp_path / "october.csv.manifest.json"))
    assert status == 1 and out.startswith("NOT verified: october.csv is not the file its manifest names") and err == ""
    assert out.count("\n") == 1 and "it is the same bytes" in out  # the rebuild still matches the manifest


def test_verify_says_a_manifest_without_a_commit_cannot_be_made_again(capsys, tmp_path):
    db = count_room_marts.write(tmp_path / "banco.duckdb")  # crafted marts: no build noted their commit
    out = tmp_path / "report.csv"
    assert main(["report", "--db", str(db), "--month", "2026-11", "--format", "csv", "--out", str(out)]) == 0
    capsys.readouterr()
    status, printed, _ = _cli(capsys, "verify", "--db", str(db), str(tmp_path / "report.csv.manifest.json"))
    assert status == 1 and printed.startswith("NOT verified: report.csv is the file its manifest names;")
    assert "names no commit" in printed


def test_sql_as_of_reads_the_rows_of_before_a_later_ingest(travelled, capsys):
    status, out, err = _cli(capsys, "sql", "--db", travelled.db, COUNT, "--format", "csv")
    assert status == 0 and int(out.split()[1]) > travelled.rows and err == ""
    at = travelled.before.isoformat()
    status, out, err = _cli(capsys, "sql", "--db", travelled.db, COUNT, "--format", "csv", "--as-of", at)
    assert status == 0 and out.split() == ["n", str(travelled.rows)]
    assert err.startswith("banco sql: reading the tables at commit ") and err.count("\n") == 1
    # the snapshot it names reads the same rows; user SQL stays on the locked reader
    snapshot = err.split()[7]
    status, out, _ = _cli(capsys, "sql", "--db", travelled.db, COUNT, "--format", "csv", "--as-of", snapshot)
    assert status == 0 and out.split() == ["n", str(travelled.rows)]
    status, _, err = _cli(capsys, "sql", "--db", travelled.db, "SELECT * FROM read_csv('/etc/passwd')", "--as-of", at)
    assert status == 2 and err.endswith("file access is not allowed in banco sql: it reads the warehouse only\n")


@pytest.mark.parametrize(
    ("at", "message"),
    [
        ("2020-01-01T00:00:00Z", "is before the warehouse's first commit"),
        ("2027-01-01T00:00:00", "has no time zone"),
        ("42", "names snapshot 42"),
    ],
)
def test_sql_as_of_refuses_a_time_before_the_first_commit_in_one_line(travelled, capsys, at, message):
    status, out, err = _cli(capsys, "sql", "--db", travelled.db, COUNT, "--as-of", at)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err
