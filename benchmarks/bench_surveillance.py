"""Surveillance's flags judged against the simulator's ground truth: false flags on a month without
advantage players, and the share of advantage players' days flagged by the hours they played.

Not a speed benchmark: it simulates two months of house-banked tables, ingests and builds each in a
temporary folder, and saves the tables (benchmarks/results/surveillance.json) and the plot
(docs/surveillance-power.svg) that docs/surveillance.md shows.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import time
from pathlib import Path

import altair as alt
import polars as pl

from benchmarks.report import RESULTS, Row, publish, quick_requested
from models.game.games import Game
from models.metrics.build import build
from models.simulate.config import Population, Simulation
from models.simulate.run import write_simulation
from models.warehouse.ingest import ingest
from models.warehouse.store import read

PLOT = Path(__file__).resolve().parents[1] / "docs" / "surveillance-power.svg"
#: Six tables of the house-banked games, eight shoes a day, for thirty days.
HOUSE_GAMES = (Game.PUNTO_BANCO, Game.SUPER6, Game.EZ_BACCARAT)
DAYS = 30
#: `--quick`: five days of each month, its figures printed and saved as results/surveillance.quick.json (no plot).
QUICK_DAYS = 5
#: Hours an advantage player was watched on a day (rated at a house-banked table), in bins.
HOURS = [0.5, 1, 2, 4]
HOUR_LABELS = ["under 0.5 h", "0.5 to 1 h", "1 to 2 h", "2 to 4 h", "4 h or more"]


def month(root: Path, share: float, seed: int, days: int = DAYS) -> tuple[Path, Path]:
    """A month dealt with `share` of advantage players, ingested and built; (warehouse, pool file)."""
    sim = Simulation(
        shoes=days * 6 * 8, tables=6, shoes_per_day=8, games=HOUSE_GAMES, seed=seed,
        start=dt.date(2026, 11, 1), population=Population(advantage_share=share),
    )  # fmt: skip
    summary = write_simulation(sim, root / "landing")
    db = root / "banco.duckdb"
    ingest(db, [root / "landing"])
    build(db)
    return db, summary.players


def marts(db: Path) -> dict[str, pl.DataFrame]:
    con = read(db)
    try:
        names = ("surveillance_sessions", "surveillance_player_day", "surveillance_flags", "player_sessions")
        return {name: con.sql(f"SELECT * FROM marts.{name}").pl() for name in names}
    finally:
        con.close()


def false_flags(tables: dict[str, pl.DataFrame], days: int = DAYS) -> dict:
    """How the tests behave when nobody has an advantage: the p-values' tails and the flags."""
    sessions, days, flags = (tables[f"surveillance_{name}"] for name in ("sessions", "player_day", "flags"))
    tested, tested_days = sessions["p_value"].drop_nulls(), days["p_value"].drop_nulls()
    timing = flags.filter(rule="edge_timing")
    return {
        "tested_sessions": tested.len(),
        "sessions_p_at_most_0.05": float((tested <= 0.05).mean()),
        "sessions_p_at_most_0.01": float((tested <= 0.01).mean()),
        "tested_player_days": tested_days.len(),
        "player_days_p_at_most_0.05": float((tested_days <= 0.05).mean()),
        "player_days_p_at_most_0.01": float((tested_days <= 0.01).mean()),
        "gaming_days": days,
        "days_with_a_timing_flag": timing["gaming_day"].n_unique(),
        "timing_flags": timing.height,
        "zender_flags": flags.filter(rule="zender").height,
    }


def watched_hours(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Per player and gaming day: hours rated at tables with edges (the surveyed ratings' minutes)."""
    key = ["player_id", "table_id", "gaming_day", "session"]
    minutes = tables["player_sessions"].select(*key, "minutes")
    return (
        tables["surveillance_sessions"]
        .select(key)
        .join(minutes, on=key, how="left")
        .group_by("player_id", "gaming_day")
        .agg(hours=pl.col("minutes").sum() / 60)
    )


def power(tables: dict[str, pl.DataFrame], pool: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """Per advantage kind and bin of hours watched on a day: player-days and the share flagged (by
    either rule); per kind over the month; and the ordinary players' false flags in the same month."""
    kinds = pool.select("player_id", "kind")
    flagged = tables["surveillance_flags"].filter(scope="player_day").select("player_id", "gaming_day").unique()
    days = (
        watched_hours(tables)
        .join(kinds, on="player_id", how="left")
        .join(flagged.with_columns(flagged=pl.lit(True)), on=["player_id", "gaming_day"], how="left")
        .with_columns(
            pl.col("flagged").fill_null(False), hours_bin=pl.col("hours").bin_intervals(HOURS, labels=HOUR_LABELS)
        )
    )
    advantage = days.filter(pl.col("kind") != "ordinary")
    by_hours = (
        advantage.group_by("kind", "hours_bin")
        .agg(player_days=pl.len(), flagged=pl.col("flagged").sum(), share_flagged=pl.col("flagged").mean())
        .sort("kind", "hours_bin")
    )
    by_kind = (
        advantage.group_by("kind", "player_id")
        .agg(hours=pl.col("hours").sum(), days=pl.len(), days_flagged=pl.col("flagged").sum())
        .group_by("kind")
        .agg(
            players=pl.len(),
            hours=pl.col("hours").sum(),
            player_days=pl.col("days").sum(),
            share_of_days_flagged=pl.col("days_flagged").sum() / pl.col("days").sum(),
            players_flagged_at_least_once=(pl.col("days_flagged") > 0).sum(),
        )
        .sort("kind")
    )
    rules = (
        tables["surveillance_flags"]
        .filter(scope="player_day")
        .join(kinds, on="player_id", how="left")
        .group_by("kind")
        .agg(**{f"days_flagged_by_{rule}": (pl.col("rule") == rule).sum() for rule in ("edge_timing", "zender")})
    )
    by_kind = by_kind.join(rules, on="kind", how="left").fill_null(0)
    ordinary = days.filter(kind="ordinary")
    false = {"ordinary_player_days": ordinary.height, "ordinary_flagged": int(ordinary["flagged"].sum())}
    return by_hours, by_kind, false


def plot(by_hours: pl.DataFrame) -> None:
    chart = (
        alt.Chart(by_hours.with_columns(pl.col("hours_bin").cast(pl.String)), width=420, height=240)
        .mark_line(point=True)
        .encode(
            x=alt.X("hours_bin:N", sort=HOUR_LABELS, title="hours watched on the day"),
            y=alt.Y("share_flagged:Q", title="share of player-days flagged", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("kind:N", title="advantage player"),
            tooltip=["kind", "hours_bin", "player_days", "flagged"],
        )
        .properties(title="Advantage players' days flagged, by hours played (a simulated month)")
    )
    chart.save(str(PLOT))


def quick_rows(seconds: float, by_kind: pl.DataFrame, ordinary: dict) -> list[Row]:
    """The quick run's figures: its time, and how many days it flags of those who had an edge and of
    those who did not (fixed seeds: these move only when the code does)."""
    power = float(by_kind["share_of_days_flagged"].mean())
    false = ordinary["ordinary_flagged"] / max(1, ordinary["ordinary_player_days"])
    return [
        Row(f"two {QUICK_DAYS}-day months simulated, ingested, built", seconds, seconds, "s"),
        Row("advantage players' days flagged (mean of kinds)", power, power, "of days", "", True),
        Row("ordinary players' days flagged", false, false, "of days"),
    ]


def main(quick: bool = False) -> None:
    started = time.perf_counter()
    days = QUICK_DAYS if quick else DAYS
    with tempfile.TemporaryDirectory(prefix="bench-surveillance-") as work:
        null_db, _ = month(Path(work) / "null", 0.0, seed=31, days=days)
        null = false_flags(marts(null_db), days)
        injected_db, pool_file = month(Path(work) / "injected", 0.03, seed=32, days=days)
        tables = marts(injected_db)
        by_hours, by_kind, ordinary = power(tables, pl.read_parquet(pool_file))
    seconds = time.perf_counter() - started
    if quick:
        baseline = "none, not a speed benchmark (each figure is its own baseline)"
        publish("surveillance", "Surveillance against the simulator's truth", quick_rows(seconds, by_kind, ordinary),
                baseline, quick=True)  # fmt: skip
        return
    plot(by_hours)
    pl.Config.set_tbl_rows(40)
    print(f"A month without advantage players (6 house-banked tables, {days} days):")
    for name, value in null.items():
        print(f"  {name:<30}{value:.4f}" if isinstance(value, float) else f"  {name:<30}{value}")
    print("\nA month with 3 % advantage players: their days flagged, by hours watched")
    print(by_hours)
    print(by_kind)
    print(f"  ordinary players' days flagged in that month: {ordinary['ordinary_flagged']} of "
          f"{ordinary['ordinary_player_days']}")  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    payload = {
        "benchmark": "surveillance",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "seconds": seconds,
        "null_month": null,
        "injected_month": {
            "by_hours": by_hours.with_columns(pl.col("hours_bin").cast(pl.String)).to_dicts(),
            "by_kind": by_kind.to_dicts(),
            **ordinary,
        },
    }
    (RESULTS / "surveillance.json").write_text(json.dumps(payload, indent=2, default=str))
    print(f"saved {RESULTS / 'surveillance.json'} and {PLOT}")


if __name__ == "__main__":
    main(quick_requested())
