"""`banco simulate` as a user runs it, in every output format."""

import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from models.contract import BET_SCHEMA, ROUND_SCHEMA

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


def banco(*args):
    return subprocess.run([BANCO, *args], capture_output=True, text=True, timeout=300)


def _read(path: Path) -> pl.DataFrame:
    if path.suffix == ".parquet":
        return pl.read_parquet(path)
    if path.suffix == ".csv":
        return pl.read_csv(path, infer_schema=False)
    return pl.read_ndjson(path, infer_schema_length=None)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
@pytest.mark.slow
def test_simulate_writes_round_logs(tmp_path, fmt):
    result = banco(
        "simulate", "--shoes", "12", "--decks", "6", "--game", "punto_banco,baccarat_banque", "--seed", "4",
        "--tables", "2", "--start", "2026-03-01", "--timezone", "Europe/Paris", "--out", str(tmp_path),
        "--format", fmt, "--misdeal-rate", "0.02",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("simulated 12 shoes:")
    rounds = _read(next(tmp_path.glob(f"rounds_*.{fmt}")))
    bets = _read(next(tmp_path.glob(f"bets_*.{fmt}")))
    faults = _read(next(tmp_path.glob(f"_faults/faults_*.{fmt}")))
    assert list(rounds.columns) == list(ROUND_SCHEMA)
    assert list(bets.columns) == list(BET_SCHEMA)
    assert faults.height > 0
    assert not list(tmp_path.glob(".*partial"))
    first = rounds.row(0, named=True)
    if fmt == "parquet":
        assert rounds.schema["started_at"] == pl.Datetime("us", "Europe/Paris")
        assert isinstance(bets["amount"][0], Decimal)
    else:
        assert first["started_at"].startswith("2026-03-01T") and first["started_at"].endswith("+01:00")
        assert Decimal(str(bets["amount"][0])) > 0
    assert set(rounds["game"]) == {"punto_banco", "baccarat_banque"}


@pytest.mark.slow
def test_same_command_same_files(tmp_path):
    args = ["simulate", "--shoes", "5", "--seed", "8", "--format", "csv"]
    assert banco(*args, "--out", str(tmp_path / "a")).returncode == 0
    assert banco(*args, "--out", str(tmp_path / "b")).returncode == 0
    files = [path for path in (tmp_path / "a").rglob("*") if path.is_file()]
    assert files
    for path in files:
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()


def test_rounds_only(tmp_path):
    assert banco("simulate", "--shoes", "2", "--no-bets", "--out", str(tmp_path)).returncode == 0
    assert [path.name.split("_")[0] for path in tmp_path.iterdir() if path.is_file()] == ["rounds"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shoes", "0"], "shoes must be at least 1"),
        (["--shoes", "3", "--decks", "0"], "decks"),
        (["--shoes", "3", "--game", "bunco"], "unknown game 'bunco'"),
        (["--shoes", "3", "--start", "yesterday"], "not a date"),
        (["--shoes", "3", "--misdeal-rate", "2"], "between 0 and 1"),
        (["--shoes", "3", "--format", "xlsx"], "invalid choice"),
        (["--shoes", "3", "--seats", "20"], "seats"),
        (["--shoes", "3", "--timezone", "Nowhere/Town"], "time zone"),
        (["--shoes", "3", "--punter-on-5", "sometimes"], "'sometimes': use draw, stand, mixed, equilibrium or a"),
        (["--shoes", "3", "--banker-optional", "1.5"], "'1.5': a probability is between 0 and 1"),
        (["--shoes", "3", "--banque-solution", "best"], "invalid choice: 'best'"),
        (["--shoes", "3", "--strategy-players", "-1"], "a whole number from 0"),
    ],
)
def test_bad_arguments(tmp_path, args, message):
    result = banco("simulate", *args, "--out", str(tmp_path))
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.slow
def test_simulate_plays_the_equilibrium_with_strategy_players_labelled(tmp_path):
    result = banco(
        "simulate", "--shoes", "16", "--game", "chemin_de_fer,baccarat_banque", "--tables", "2",
        "--shoes-per-day", "8", "--punter-on-5", "equilibrium", "--banker-optional", "equilibrium",
        "--banque-solution", "correlated", "--strategy-players", "2", "--out", str(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    kinds = pl.read_parquet(next(tmp_path.glob("_players/players_seed0.parquet")))["kind"].value_counts()
    counts = dict(zip(kinds["kind"], kinds["count"], strict=True))
    assert {kind: counts.get(kind) for kind in ("draws_on_5", "stands_on_5", "equilibrium_player")} == dict.fromkeys(
        ("draws_on_5", "stands_on_5", "equilibrium_player"), 2
    )


@pytest.mark.slow
def test_unwritable_output_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = banco("simulate", "--shoes", "1", "--out", str(blocker / "sub"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    result = banco("simulate", "--shoes", "1", "--out", str(blocker))
    assert result.returncode == 2 and "is a file: name a folder" in result.stderr
    assert blocker.read_text() == "not a folder"


@pytest.mark.slow
def test_simulate_writes_table_events_unless_told_not_to(tmp_path):
    common = ["simulate", "--shoes", "16", "--tables", "2", "--shoes-per-day", "8", "--seed", "5"]
    result = banco(*common, "--out", str(tmp_path / "on"), "--count-fault-rate", "1")
    assert result.returncode == 0, result.stderr
    events = pl.read_parquet(next((tmp_path / "on").glob("table_events_*.parquet")))
    labels = pl.read_parquet(next((tmp_path / "on" / "_faults").glob("count_faults_*.parquet")))
    assert {"opener", "closer", "drop"} <= set(events["event"])
    shifts = events.select("table_id", "shift_id").unique()
    assert 0 < labels.height <= shifts.height  # every shift picked; a fault with no coup to fall on is not played
    result = banco(*common, "--out", str(tmp_path / "off"), "--no-table-events")
    assert result.returncode == 0, result.stderr
    assert not list((tmp_path / "off").glob("table_events_*"))


def test_shoes_past_tomorrow_are_written_with_a_warning_that_ingest_will_refuse_them(tmp_path):
    done = banco("simulate", "--shoes", "2", "--start", "2099-01-01", "--no-bets", "--out", str(tmp_path / "late"))
    assert done.returncode == 0 and list((tmp_path / "late").glob("rounds_*"))
    assert done.stderr.strip().splitlines() == [
        "banco simulate: warning: the last gaming day, 2099-01-01, is past tomorrow: an ingest today quarantines its "
        "rows as bad_type (a time past a day after the ingest); give an earlier --start"
    ]
    assert banco("simulate", "--shoes", "2", "--no-bets", "--out", str(tmp_path / "now")).stderr == ""
