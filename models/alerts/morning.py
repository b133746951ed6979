"""The morning report as the alerts send it: the gaming day's figures read from the serving snapshot, and
the email that carries its page to a morning-report rule's recipients (docs/alerts.md#the-morning-report)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import duckdb

from models.alerts.message import Message
from models.alerts.rules import Rule
from models.count_status import UNRECONCILED
from models.gaming_day import GamingDay
from models.reports.daily import DailyReport, file_name, flags_by_rule, hold_by_table, integrity
from models.warehouse import reader, schema
from models.warehouse.store import WarehouseError

WHERE = "morning report"
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


def read(
    db: Path,
    day: dt.date,
    *,
    property_name: str,
    gaming_day: GamingDay,
    currency: str,
    dashboard_url: str,
    snapshot: str,
    stale: str | None = None,
    now: dt.datetime | None = None,
) -> DailyReport:
    """The report of `day` from the serving snapshot of `db` (`snapshot`: its log commit, `stale`: why its
    marts lag, both named on the page); a WarehouseError of one line when the day has no coups or no marts."""
    run = _runner(db)
    days = run(TABLES, {"day": day}, lambda rel: rel.pl())
    if days.is_empty():
        raise WarehouseError(f"no coups on gaming day {day} in the warehouse at {db}: nothing to report")
    zone = {"day": day, "zone": gaming_day.timezone, "opens": gaming_day.start_hour}
    quarantined = run(QUARANTINED, zone, lambda rel: rel.pl())
    return DailyReport(
        property_name=property_name,
        gaming_day=day,
        snapshot=snapshot,
        made_at=(now or dt.datetime.now(dt.UTC)).astimezone(ZoneInfo(gaming_day.timezone)),
        stale=stale,
        currency=currency,
        dashboard_url=dashboard_url,
        tables=hold_by_table(days),
        flags=flags_by_rule(run(FLAGS, {"day": day}, lambda rel: rel.pl())),
        shifts=run(SHIFTS, {"day": day}, lambda rel: rel.pl()),
        integrity=integrity(quarantined, days, run(FAILED_FILES, None, lambda rel: rel.fetchall()[0][0])),
    )


def _runner(db: Path) -> Callable:
    """reader.run on `db`'s serving snapshot; a missing table a one-line WarehouseError."""

    def run(sql: str, params: dict | None, fetch: Callable):
        try:
            return reader.run(db, sql, fetch, where=WHERE, params=params, user=False)
        except duckdb.CatalogException:  # ingested but never built, or built before a table existed
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
