"""Small real warehouses whose build holds a table-day back or fails as a whole, made honestly: accepted
rows whose sum overflows a mart's decimal, and a data file of the warehouse corrupted. Each test module
makes its own (they are changed)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl

from models.metrics.build import build
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest

#: The table-day whose count overflows: FILLS fills of FILL each, every one within its per-row bound,
#: together 2 x 10^16, past the count's CENTS (Decimal(18, 2): below 10^16).
TABLE, DAY = "T01", dt.date(2026, 11, 1)
FILLS, FILL = 20_000, "999999999999.99"  # the largest event amount (models/contract.py)


def built(root: Path) -> Path:
    """Two tables' two gaming days (2026-11-01 and -02) ingested and built; the warehouse file."""
    write_simulation(Simulation(shoes=8, tables=2, shoes_per_day=2, seed=9), root / "landing")
    db = root / "wh" / "banco.duckdb"
    ingest(db, [root / "landing"])
    build(db)
    return db


def overflow(db: Path, root: Path) -> None:
    """Ingest FILLS fills of FILL on TABLE's shift of DAY (each one accepted)."""
    (events,) = (root / "landing").glob("table_events_*.parquet")
    opened = (
        pl.read_parquet(events)
        .filter(table_id=TABLE, event="opener")
        .filter(pl.col("shift_id").str.starts_with(f"{DAY:%Y%m%d}"))
        .row(0, named=True)
    )
    at = opened["recorded_at"] + dt.timedelta(minutes=30)
    folder = root / "fills"
    folder.mkdir()
    fill = {"table_id": TABLE, "shift_id": opened["shift_id"], "event": "fill", "recorded_at": at.isoformat(),
            "amount": FILL, "denominations": None, "player_id": None, "employee_id": opened["employee_id"]}  # fmt: skip
    lines = (json.dumps({**fill, "event_id": f"big-fill-{n}"}) for n in range(FILLS))
    (folder / "table_events_fills.jsonl").write_text("\n".join(lines) + "\n")
    ingest(db, [folder])


def later_day(db: Path, root: Path) -> list[Path]:
    """Ingest a later gaming day (2026-11-05); the data files of core.rounds it added."""
    rounds = db.with_name(f"{db.stem}.iceberg") / "core" / "rounds" / "data"
    before = set(rounds.glob("*.parquet"))
    sim = Simulation(shoes=2, tables=2, shoes_per_day=1, seed=10, start=dt.date(2026, 11, 5))
    write_simulation(sim, root / "later")
    ingest(db, [root / "later"])
    return sorted(set(rounds.glob("*.parquet")) - before)


def corrupted(path: Path) -> bytes:
    """Overwrite a data file with bytes no reader takes for Parquet; returns what it held, to put back."""
    held = path.read_bytes()
    path.write_bytes(b"not a parquet file" * 64)
    return held
