"""One step of the marts benchmark's nightly cycle, in a process of its own so that its peak memory
is its own: `python -m benchmarks.marts_step DB STEP` prints a JSON line (seconds, stages, coups)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from models.metrics.build import build
from models.warehouse.ingest import ingest
from models.warehouse.store import read


def main(db: Path, step: str) -> dict:
    if step == "new_day":  # what a nightly run brings: the last day's logs, ingested first
        ingest(db, [db.parent / "last"])
    start = time.perf_counter()
    if step == "same_day":
        con = read(db)
        (last,) = con.sql("SELECT max(gaming_day) FROM meta.built_days").fetchall()[0]
        con.close()
        built = build(db, days=[last])
    else:
        built = build(db, every_day=step == "every_day")
    seconds = time.perf_counter() - start
    coups = built.get("marts.tie_frequency") and _coups(db, built.computed)
    return {"seconds": seconds, "stages": built.seconds, "computed": len(built.computed), "coups": coups or 0}


def _coups(db: Path, days) -> int:
    con = read(db)
    try:
        listed = ", ".join(f"DATE '{day}'" for day in days)
        return con.sql(f"SELECT sum(coups) FROM marts.tie_frequency WHERE gaming_day IN ({listed})").fetchall()[0][0]
    finally:
        con.close()


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), sys.argv[2])))
