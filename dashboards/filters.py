"""The filters every page shares (gaming days, tables, games, dealers), drawn once in the sidebar,
and the WHERE clauses that apply them: placeholders only, the values travel as parameters."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl
import streamlit as st

from dashboards import query
from models import display
from models.gaming_day import GamingDay
from models.settings import Settings
from models.warehouse import schema

#: Which columns a relation has decides how a filter reaches it: "stint" rows carry dealer_id, table_id,
#: gaming_day and game (marts.dealer_pace); "day" rows a gaming_day alone (marts.player_bets), which
#: only the days reach.
Grain = Literal["table_day", "shoe", "dealer", "stint", "day", "round", "quarantine", "quarantined_event", "month"]
DEALT_SHOES = f"SELECT DISTINCT table_id, shoe_id FROM {schema.CORE_ROUNDS} WHERE list_contains($dealers, dealer_id)"
DEALT_DAYS = (
    f"SELECT table_id, gaming_day FROM {schema.MARTS_SHOE_SUMMARY} WHERE (table_id, shoe_id) IN ({DEALT_SHOES})"
)
#: The dealers who dealt at the filtered tables (how a table filter reaches rows keyed by dealer).
TABLES_DEALERS = f"SELECT dealer_id FROM {schema.CORE_ROUNDS} WHERE list_contains($tables, table_id)"
FILTERED_SHOES = f"SELECT table_id, shoe_id FROM {schema.MARTS_SHOE_SUMMARY} WHERE {{where}}"
#: What the sidebar offers: the days, tables and games of the shoes, the dealers named on the coups.
DAYS = f"SELECT min(gaming_day) AS first, max(gaming_day) AS last FROM {schema.MARTS_SHOE_SUMMARY}"
GAMES = f"SELECT DISTINCT table_id, game FROM {schema.MARTS_SHOE_SUMMARY} ORDER BY ALL"
DEALERS = (
    f"SELECT DISTINCT dealer_id FROM {schema.MARTS_TIE_FREQUENCY_BY_DEALER} WHERE dealer_id IS NOT NULL ORDER BY 1"
)
BETS = f"SELECT count(*) AS n FROM {schema.CORE_BETS}"


def gaming_day() -> GamingDay:
    """The gaming day the marts were built with (BANCO_TIMEZONE, BANCO_DAY_START_HOUR, as for
    `banco build` and Dagster): rounds are picked by the instants its days span."""
    return Settings.from_env().gaming_day


#: The quarantine grains, each with the field of its raw text that says when the row was played.
QUARANTINED = {"quarantine": "started_at", "quarantined_event": "recorded_at"}


def raw_field(name: str, alias: str = "") -> str:
    """SQL for a field of a quarantined row's `raw` text; null where that text is no JSON object (a
    line the reader could not make a row of keeps its own text)."""
    raw = f"{alias}.raw" if alias else "raw"
    return f"CASE WHEN json_valid({raw}) THEN json_extract_string({raw}, '$.{name}') END"


@dataclass(frozen=True)
class Filters:
    """What the sidebar selects; an empty tuple selects all."""

    start: dt.date
    end: dt.date
    tables: tuple[str, ...] = ()
    games: tuple[str, ...] = ()
    dealers: tuple[str, ...] = ()
    every_day: bool = False

    def frame(self, sql: str, grain: Grain) -> pl.DataFrame:
        """`sql` read as a frame, its `{where}` filled with the clause for a relation of `grain`."""
        where, params = self.where(grain)
        return query.frame(sql.format(where=where), params)

    def where(self, grain: Grain, alias: str = "") -> tuple[str, dict[str, Any]]:
        """A WHERE clause (without the keyword) for a relation of `grain`, and its parameters."""
        a = f"{alias}." if alias else ""
        clauses, params = [], {}
        if self.every_day:  # every day the warehouse holds: no clause, so scans skip a join
            pass
        elif grain == "round":
            clauses.append(f"{a}started_at >= $since AND {a}started_at < $until")
            params |= dict(zip(("since", "until"), self.instants(), strict=True))
        elif grain in QUARANTINED:  # a rejected row without a readable time is shown whatever the days
            played = f"try_cast({raw_field(QUARANTINED[grain], alias)} AS TIMESTAMPTZ)"
            clauses.append(f"({played} IS NULL OR ({played} >= $since AND {played} < $until))")
            params |= dict(zip(("since", "until"), self.instants(), strict=True))
        elif grain == "month":  # marts.tenure_fit: one row per table, game and month
            clauses.append(f"{a}period BETWEEN date_trunc('month', $start::DATE) AND $end")
            params |= {"start": self.start, "end": self.end}
        else:
            clauses.append(f"{a}gaming_day BETWEEN $start AND $end")
            params |= {"start": self.start, "end": self.end}
        if grain == "day":
            return " AND ".join(clauses) or "TRUE", params
        if self.tables:
            if grain == "dealer":
                clauses.append(f"{a}dealer_id IN ({TABLES_DEALERS})")
            else:
                clauses.append(f"list_contains($tables, {a}table_id)")
            params["tables"] = list(self.tables)
        if self.games and grain not in QUARANTINED:
            clauses.append(f"list_contains($games, {a}game)")
            params["games"] = list(self.games)
        if self.dealers and grain not in (*QUARANTINED, "month"):
            clauses.append(
                {
                    "round": f"list_contains($dealers, {a}dealer_id)",
                    "dealer": f"list_contains($dealers, {a}dealer_id)",
                    "stint": f"list_contains($dealers, {a}dealer_id)",
                    "shoe": f"({a}table_id, {a}shoe_id) IN ({DEALT_SHOES})",
                    "table_day": f"({a}table_id, {a}gaming_day) IN ({DEALT_DAYS})",
                }[grain]
            )
            params["dealers"] = list(self.dealers)
        return " AND ".join(clauses) or "TRUE", params

    def narrowed(self) -> bool:
        """Whether a table, game or dealer is picked: then rows keyed by gaming day alone cannot follow."""
        return bool(self.tables or self.games or self.dealers)

    def shoes(self, alias: str = "") -> tuple[str, dict[str, Any]]:
        """A WHERE clause keeping the rows of a relation keyed by table_id and shoe_id (core.bets,
        core.shoes) that belong to the filtered shoes; none at all when nothing is filtered."""
        where, params = self.where("shoe")
        if where == "TRUE":
            return where, params
        a = f"{alias}." if alias else ""
        return f"({a}table_id, {a}shoe_id) IN ({FILTERED_SHOES.format(where=where)})", params

    def instants(self) -> tuple[dt.datetime, dt.datetime]:
        """The UTC instants the gaming days from `start` to `end` span."""
        return gaming_day().bounds(self.start, self.end)


def sidebar() -> Filters:
    """Draw the shared filters in the sidebar; their state is kept across pages."""
    bounds = query.frame(DAYS).row(0)
    if bounds[0] is None:
        raise query.Unavailable("The warehouse holds no coups yet.", "banco ingest PATH && banco build")
    first, last = bounds
    shoes = query.frame(GAMES)
    dealers = query.frame(DEALERS)
    bar = st.sidebar
    bar.header("Filters")
    days = bar.date_input("Gaming days", value=(first, last), min_value=first, max_value=last, key="days")
    start, end = (days[0], days[-1]) if isinstance(days, tuple | list) and days else (first, last)
    tables = bar.multiselect(
        "Tables", shoes["table_id"].unique().sort().to_list(), key="tables", placeholder="All tables"
    )
    games = bar.multiselect(
        "Games", shoes["game"].unique().sort().to_list(), format_func=display.name, key="games", placeholder="All games"
    )
    chosen = bar.multiselect("Dealers", dealers["dealer_id"].to_list(), key="dealers", placeholder="All dealers")
    day = gaming_day()
    bar.caption(
        f"Days are gaming days ({day.start_hour:02d}:00 {day.timezone} to {day.start_hour:02d}:00, as "
        "`banco build` counts them). Dealers select the shoes and table-days they dealt. "
        f"Money is in {Settings.from_env().currency}."
    )
    return Filters(start, end, tuple(tables), tuple(games), tuple(chosen), every_day=(start, end) == (first, last))


class Empty(Exception):
    """Nothing matches the filters."""


def current() -> Filters:
    """The filters the sidebar drew on this run; re-raises why it could not draw them."""
    state = st.session_state.get("filters")
    if isinstance(state, Exception):
        raise state
    return state


def require(frame):
    """`frame`, unless it has no rows: then the page says so instead of drawing empty charts."""
    if frame.is_empty():
        raise Empty
    return frame


class NoBets(Exception):
    """The warehouse holds rounds but no bets, and the page's figures come from bets."""


def has_bets() -> bool:
    return query.frame(BETS)["n"][0] > 0


def require_bets(frame):
    """`frame` of figures that come from bets, unless it has no rows: then the page says why, since
    round logs alone (the usual third-party export) hold no wagers."""
    if frame.is_empty() and not has_bets():
        raise NoBets
    return require(frame)
