"""Landing files sorted by shard: the tables each file holds, as the ingest reads them, and the files grouped
under the shard all their tables belong to (or under None)."""

import datetime as dt
import gzip
import os

import polars as pl
import pytest

from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.assign import by_shard, tables_of
from models.warehouse.shards import Sharding

SHARDING = Sharding(2)  # T01..T03 fall in s1, T04..T07 in s0
SIM = Simulation(shoes=12, seed=9, tables=6, shoes_per_day=1, start=dt.date(2026, 11, 1))
ROUNDS_HEADER = "table_id,shoe_id,round_no,started_at,outcome\n"


def _logs(folder) -> list:
    return sorted(path for path in folder.iterdir() if path.is_file())


def test_the_tables_shards_are_the_ones_these_tests_name():
    assert [SHARDING.of(f"T{n:02d}") for n in range(1, 8)] == ["s1"] * 3 + ["s0"] * 4


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_split_simulated_files_go_to_their_own_shard(tmp_path, fmt):
    write_simulation(SIM, tmp_path, fmt, misdeal_rate=0.05, chunk_coups=1000, sharding=SHARDING)
    paths = _logs(tmp_path)
    grouped = by_shard(paths, SHARDING)
    assert grouped.keys() == {"s0", "s1", None} and grouped[None] == []
    for shard in SHARDING.names:
        assert grouped[shard] == [path for path in paths if path.stem.endswith(f"_{shard}")] != []
    for path in paths:
        reader = pl.read_parquet if fmt == "parquet" else pl.read_csv if fmt == "csv" else pl.read_ndjson
        assert tables_of(path) == frozenset(reader(path)["table_id"])


def test_unsplit_files_go_to_a_shard_only_when_all_their_tables_are_in_it(tmp_path):
    write_simulation(SIM, tmp_path / "six", chunk_coups=1000)
    write_simulation(Simulation(shoes=4, seed=9, tables=3, shoes_per_day=1), tmp_path / "three")
    six, three = _logs(tmp_path / "six"), _logs(tmp_path / "three")
    assert all(tables_of(path) == {f"T0{n}" for n in range(1, 7)} for path in six)
    assert by_shard([*six, *three], SHARDING) == {"s0": [], "s1": three, None: six}


def test_a_file_that_cannot_be_read_or_names_no_table_goes_under_none(tmp_path):
    write_simulation(SIM, tmp_path / "sim", chunk_coups=100_000)
    whole = next((tmp_path / "sim").glob("rounds_*.parquet"))
    pl.DataFrame({"shoe_id": ["S1"]}).write_parquet(tmp_path / "rounds_no_table.parquet")
    pl.DataFrame({"table_id": [1.5]}).write_parquet(tmp_path / "rounds_float_table.parquet")
    pl.DataFrame({"table_id": [b"T0\xff4"]}).write_parquet(tmp_path / "rounds_bytes_table.parquet")
    contents = {
        "rounds_cut.parquet": whole.read_bytes()[: whole.stat().st_size // 2],
        "rounds_garbage.parquet": b"PAR1 this is no parquet file PAR1",
        "rounds_empty.csv": b"",
        "rounds_header_only.csv": ROUNDS_HEADER.encode(),
        "rounds_no_table.csv": b"shoe_id,round_no\nS1,1\n",
        "rounds_blank_tables.csv": (ROUNDS_HEADER + " ,S1,1,2026-11-01T06:00:00Z,B\n").encode(),
        "rounds_cut.csv.gz": gzip.compress((ROUNDS_HEADER + "T04,S1,1,2026-11-01T06:00:00Z,B\n").encode())[:-9],
        "rounds_empty.jsonl": b"",
        "README.md": b"# T04\n",
    }
    for name, content in contents.items():
        (tmp_path / name).write_bytes(content)
    os.mkfifo(tmp_path / "rounds_fifo.csv")  # never opened: opening a FIFO waits for a writer
    (tmp_path / "rounds_folder.csv").mkdir()
    read_but_empty = ["rounds_header_only.csv", "rounds_blank_tables.csv", "rounds_empty.jsonl"]
    odd = [*sorted(path for path in tmp_path.iterdir() if path.name != "sim"), tmp_path / "rounds_missing.csv"]
    assert len(odd) == 15
    assert {path.name: tables_of(path) for path in odd} == {
        path.name: frozenset() if path.name in read_but_empty else None for path in odd
    }
    assert by_shard([*odd, whole], SHARDING) == {"s0": [], "s1": [], None: [*odd, whole]}


def test_parquet_table_ids_of_integers_read_as_their_digits(tmp_path):
    path = tmp_path / "rounds_numbered.parquet"
    pl.DataFrame({"table_id": [7, 12, 7], "shoe_id": ["S1", "S2", "S3"]}).write_parquet(path)
    assert tables_of(path) == {"7", "12"}


def test_a_csv_is_read_as_the_ingest_reads_it(tmp_path):
    rows = [" T04 ,S1,1,2026-11-01T06:00:00Z,B", "T05,S1,2,2026-11-01T06:01:00Z,P", ",S1,3,2026-11-01T06:02:00Z,P"]
    plain = tmp_path / "rounds_plain.csv"
    plain.write_text(ROUNDS_HEADER + "\n".join(rows) + "\n")
    # a line with more fields than the header (which Polars refuses), and lone carriage returns
    awkward = tmp_path / "rounds_awkward.csv"
    awkward.write_text(ROUNDS_HEADER + "\n".join([*rows, "T06,S1,4,2026-11-01T06:03:00Z,B,extra"]) + "\n")
    lone_cr = tmp_path / "rounds_lone_cr.csv"
    lone_cr.write_bytes((ROUNDS_HEADER + "\n".join(rows)).replace("\n", "\r").encode())
    packed = tmp_path / "rounds_packed.csv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    spanning = tmp_path / "rounds_spanning.csv"
    spanning.write_text(ROUNDS_HEADER + "T04,S1,1,2026-11-01T06:00:00Z,B\nT01,S2,1,2026-11-01T06:00:00Z,B\n")
    assert tables_of(plain) == tables_of(lone_cr) == tables_of(packed) == {"T04", "T05"}
    assert tables_of(awkward) == {"T04", "T05", "T06"}
    # bytes that are not UTF-8, which Polars refuses: read row by row, as the ingest reads them
    not_utf8 = tmp_path / "rounds_not_utf8.csv"
    not_utf8.write_bytes(plain.read_bytes() + b"T0\xff7,S1,4,2026-11-01T06:03:00Z,B\n")
    assert tables_of(not_utf8) == {"T04", "T05", "T0\\xff7"}
    paths = [plain, spanning, awkward, lone_cr, packed]
    assert by_shard(paths, SHARDING) == {"s0": [plain, awkward, lone_cr, packed], "s1": [], None: [spanning]}


def test_json_lines_table_ids_keep_the_spelling_the_ingest_reads(tmp_path):
    plain = tmp_path / "rounds_plain.jsonl"
    plain.write_text('{"table_id": "T01", "round_no": 1}\n\n{"table_id": " T02", "round_no": 2}\n{"round_no": 3}\n')
    numbers = tmp_path / "rounds_numbers.jsonl"
    numbers.write_text('{"table_id": "T01"}\n{"table_id": 7.50}\n{"table_id": 12}\n')
    one_bad_line = tmp_path / "bets_one_bad_line.jsonl"
    one_bad_line.write_text('{"table_id": "T03", "bet": "banker"}\nnot json\n{"table_id": "T02", "bet": "tie"}\n')
    packed = tmp_path / "rounds_packed.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert tables_of(plain) == tables_of(packed) == {"T01", "T02"}
    assert tables_of(numbers) == {"T01", "7.50", "12"}  # as the log spells it, not Polars' 7.5
    assert tables_of(one_bad_line) == {"T02", "T03"}
    assert by_shard([numbers, plain, one_bad_line, packed], SHARDING) == {
        "s0": [],
        "s1": [plain, one_bad_line, packed],
        None: [numbers],
    }
