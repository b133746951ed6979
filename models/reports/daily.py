"""The morning report: one gaming day on one page. Hold against theo by table, the surveillance flags by
rule (player ids only), the table-shifts the count leaves unexplained and the integrity counts, each
section with a link to the dashboard page that shows it (docs/reports.md#the-morning-report)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb
import polars as pl

from models.alerts.message import Message
from models.alerts.rules import Rule
from models.count_status import UNRECONCILED
from models.gaming_day import GamingDay
from models.ratios import quarantined_share, ratio
from models.warehouse import reader, schema
from models.warehouse.store import WarehouseError

WHERE = "banco report"
#: Each section's dashboard page, by its Streamlit URL path (dashboards/pages.py PAGES, file name less .py).
PAGES = {"tables": "tables", "flags": "surveillance", "shifts": "count_room", "integrity": "integrity"}
TABLES = (
    "SELECT table_id, game, handle, house_win, theo, win_over_handle, theo_over_handle, quarantined_coups, "
    f"quarantined_handle FROM {schema.MARTS_TABLE_DAY} WHERE gaming_day = $day ORDER BY table_id, game"
)
FLAGS = f"SELECT rule, player_id FROM {schema.MARTS_SURVEILLANCE_FLAGS} WHERE gaming_day = $day"
SHIFTS = (
    "SELECT table_id, shift_id, game, status, attribution FROM marts.table_shift "
    f"WHERE gaming_day = $day AND status = '{UNRECONCILED}' ORDER BY table_id, opened_at, shift_id"
)
#: A rejected row's gaming day: when its raw text says it was played (a table event recorded), else ingested.
_PLAYED = (
    "(timezone($zone, coalesce(try_cast(CASE WHEN json_valid(raw) THEN json_extract_string(raw, '$.{field}') END "
    "AS TIMESTAMPTZ), ingested_at)) - to_hours($opens))::DATE"
)
#: The rows quarantined for the day, by kind and reason, as the Integrity page counts them.
QUARANTINED = " UNION ALL ".join(
    f"SELECT '{kind}' AS kind, reason, count(*) AS rows FROM {table} "
    f"WHERE {_PLAYED.format(field=field)} = $day GROUP BY reason"
    for kind, table, field in (
        ("rounds", schema.QUARANTINE_ROUNDS, "started_at"),
        ("bets", schema.QUARANTINE_BETS, "started_at"),
        ("table events", schema.QUARANTINE_TABLE_EVENTS, "recorded_at"),
    )
)
FAILED_FILES = f"SELECT count(*) FROM {schema.INGEST_LOG} WHERE status = 'failed'"


def hold_by_table(days: pl.DataFrame) -> pl.DataFrame:
    """marts.table_day's rows of one day (TABLES) as the report shows them, with the day's total last
    (level 'table' or 'total'): hold and theo hold on the total pooled from its sums."""
    tables = days.select(
        pl.lit("table").alias("level"), "table_id", "game", "handle", "house_win", "theo",
        pl.col("win_over_handle").alias("hold"), pl.col("theo_over_handle").alias("theo_hold"),
    )  # fmt: skip
    total = days.select(
        pl.lit("total").alias("level"), pl.lit(None, pl.String).alias("table_id"),
        pl.lit(None, pl.String).alias("game"), pl.col("handle").sum(), pl.col("house_win").sum(),
        pl.col("theo").sum(),
    ).with_columns(hold=ratio("house_win", "handle"), theo_hold=ratio("theo", "handle"))  # fmt: skip
    return pl.concat([tables, total], how="vertical_relaxed")


def flags_by_rule(flags: pl.DataFrame) -> pl.DataFrame:
    """The day's flags (FLAGS) per rule: how many, and the players flagged (ids, sorted), no names or amounts."""
    return (
        flags.group_by("rule")
        .agg(flags=pl.len().cast(pl.Int64), players=pl.col("player_id").unique().sort())
        .sort("rule")
    )


@dataclass(frozen=True)
class Integrity:
    """The day's integrity counts: rows quarantined by kind and reason, the coups quarantined at its tables
    and their share of the handle, and the files the ingest could not load (of every day)."""

    quarantined: pl.DataFrame  # kind, reason, rows
    quarantined_coups: int
    quarantined_share: float | None
    failed_files: int


def integrity(quarantined: pl.DataFrame, days: pl.DataFrame, failed_files: int) -> Integrity:
    """The integrity counts from the day's QUARANTINED rows, its marts.table_day rows and the failed files."""
    return Integrity(
        quarantined=quarantined.sort("kind", "reason"),
        quarantined_coups=int(days["quarantined_coups"].sum() or 0),
        quarantined_share=quarantined_share(days["quarantined_handle"].sum(), days["handle"].sum()),
        failed_files=failed_files,
    )


@dataclass(frozen=True)
class DailyReport:
    """One gaming day's figures, where they came from and when they were made."""

    property_name: str
    gaming_day: dt.date
    snapshot: str  # the serving snapshot's log commit (meta.snapshots)
    made_at: dt.datetime  # aware, in the gaming day's zone
    stale: str | None  # why the marts lag the warehouse, if they do
    currency: str
    dashboard_url: str
    tables: pl.DataFrame  # hold_by_table
    flags: pl.DataFrame  # flags_by_rule
    shifts: pl.DataFrame  # SHIFTS
    integrity: Integrity

    @property
    def title(self) -> str:
        return f"Morning report, gaming day {self.gaming_day}"

    def link(self, section: str) -> str:
        """The dashboard page of `section` (a key of PAGES)."""
        return f"{self.dashboard_url.rstrip('/')}/{PAGES[section]}"


def file_name(day: dt.date) -> str:
    return f"morning-report-{day}.pdf"


def read(
    db: Path,
    day: dt.date,
    *,
    property_name: str,
    gaming_day: GamingDay,
    currency: str,
    dashboard_url: str,
    now: dt.datetime | None = None,
) -> DailyReport:
    """The report of `day` from the serving snapshot of `db`; a WarehouseError of one line when the day has
    no coups at its tables or the warehouse has no marts yet."""
    from models.alerts.evaluate import snapshot
    from models.metrics import staleness

    run = _runner(db)
    days = run(TABLES, {"day": day}, lambda rel: rel.pl())
    if days.is_empty():
        raise WarehouseError(f"no coups on gaming day {day} in the warehouse at {db}: nothing to report")
    zone = {"day": day, "zone": gaming_day.timezone, "opens": gaming_day.start_hour}
    quarantined = run(QUARANTINED, zone, lambda rel: rel.pl())
    held = run(staleness.HELD_BACK, None, lambda rel: rel.fetchall(), missing=[])
    return DailyReport(
        property_name=property_name,
        gaming_day=day,
        snapshot=snapshot(db),
        made_at=(now or dt.datetime.now(dt.UTC)).astimezone(ZoneInfo(gaming_day.timezone)),
        stale=staleness.warning(staleness.failure(db), held),
        currency=currency,
        dashboard_url=dashboard_url,
        tables=hold_by_table(days),
        flags=flags_by_rule(run(FLAGS, {"day": day}, lambda rel: rel.pl())),
        shifts=run(SHIFTS, {"day": day}, lambda rel: rel.pl()),
        integrity=integrity(quarantined, days, run(FAILED_FILES, None, lambda rel: rel.fetchall()[0][0])),
    )


def _runner(db: Path) -> Callable:
    """reader.run on `db`'s serving snapshot; a missing table is `missing`, else a one-line WarehouseError."""

    def run(sql: str, params: dict | None, fetch: Callable, missing: object = None):
        try:
            return reader.run(db, sql, fetch, where=WHERE, params=params, user=False)
        except duckdb.CatalogException:  # ingested but never built, or built before a table existed
            if missing is not None:
                return missing
            raise WarehouseError(f"the warehouse at {db} has no marts yet: run `banco build`") from None

    return run


#: Each section's title, as the page and the email name it.
SECTIONS = {
    "tables": "Hold against theo by table",
    "flags": "Surveillance flags",
    "shifts": "Unexplained table-shifts",
    "integrity": "Integrity counts",
}


def message(report: DailyReport, rule: Rule, to: tuple[str, ...], pdf: bytes) -> Message:
    """The email of `report` for `rule`: the property and the day in the subject, each section's link in the
    body (no figure: those stay in the attached page), the page attached."""
    return Message(
        rule=rule.name,
        severity=rule.severity,
        subject=f"{report.property_name}: morning report, gaming day {report.gaming_day}",
        facts=tuple({"section": title, "page": report.link(section)} for section, title in SECTIONS.items()),
        gaming_day=report.gaming_day,
        snapshot=report.snapshot,
        link=report.dashboard_url,
        recipients=to,
        attachments=((file_name(report.gaming_day), pdf, "application/pdf"),),
    )
