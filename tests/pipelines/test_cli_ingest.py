"""`banco ingest` as a user runs it: the installed console script in a subprocess, on the samples."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))
SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"


def banco(*args):
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=300)


def test_the_summary_counts_every_row_and_names_each_failed_file(tmp_path):
    db = str(tmp_path / "banco.duckdb")
    first = banco("ingest", "--db", db, str(SAMPLES))
    assert first.returncode == 1, first.stderr  # two sample files are broken on purpose
    headline, *details = first.stdout.strip().splitlines()
    counts = re.fullmatch(
        r"(\d+) files \((\d+) already ingested, (\d+) failed\): ([\d,]+) rows read, ([\d,]+) accepted, "
        r"([\d,]+) quarantined, ([\d,]+) duplicates",
        headline,
    )
    assert counts, headline
    files, skipped, failed, read, accepted, quarantined, duplicates = (int(n.replace(",", "")) for n in counts.groups())
    assert (skipped, failed) == (0, 2) and files > 2
    assert read == accepted + quarantined + duplicates
    reasons = [line for line in details if line.startswith("  quarantined ")]
    assert sum(int(line.rsplit(": ", 1)[1].replace(",", "")) for line in reasons) == quarantined
    assert sorted(line.split(":")[0] for line in details if line.startswith("  failed ")) == [
        f"  failed {SAMPLES / 'broken.parquet'}",
        f"  failed {SAMPLES / 'truncated.csv.gz'}",
    ]

    again = banco("ingest", "--db", db, str(SAMPLES / "01_rounds_suited.csv"))
    assert again.returncode == 0
    assert again.stdout.startswith("1 files (1 already ingested, 0 failed): 0 rows read")


def test_a_missing_path_is_logged_failed_in_one_line_after_the_summary(tmp_path):
    good = tmp_path / "rounds.csv"
    shutil.copy(SAMPLES / "01_rounds_suited.csv", good)
    db = tmp_path / "banco.duckdb"
    result = banco("ingest", "--db", str(db), str(tmp_path / "nowhere"), str(good))
    assert result.returncode == 1 and not result.stderr  # the rest went in, then the exit says a file failed
    headline, *details = result.stdout.strip().splitlines()
    assert headline.startswith("2 files (0 already ingested, 1 failed): ")
    assert [line for line in details if line.startswith("  failed ")] == [
        f"  failed {tmp_path / 'nowhere'}: cannot read nowhere: no such file or folder"
    ]
    log = duckdb.connect(str(db), read_only=True).sql("SELECT path, status FROM meta.ingest_log ORDER BY ALL")
    assert log.fetchall() == [(str(tmp_path / "nowhere"), "failed"), (str(good), "ok")]
