"""Entries that are no round log to read (a FIFO, links to nothing or to themselves, a folder named
like a log, a path that is not there or is gone since it was listed): through the real ingest, each
gets exactly one failed row in meta.ingest_log with its error in words, and the run goes on."""

import os
import threading
import time
from pathlib import Path

import duckdb
import polars as pl

from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.warehouse.ingest import expand, ingest

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "samples"


def _log(db: Path) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.sql("SELECT path, kind, status, error, sha256 FROM meta.ingest_log").fetchall()
    finally:
        con.close()
    assert len(rows) == len({row[0] for row in rows}), "a path logged twice"
    return {Path(path).name: tuple(rest) for path, *rest in rows}


class FifoWatch:
    """A writer waiting on a FIFO: it stays waiting unless a reader opens the FIFO (so a reader
    opening it finds it empty, and the test fails instead of hanging)."""

    def __init__(self, fifo: Path):
        self.fifo = fifo
        self.writer = threading.Thread(target=lambda: open(fifo, "wb").close(), daemon=True)
        self.writer.start()

    def never_opened(self) -> bool:
        waiting = self.writer.is_alive()
        reader = os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK)  # let the writer go
        self.writer.join(5)
        os.close(reader)
        return waiting


def test_each_odd_entry_in_a_folder_or_named_gets_one_failed_row_and_the_rest_go_in(tmp_path):
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "a_rounds.csv").write_bytes((SAMPLES / "01_rounds_suited.csv").read_bytes())
    os.mkfifo(landing / "fifo.csv")
    (landing / "loop.jsonl").symlink_to("loop.jsonl")
    (landing / "dangling.csv").symlink_to("gone.csv")
    (landing / "folder.parquet").mkdir()
    (landing / "folder.parquet" / "inside.jsonl").write_bytes((SAMPLES / "03_rounds_value_only.jsonl").read_bytes())
    named_fifo = tmp_path / "named.csv"
    os.mkfifo(named_fifo)
    watches = [FifoWatch(landing / "fifo.csv"), FifoWatch(named_fifo)]
    db = tmp_path / "wh" / "banco.duckdb"

    results = ingest(db, [landing, named_fifo, tmp_path / "nowhere.csv", landing / "loop.jsonl"])

    assert all(watch.never_opened() for watch in watches)
    by_name = {r.path.name: (r.status, r.error) for r in results}
    assert len(results) == len(by_name) == 8
    assert {name: status for name, (status, _) in by_name.items() if status == "ok"} == {
        "a_rounds.csv": "ok",
        "inside.jsonl": "ok",  # a folder named like a log is failed, what it holds still found
    }
    failed = {
        "fifo.csv": "cannot read fifo.csv as csv: a FIFO (named pipe), not a regular file",
        "named.csv": "cannot read named.csv as csv: a FIFO (named pipe), not a regular file",
        "loop.jsonl": "cannot read loop.jsonl as jsonl: a symbolic link that loops",
        "dangling.csv": "cannot read dangling.csv as csv: a symbolic link to nothing",
        "folder.parquet": "cannot read folder.parquet as parquet: a folder, not a file",
        "nowhere.csv": "cannot read nowhere.csv as csv: no such file or folder",
    }
    assert {name: error for name, (status, error) in by_name.items() if status == "failed"} == failed
    log = _log(db)
    assert {name: status for name, (_, status, _, _) in log.items()} == {name: "failed" for name in failed} | {
        "a_rounds.csv": "ok",
        "inside.jsonl": "ok",
    }
    assert all(log[name] == (None, "failed", error, "") for name, error in failed.items())  # no bytes to hash

    again = ingest(db, [landing])  # failed entries are tried again, and logged again, once each
    assert sorted(r.status for r in again) == ["failed"] * 4 + ["skipped"] * 2


def test_a_file_gone_since_it_was_listed_gets_one_failed_row(tmp_path):
    landing = tmp_path / "landing"
    landing.mkdir()
    for name in ("01_rounds_suited.csv", "03_rounds_value_only.jsonl", "06_bets_main.csv"):
        (landing / name).write_bytes((SAMPLES / name).read_bytes())
    listed = expand([landing])  # as the landing sensor lists them for its run
    (landing / "03_rounds_value_only.jsonl").unlink()
    db = tmp_path / "banco.duckdb"
    results = ingest(db, listed)
    assert [(r.path.name, r.status) for r in results] == [
        ("03_rounds_value_only.jsonl", "failed"),
        ("01_rounds_suited.csv", "ok"),
        ("06_bets_main.csv", "ok"),
    ]
    assert results[0].error == "cannot read 03_rounds_value_only.jsonl as jsonl: no such file or folder"
    assert _log(db)["03_rounds_value_only.jsonl"] == (None, "failed", results[0].error, "")


def test_a_file_gone_while_the_run_goes_on_gets_one_failed_row(tmp_path):
    """A file that vanishes after its kind was read, before its turn: it is deleted as soon as the
    warehouse opens (the kinds are read by then), while a large file goes in first."""
    landing = tmp_path / "landing"
    landing.mkdir()
    rounds = pl.concat(chunk.rounds for chunk in simulate(Simulation(shoes=400, tables=4, seed=5, bets=False)))
    rounds.write_csv(landing / "a_rounds.csv")
    (landing / "b_rounds.csv").write_bytes((SAMPLES / "01_rounds_suited.csv").read_bytes())
    victim = landing / "c_bets.csv"
    victim.write_bytes((SAMPLES / "06_bets_main.csv").read_bytes())
    db = tmp_path / "banco.duckdb"

    def delete_once_the_warehouse_opens():
        deadline = time.monotonic() + 60
        while not db.exists() and time.monotonic() < deadline:
            time.sleep(0.001)
        victim.unlink()

    deleter = threading.Thread(target=delete_once_the_warehouse_opens)
    deleter.start()
    results = ingest(db, [landing])
    deleter.join()
    assert [(r.path.name, r.kind, r.status) for r in results] == [
        ("a_rounds.csv", "rounds", "ok"),
        ("b_rounds.csv", "rounds", "ok"),
        ("c_bets.csv", "bets", "failed"),
    ]
    assert results[2].error == "cannot read c_bets.csv as csv: no such file or folder"
    assert _log(db)["c_bets.csv"] == ("bets", "failed", results[2].error, "")
