"""Files split by shard: each chunk's rounds and bets as one file pair per shard, holding exactly the rows
the unsplit run writes, and only its shard's tables."""

import datetime as dt
import re

import polars as pl
import pytest

from models.game.games import Game
from models.simulate.config import Simulation
from models.simulate.run import FAULTS_FOLDER, write_simulation
from models.warehouse.shards import Sharding

# six tables fall in both of two shards and in all three of three; small chunks give several a run
SIM = Simulation(
    shoes=24,
    seed=5,
    games=(Game.PUNTO_BANCO, Game.BACCARAT_BANQUE),
    tables=6,
    shoes_per_day=1,
    start=dt.date(2026, 11, 1),
)
CHUNK_COUPS = 800
SPLIT_NAME = re.compile(r"^(rounds|bets|table_events)_(.+)_(s\d+)$")


def _read(path) -> pl.DataFrame:
    return pl.read_parquet(path) if path.suffix == ".parquet" else pl.read_csv(path, infer_schema=False)


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns, nulls_last=True)


def _files(folder) -> dict[str, pl.DataFrame]:
    return {path.stem: _read(path) for path in sorted(folder.iterdir()) if path.is_file()}


@pytest.mark.parametrize(("fmt", "misdeal_rate"), [("parquet", 0.0), ("parquet", 0.05), ("csv", 0.05)])
@pytest.mark.parametrize("shards", [2, 3])
def test_shard_files_hold_the_unsplit_rows_of_their_own_tables(tmp_path, fmt, misdeal_rate, shards):
    sharding = Sharding(shards)
    whole = write_simulation(SIM, tmp_path / "whole", fmt, misdeal_rate, chunk_coups=CHUNK_COUPS)
    split = write_simulation(SIM, tmp_path / "split", fmt, misdeal_rate, chunk_coups=CHUNK_COUPS, sharding=sharding)
    assert (split.coups, split.bets, split.faults) == (whole.coups, whole.bets, whole.faults)
    unsplit, parts = _files(tmp_path / "whole"), _files(tmp_path / "split")
    assert len(unsplit) > 2 and len(parts) > len(unsplit)  # several chunks, each split

    rebuilt: dict[str, list[pl.DataFrame]] = {}
    for stem, part in parts.items():
        kind, chunk, shard = SPLIT_NAME.match(stem).groups()
        assert part.height > 0
        assert {sharding.of(table) for table in part["table_id"]} == {shard}
        expected = unsplit[f"{kind}_{chunk}"].filter(sharding.column() == shard)
        if misdeal_rate:  # the faults' rows come in an order that varies from run to run (models/simulate/faults.py)
            part, expected = _sorted(part), _sorted(expected)
        assert part.equals(expected)  # the unsplit file's rows of this shard, in their order
        rebuilt.setdefault(f"{kind}_{chunk}", []).append(part)
    assert {stem: sum(part.height for part in group) for stem, group in rebuilt.items()} == {
        stem: frame.height for stem, frame in unsplit.items()
    }
    # the fault labels stay one file a chunk, as they were
    assert _files(tmp_path / "whole" / FAULTS_FOLDER).keys() == _files(tmp_path / "split" / FAULTS_FOLDER).keys()
    for stem, labels in _files(tmp_path / "whole" / FAULTS_FOLDER).items():
        assert _sorted(labels).equals(_sorted(_read(tmp_path / "split" / FAULTS_FOLDER / f"{stem}.{fmt}")))
    assert bool(misdeal_rate) == bool(list((tmp_path / "split" / FAULTS_FOLDER).iterdir()))


def test_one_shard_writes_the_files_as_without_sharding(tmp_path):
    write_simulation(SIM, tmp_path / "none", chunk_coups=CHUNK_COUPS)
    summary = write_simulation(SIM, tmp_path / "one", chunk_coups=CHUNK_COUPS, sharding=Sharding(1))
    unsplit, one = _files(tmp_path / "none"), _files(tmp_path / "one")
    assert unsplit.keys() == one.keys() and len(summary.files) == len(one)
    assert all(one[stem].equals(frame) for stem, frame in unsplit.items())


def test_a_shard_without_tables_gets_no_files(tmp_path):
    sim = Simulation(shoes=4, seed=5, tables=2, shoes_per_day=1, start=dt.date(2026, 11, 1))
    sharding = Sharding(2)
    assert {sharding.of(table) for table in ("T01", "T02")} == {"s1"}  # both tables in one shard
    summary = write_simulation(sim, tmp_path, sharding=sharding)
    assert sorted(path.name for path in summary.files) == sorted(
        path.name for path in tmp_path.iterdir() if path.is_file()
    )
    assert {SPLIT_NAME.match(path.stem).group(3) for path in summary.files} == {"s1"}
