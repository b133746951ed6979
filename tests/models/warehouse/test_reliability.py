"""The warehouse under stress: random files never crash it or lose a row, a SIGKILL mid-ingest (once,
or again and again) leaves it one whole commit of its Iceberg tables, and readers of the serving
snapshot never block or break the writer."""

import codecs
import contextlib
import datetime as dt
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb
import polars as pl
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyiceberg.catalog import load_catalog

from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.simulate.run import write_simulation
from models.warehouse import schema
from models.warehouse.iceberg import TABLES_KEY
from models.warehouse.ingest import ingest
from models.warehouse.store import read, serving_path


@cache
def good() -> pl.DataFrame:
    """Three simulated shoes' rounds as text, dealt when a test first asks (not at collection)."""
    rounds = next(simulate(Simulation(shoes=3, decks=1, seed=4))).rounds
    return rounds.with_columns(pl.col("started_at").dt.to_string("%Y-%m-%dT%H:%M:%S%.3f%:z"))


@cache
def good_rows() -> list[dict[str, str | None]]:
    return [{k: None if v is None else str(v) for k, v in row.items()} for row in good().iter_rows(named=True)]


junk_text = st.one_of(
    st.none(), st.text(max_size=8), st.sampled_from(["", "0", "-3", "9H 9H 9H 9H", "XX YY", "2026-13-45", "B", "Z"])
)
#: Stands for a table_id whose bytes are not UTF-8 (longer than any junk text, so never drawn as one).
NOT_UTF8 = "@@not-utf-8@@"
#: The big landing's 40 days end in the past: a time past the ingest's morrow is quarantined.
PAST = dt.date(2026, 10, 1)
FORMATS = ["csv", "jsonl", "parquet", "csv.gz", "jsonl.gz", "csv.zst", "jsonl.zst"]
ENDINGS = ["\n", "\r\n", "\r"]


@st.composite
def a_row(draw):
    row = dict(draw(st.sampled_from(good_rows())))
    for column in draw(st.sets(st.sampled_from(list(row)), max_size=3)):
        row[column] = draw(junk_text)
    return row


@dataclass
class LogFile:
    """A file to write: its rows and how it is written, odd or broken."""

    fmt: str
    rows: list[dict]
    endings: list[str]  # one per line of a text file: `\n`, `\r\n` or `\r`, mixed or not
    bom: bool
    bad_line: int | None  # where a row whose bytes are not UTF-8 goes (text files)
    depth: int | None  # how deep a nested JSON value goes on an added line (JSON Lines)
    cut: float | None  # where a compressed file is cut short, as a share of its bytes

    @property
    def lines(self) -> int:
        """The rows written: each one read must be accounted for."""
        return len(self.rows) + (self.bad_line is not None) + (self.depth is not None)

    @property
    def broken(self) -> bool:
        """Whether the file as a whole must fail (a stream cut short); its bad lines are quarantined."""
        return self.cut is not None


@st.composite
def a_file(draw):
    rows = draw(st.lists(a_row(), min_size=1, max_size=25))
    rows += draw(st.lists(st.sampled_from(rows), max_size=5))  # exact duplicates
    fmt = draw(st.sampled_from(FORMATS))
    text = fmt != "parquet"
    line_endings = draw(
        st.one_of(st.sampled_from(ENDINGS).map(lambda e: [e]), st.lists(st.sampled_from(ENDINGS), min_size=2))
    )
    return LogFile(
        fmt=fmt,
        rows=rows,
        endings=line_endings,
        bom=text and draw(st.booleans()),
        bad_line=draw(st.none() | st.integers(0, len(rows))) if text else None,
        depth=draw(st.none() | st.integers(1, 2_000) | st.just(100_000)) if fmt.startswith("jsonl") else None,
        cut=draw(st.none() | st.floats(0, 0.999)) if fmt.endswith((".gz", ".zst")) else None,
    )


def _text_lines(log: LogFile) -> list[str]:
    """The file's lines (a header first for CSV), each row on its own so that a line ending is
    chosen for each (a quoted field keeps its own line breaks)."""
    rows = list(log.rows)
    if log.bad_line is not None:
        rows.insert(log.bad_line, {**good_rows()[0], "table_id": NOT_UTF8})
    if log.fmt.startswith("csv"):
        frame = pl.DataFrame(rows, schema={name: pl.String for name in good().columns})
        return [",".join(good().columns), *(row.write_csv(include_header=False)[:-1] for row in frame.iter_slices(1))]
    lines = [json.dumps(row) for row in rows]
    if log.depth is not None:
        lines.append(json.dumps(good_rows()[-1])[:-1] + ', "nested": ' + "[" * log.depth + "]" * log.depth + "}")
    return lines


def _write(path: Path, log: LogFile) -> None:
    if log.fmt == "parquet":
        pl.DataFrame(log.rows, schema={name: pl.String for name in good().columns}).write_parquet(path)
        return
    lines = _text_lines(log)
    text = "".join(line + log.endings[n % len(log.endings)] for n, line in enumerate(lines))
    data = (codecs.BOM_UTF8 if log.bom else b"") + text.encode().replace(NOT_UTF8.encode(), b"T\xff\xfe01")
    if log.fmt.endswith(".gz"):
        data = gzip.compress(data)
    elif log.fmt.endswith(".zst"):
        data = zstandard.ZstdCompressor(write_checksum=True).compress(data)
    if log.cut is not None:
        data = data[: int(len(data) * log.cut)]
    path.write_bytes(data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(a_file(), min_size=1, max_size=3))
@pytest.mark.slow
def test_random_files_never_crash_and_never_lose_a_row(tmp_path_factory, files):
    folder = tmp_path_factory.mktemp("landing")
    written = {}
    for i, log in enumerate(files):
        path = folder / f"rounds_{i}.{log.fmt}"
        _write(path, log)
        written[str(path)] = log
    db = folder / "wh" / "banco.duckdb"
    results = ingest(db, [folder])
    assert sorted(str(result.path) for result in results) == sorted(written)  # every file, once
    con = read(db)
    for result in results:
        log = written[str(result.path)]
        stored = con.execute(
            "SELECT (SELECT count(*) FROM core.rounds WHERE source_file = $1),"
            " (SELECT count(*) FROM quarantine.rounds WHERE source_file = $1)",
            [str(result.path)],
        ).fetchone()
        logged = con.execute("SELECT status, rows_read FROM meta.ingest_log WHERE path = $1", [str(result.path)])
        if log.broken:  # a stream cut short: failed, whole, with nothing of it stored
            assert result.status == "failed" and result.error and stored == (0, 0), result
            assert logged.fetchall() == [("failed", 0)]
            continue
        assert result.status in ("ok", "skipped"), result.error
        if result.status == "skipped":  # byte for byte the same as a file ingested before it
            assert any(
                other.read_bytes() == result.path.read_bytes() for other in map(Path, written) if other != result.path
            )
            assert logged.fetchall() == []
            continue
        assert logged.fetchall() == [("ok", log.lines)]
        assert result.rows_read == log.lines
        assert result.rows_read == result.accepted + sum(result.quarantined.values()) + result.duplicates
        assert stored == (result.accepted, sum(result.quarantined.values()))
        if log.bad_line is not None or log.depth == 100_000:  # a line no row could be made of
            assert result.quarantined["bad_type"] >= 1
    con.close()


@pytest.fixture(scope="module")
def big_landing(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    write_simulation(Simulation(shoes=4000, tables=10, seed=12, start=PAST), folder)
    return folder


@pytest.fixture(scope="module")
def many_files(tmp_path_factory):
    """The big landing's coups in a dozen rounds files and a dozen bets files."""
    folder = tmp_path_factory.mktemp("many")
    write_simulation(Simulation(shoes=4000, tables=10, seed=12, start=PAST), folder, chunk_coups=30_000)
    assert len(list(folder.glob("rounds_*"))) >= 10
    return folder


#: What a warehouse holds, as its views in `banco.duckdb` read it.
HELD = (
    "SELECT (SELECT count(*) FROM core.rounds), (SELECT count(*) FROM core.bets), (SELECT count(*) FROM core.shoes),"
    " (SELECT count(*) FROM quarantine.rounds), (SELECT count(*) FROM quarantine.bets),"
    " (SELECT count(*) FROM meta.ingest_log WHERE status = 'ok')"
)


def _counts(db: Path) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(HELD).fetchone()
    finally:
        con.close()


def _consistent(db: Path) -> tuple:
    """Check that the warehouse's commit, as `banco.duckdb` (opened read-only) reads it, holds every
    row of each file logged ok and nothing else, and that its views read the table snapshots the
    log's commit names; returns its counts."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        views = "SELECT * FROM duckdb_views() WHERE schema_name = 'meta' AND view_name = 'ingest_log'"
        if not con.sql(views).fetchall():
            return (0,) * 6  # killed before the first commit: nothing is stored yet
        logged = con.sql(
            "SELECT path, kind, rows_read, rows_accepted, rows_quarantined, rows_duplicate FROM meta.ingest_log"
            " WHERE status = 'ok'"
        ).fetchall()
        for path, _, rows_read, accepted, quarantined, duplicates in logged:
            assert rows_read == accepted + quarantined + duplicates, path
        for kind in ("rounds", "bets"):
            expected = {row[0]: (row[3], row[4]) for row in logged if row[1] == kind}
            stored = dict.fromkeys(expected, (0, 0))
            accepted = f"SELECT source_file, count(*) FROM core.{kind} GROUP BY ALL"
            quarantined = dict(con.sql(f"SELECT source_file, count(*) FROM quarantine.{kind} GROUP BY ALL").fetchall())
            for path, rows in con.sql(accepted).fetchall():
                stored[path] = (rows, quarantined.pop(path, 0))
            stored |= {path: (stored.get(path, (0, 0))[0], rows) for path, rows in quarantined.items()}
            assert stored == expected, kind  # every logged file whole, no row of any other file
        pointed = dict(con.sql(f"SELECT table_name, snapshot_id FROM {schema.SNAPSHOTS}").fetchall())
        counts = con.execute(HELD).fetchone()
    finally:
        con.close()
    if not pointed[schema.INGEST_LOG]:  # the views of a warehouse without a commit yet
        assert set(pointed.values()) == {0} and counts == (0,) * 6
        return counts
    catalog = load_catalog("banco", type="sql", uri=f"sqlite:///{db.with_name('banco.catalog.db')}")
    log = catalog.load_table(schema.INGEST_LOG).snapshot_by_id(pointed[schema.INGEST_LOG])
    named = json.loads(log.summary.additional_properties[TABLES_KEY])  # null for a table without a snapshot yet
    assert {name: snapshot or 0 for name, snapshot in named.items()} == {
        name: pointed[name] for name in schema.TABLES if name != schema.INGEST_LOG
    }
    return counts


INGEST = (
    "import sys; from pathlib import Path; from models.warehouse.ingest import ingest;"
    "print('ready', flush=True); ingest(Path(sys.argv[1]), [Path(sys.argv[2])])"
)


def _start(db: Path, landing: Path) -> subprocess.Popen:
    """An ingest in a process of its own, once it has imported everything and is about to ingest."""
    process = subprocess.Popen(
        [sys.executable, "-c", INGEST, str(db), str(landing)], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert process.stdout.readline() == "ready\n"
    return process


def _kill(process: subprocess.Popen, after: float) -> bool:
    """SIGKILL the ingest `after` seconds into its work; whether it was still running."""
    time.sleep(after)
    running = process.poll() is None
    with contextlib.suppress(ProcessLookupError):  # it finished, its group with it
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return running


def _ingest(db: Path, landing: Path) -> None:
    subprocess.run([sys.executable, "-c", INGEST, str(db), str(landing)], check=True, stdout=subprocess.DEVNULL)


def _clean(landing: Path, tmp: Path) -> tuple:
    """What an ingest of the landing that nothing stops holds."""
    _ingest(tmp / "banco.duckdb", landing)
    return _counts(tmp / "banco.duckdb")


@pytest.mark.slow
def test_sigkill_mid_ingest_leaves_the_warehouse_as_it_was(tmp_path, big_landing):
    db = tmp_path / "banco.duckdb"
    process = _start(db, big_landing)
    assert _kill(process, 1.5), "ingest finished before it could be killed: make the landing larger"
    rounds, bets, *_, files = _consistent(db)
    assert files in (0, 1)  # the rounds file may have committed; the bets file cannot be half in
    if files == 0:
        assert (rounds, bets) == (0, 0)
    else:
        assert bets == 0 and rounds > 0
    _ingest(db, big_landing)
    assert _consistent(db) == _counts(db) == _clean(big_landing, tmp_path / "clean")


@pytest.mark.slow
def test_sigkill_again_and_again_leaves_a_whole_commit_each_time(tmp_path, many_files):
    """Killed at several moments of its work, each time again from where it stopped: after each kill
    the warehouse is one whole commit, and once an ingest finishes it holds what a clean one does."""
    db = tmp_path / "banco.duckdb"
    seen = []
    for after in (0.5, 1.0, 1.5, 2.0, 3.0, 4.0):
        if not _kill(_start(db, many_files), after):
            break  # it finished before this kill: the rest has nothing left to stop
        seen.append(_consistent(db))
    assert len(seen) >= 2, "ingest finished before it could be killed twice: make the landing larger"
    assert seen == sorted(seen, key=lambda counts: counts[-1])  # files only ever went in
    _ingest(db, many_files)
    assert _consistent(db) == _counts(db) == _clean(many_files, tmp_path / "clean")


@pytest.mark.slow
def test_a_reader_on_the_snapshot_never_blocks_or_breaks_the_writer(tmp_path, big_landing):
    db = tmp_path / "banco.duckdb"
    small = tmp_path / "small"
    write_simulation(Simulation(shoes=5, seed=99), small)
    ingest(db, [small])
    reader = duckdb.connect(str(serving_path(db)), read_only=True)
    before = reader.execute("SELECT count(*) FROM core.rounds").fetchone()[0]
    seen, errors = [], []

    def keep_reading():
        while not done.is_set():
            try:
                seen.append(reader.execute("SELECT count(*) FROM core.rounds").fetchone()[0])
            except duckdb.Error as error:  # pragma: no cover - the failure this test exists to catch
                errors.append(error)
            time.sleep(0.01)

    done = threading.Event()
    thread = threading.Thread(target=keep_reading)
    thread.start()
    results = ingest(db, [big_landing])  # must not wait for the reader
    done.set()
    thread.join()
    assert all(result.status == "ok" for result in results)
    assert not errors and set(seen) == {before}  # the open snapshot stays as it was
    reader.close()
    fresh = read(db)
    assert fresh.execute("SELECT count(*) FROM core.rounds").fetchone()[0] > before
    fresh.close()
