"""A shard's marts of a day kept on the warehouse's store, in a local folder or a bucket alike."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from models.contract import MONEY
from models.warehouse import partials
from models.warehouse.location import Settings, object_store
from models.warehouse.store import WarehouseError

DAY = dt.date(2026, 11, 1)


def marts(seed: int) -> dict[str, pl.DataFrame]:
    """Two marts with the kinds of columns marts hold, and one without rows."""
    table_day = pl.DataFrame(
        {
            "table_id": ["T01", "T02", None],
            "gaming_day": [DAY] * 3,
            "wagers": pl.Series([seed, 2, 3], dtype=pl.UInt32),
            "decks": pl.Series([8, 6, 8], dtype=pl.Int8),
            "handle": pl.Series([Decimal("12.5000") * seed, Decimal("0.0001"), None], dtype=pl.Decimal(38, 4)),
            "levy": pl.Series([Decimal("1.2500"), None, Decimal("3")], dtype=MONEY),
            "started_at": pl.Series([dt.datetime(2026, 11, 1, 9, tzinfo=dt.UTC)] * 3),
            "hold_pct": [1.5, None, float(seed)],
            "flagged": [True, False, None],
        }
    )
    empty = pl.DataFrame(schema={"dealer_id": pl.String, "gaming_day": pl.Date, "coups": pl.UInt32})
    return {"marts.table_day": table_day, "marts.tie_frequency_by_dealer": empty}


def assert_same(got: dict[str, pl.DataFrame], expected: dict[str, pl.DataFrame]) -> None:
    assert got.keys() == expected.keys()
    for name, frame in expected.items():
        assert_frame_equal(got[name], frame)  # types too: Decimals, UInt32, the time zone


def run_folders(db: Path, shard: str) -> list[str]:
    """The runs' folders of a shard's day on the warehouse's store."""
    settings = Settings.of(db)
    below = f"partials/gaming_day={DAY}/shard={shard}"
    fs = object_store(settings)
    if fs is None:
        return sorted(path.name for path in (settings.local_folder / below).iterdir())
    fs.invalidate_cache()
    return sorted(path.rsplit("/", 1)[1] for path in fs.ls(f"{settings.warehouse_uri}/{below}"))


def check_round_trip_and_rerun(db: Path) -> None:
    first, second = marts(1), marts(2)
    partials.write(db, DAY, "s1", 2, first, "run-1")
    assert_same(partials.read(db, DAY, "s1", 2), first)
    partials.write(db, DAY, "s1", 2, second, "run-2")  # a rerun: in place of the first, whose files go
    assert_same(partials.read(db, DAY, "s1", 2), second)
    assert run_folders(db, "s1") == ["run-2"]
    partials.write(db, DAY, "s1", 2, first, "run-2")  # the same run again (a retried step)
    assert_same(partials.read(db, DAY, "s1", 2), first)
    assert run_folders(db, "s1") == ["run-2"]


def test_a_shards_marts_come_back_as_written_and_a_rerun_replaces_them(tmp_path):
    db = tmp_path / "banco.duckdb"
    check_round_trip_and_rerun(db)
    pointer = json.loads((tmp_path / "banco.iceberg" / "partials" / f"gaming_day={DAY}" / "shard=s1.json").read_text())
    assert pointer.keys() == {"run_id", "shards", "marts", "written_at"}
    assert (pointer["run_id"], pointer["shards"], pointer["marts"]) == ("run-2", 2, list(marts(1)))
    folder = tmp_path / "banco.iceberg" / "partials" / f"gaming_day={DAY}" / "shard=s1" / "run-2"
    assert sorted(path.name for path in folder.iterdir()) == [
        "marts.table_day.parquet",
        "marts.tie_frequency_by_dealer.parquet",
    ]
    assert not list(folder.parent.parent.glob(".*.tmp"))  # the pointer's temporary file is renamed


def test_a_run_that_fails_half_way_leaves_the_last_one_read(tmp_path):
    db = tmp_path / "banco.duckdb"
    partials.write(db, DAY, "s0", 2, marts(1), "run-1")
    unwritable = {**marts(2), "marts.broken": pl.DataFrame({"x": [object()]}, schema={"x": pl.Object})}
    with pytest.raises(pl.exceptions.ComputeError):  # Parquet holds no Python objects
        partials.write(db, DAY, "s0", 2, unwritable, "run-2")
    assert_same(partials.read(db, DAY, "s0", 2), marts(1))


def test_a_missing_or_mismatched_pointer_names_the_day_and_shard_in_one_line(tmp_path):
    db = tmp_path / "banco.duckdb"
    with pytest.raises(WarehouseError) as missing:
        partials.read(db, DAY, "s1", 2)
    assert str(missing.value) == "rebuild the shard marts of 2026-11-01: shard s1 has no marts stored for that day"
    partials.write(db, DAY, "s1", 3, marts(1), "run-1")
    with pytest.raises(WarehouseError) as mismatched:
        partials.read(db, DAY, "s1", 2)
    message = str(mismatched.value)
    assert message.startswith("rebuild the shard marts of 2026-11-01: ") and "s1" in message and "3 shards" in message
    assert "\n" not in message
    with pytest.raises(WarehouseError, match="shard s0 has no marts"):  # another shard's pointer is its own
        partials.read(db, DAY, "s0", 3)


def test_names_that_would_leave_the_folder_are_refused(tmp_path):
    db = tmp_path / "banco.duckdb"
    for run_id, shard in (("../x", "s0"), ("..", "s0"), ("run", "s0/../s1"), ("", "s0")):
        with pytest.raises(ValueError, match="names a file or folder"):
            partials.write(db, DAY, shard, 2, marts(1), run_id)
    assert not (tmp_path / "banco.iceberg").exists()


def test_on_s3_the_marts_round_trip_and_a_rerun_replaces_them(tmp_path, monkeypatch, s3_store):
    for name, value in s3_store.items():
        monkeypatch.setenv(name, value)
    db = tmp_path / "banco.duckdb"
    check_round_trip_and_rerun(db)
    with pytest.raises(WarehouseError, match="rebuild the shard marts of 2026-11-01: shard s0 has no marts"):
        partials.read(db, DAY, "s0", 2)
    assert not (tmp_path / "banco.iceberg").exists()  # all of it in the bucket
