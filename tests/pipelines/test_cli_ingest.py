"""`banco ingest` as a user runs it: the installed console script in a subprocess, on the samples."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))
SAMPLES = Path(__file__).resolve().parents[2] / "data" / "samples"


def banco(*args):
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=300)


def sample_warehouse(folder: Path) -> str:
    """A warehouse in `folder` holding the first sample's rounds, ingested through the CLI; its path."""
    path = str(folder / "banco.duckdb")
    loaded = banco("ingest", "--db", path, str(SAMPLES / "01_rounds_suited.csv"))
    assert loaded.returncode == 0, loaded.stderr
    return path


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_odd_entries_each_fail_in_one_line_after_the_summary_and_the_rest_go_in(tmp_path):
    landing = tmp_path / "landing"
    landing.mkdir()
    shutil.copy(SAMPLES / "01_rounds_suited.csv", landing)
    os.mkfifo(landing / "fifo.csv")  # opened, it would hang the ingest: the timeout would fail the test
    (landing / "loop.csv").symlink_to("loop.csv")
    os.mkfifo(landing / "new\nline.csv")  # its name must not break its line
    zstd = (SAMPLES / "04_rounds_chemin_super6.jsonl.zst").read_bytes()
    (landing / "cut.jsonl.zst").write_bytes(zstd[: len(zstd) * 3 // 4])
    result = banco("ingest", "--db", str(tmp_path / "banco.duckdb"), str(landing))
    assert result.returncode == 1 and not result.stderr
    headline, *details = result.stdout.strip().splitlines()
    assert headline.startswith("5 files (0 already ingested, 4 failed): ")
    assert [line for line in details if line.startswith("  failed ")] == [
        f"  failed {landing / 'cut.jsonl.zst'}: cannot read cut.jsonl.zst as jsonl (zstd): "
        "the zstd stream ends inside a frame: the file is truncated",
        f"  failed {landing / 'fifo.csv'}: cannot read fifo.csv as csv: a FIFO (named pipe), not a regular file",
        f"  failed {landing / 'loop.csv'}: cannot read loop.csv as csv: a symbolic link that loops",
        f"  failed {landing}/new\\x0aline.csv: cannot read new\\x0aline.csv as csv: "
        "a FIFO (named pipe), not a regular file",
    ]


NOBODY = 65534


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


@pytest.mark.slow  # the checks' compiled kernels are compiled anew for a user without their cache
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the ingest as another user")
def test_a_file_or_folder_without_permission_fails_alone_for_an_unprivileged_user():
    # The tests run as root, who reads any file: the ingest runs as `nobody`, in a folder it may use
    # (pytest's own tmp folders are root's alone).
    top = Path(tempfile.mkdtemp(prefix="banco-nobody-"))
    try:
        top.chmod(0o777)
        landing = top / "landing"
        landing.mkdir()
        shutil.copy(SAMPLES / "01_rounds_suited.csv", landing)
        shutil.copy(SAMPLES / "03_rounds_value_only.jsonl", landing / "secret.jsonl")
        (landing / "secret.jsonl").chmod(0o000)
        closed = landing / "closed"
        closed.mkdir()
        shutil.copy(SAMPLES / "06_bets_main.csv", closed)
        closed.chmod(0o000)
        db = top / "wh" / "banco.duckdb"
        (top / "wh").mkdir(mode=0o777)
        (top / "wh").chmod(0o777)
        result = subprocess.run(
            [BANCO, "ingest", "--db", str(db), str(landing), str(closed / "06_bets_main.csv")],
            capture_output=True, text=True, timeout=300, preexec_fn=_as_nobody, cwd=top,
            env={**os.environ, "HOME": str(top)},
        )  # fmt: skip
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        headline, *details = result.stdout.strip().splitlines()
        assert headline.startswith("4 files (0 already ingested, 3 failed): ")
        assert [line for line in details if line.startswith("  failed ")] == [
            f"  failed {closed}: cannot read closed: a folder that cannot be listed (permission denied)",
            f"  failed {landing / 'secret.jsonl'}: cannot read secret.jsonl as jsonl: Permission denied",
            f"  failed {closed / '06_bets_main.csv'}: cannot read 06_bets_main.csv as csv: Permission denied",
        ]
        log = duckdb.connect(str(db), read_only=True).sql("SELECT path, status FROM meta.ingest_log ORDER BY ALL")
        assert log.fetchall() == [
            (str(landing / "01_rounds_suited.csv"), "ok"),
            (str(closed), "failed"),
            (str(closed / "06_bets_main.csv"), "failed"),  # named, in a folder it may not look into
            (str(landing / "secret.jsonl"), "failed"),
        ]
    finally:
        shutil.rmtree(top)
