"""`banco build` and the dashboard reckon the same gaming days from BANCO_TIMEZONE: in Macau (UTC+8),
where 06:00 UTC is 14:00, in the middle of play, each day's coups in the marts are the rounds the
dashboard's filter picks for that day."""

import datetime as dt
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from dashboards.filters import Filters
from models.simulate.config import Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import read

BANCO = Path(sys.executable).with_name("banco")
MACAU = "Asia/Macau"
#: Two days of two tables whose play opens at 06:00 in Macau and lasts past 14:00 there (06:00 UTC).
SIM = Simulation(shoes=32, tables=2, shoes_per_day=8, start=dt.date(2026, 11, 1), seed=30, timezone=MACAU)
DAYS = [SIM.start, SIM.start + dt.timedelta(days=1)]


@pytest.mark.slow
def test_banco_build_and_the_dashboard_put_the_same_coups_in_the_same_gaming_days(tmp_path, monkeypatch):
    write_simulation(SIM, tmp_path / "landing")
    db = tmp_path / "banco.duckdb"
    ingest(db, [tmp_path / "landing"])
    monkeypatch.setenv("BANCO_TIMEZONE", MACAU)  # the casino's setting, for the build and the dashboard alike
    built = subprocess.run([str(BANCO), "build", "--db", str(db)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    con = read(db)
    try:
        opens = dt.datetime.combine(SIM.start, dt.time(6), ZoneInfo(MACAU))
        halves = (
            "SELECT count(*) FILTER (started_at < $mid), count(*) FILTER (started_at >= $mid), "
            "(SELECT count(*) FROM core.rounds) FROM core.rounds WHERE started_at >= $opens AND started_at < $closes"
        )
        mid = dt.datetime.combine(SIM.start, dt.time(6), dt.UTC)
        params = {"mid": mid, "opens": opens, "closes": opens + dt.timedelta(days=1)}
        before, after, coups = con.sql(halves, params=params).fetchall()[0]
        assert before and after  # the first gaming day's play goes on across 06:00 UTC
        marts = dict(con.sql("SELECT gaming_day, sum(coups)::INT FROM marts.tie_frequency GROUP BY ALL").fetchall())
        picked = {}
        for day in sorted({*DAYS, *marts}):
            where, params = Filters(day, day).where("round")
            picked[day] = con.sql(f"SELECT count(*) FROM core.rounds WHERE {where}", params=params).fetchall()[0][0]
    finally:
        con.close()
    assert marts == picked
    assert sorted(marts) == DAYS and sum(marts.values()) == coups
