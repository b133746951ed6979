"""Writing a build's marts into the warehouse, in one transaction: each mart's rows of the days (or
all), then what is taken again over every stored day (the tenure fit of the months, the players'
totals, the statistical report, the players' decision styles)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from decimal import Decimal

import polars as pl

from models.metrics.decision_styles import decision_styles
from models.metrics.players import PLAYER_COLUMNS, players, players_of_totals, players_sql
from models.metrics.statistical_report import statistical_report
from models.metrics.streaks import tenure_fit
from models.metrics.surveillance import wager_edges_sql
from models.settings import DEFAULTS
from models.warehouse import schema

#: The marts stored (`name`, with its schema) and their columns' names (`columns`).
_MARTS = (
    "WITH marts AS (SELECT table_schema || '.' || table_name AS name, list(column_name) AS columns "
    "FROM information_schema.columns WHERE table_schema = 'marts' GROUP BY ALL)"
)


#: What `store_marts` and `store_totals` take again over every stored day: each store's rows of these
#: are the whole of them, not more rows.
TOTALS = (
    schema.MARTS_TENURE_FIT, schema.MARTS_PLAYERS, schema.MARTS_STATISTICAL_REPORT, schema.MARTS_DECISION_STYLES,
)  # fmt: skip


def store_marts(
    con,
    marts: Iterable[tuple[str, pl.DataFrame]],
    days: Sequence[dt.date] | None,
    comp_rate: Decimal = DEFAULTS.comp_rate,
    report_rules: Sequence[str] = DEFAULTS.report_rules,
    totals: bool = True,
    seconds: dict[str, float] | None = None,
    keep: bool = True,
) -> dict[str, int]:
    """Replace the marts' rows (of `days`, or all), refit the tenures of their months, total the
    players over every stored rating (at `comp_rate`; of `days`, only the players who played on
    them) and take the statistical report again over every stored count-room day (flagging
    `report_rules`), in one transaction, each mart on a thread of its own as `marts` yields it; the
    rows written to each. Without `totals`, only the marts' rows (`store_totals` does the rest, once
    for a build of many chunks); `seconds["store"]` adds the writer's time. Without `keep`, a trial:
    the transaction is rolled back, as it is when a mart fails to compute or store."""
    listed = ", ".join(f"DATE '{day}'" for day in days or ())  # literals let zone maps skip row groups

    def replace(name: str, frame: pl.DataFrame) -> int:
        start = time.perf_counter()
        try:
            return _replace(name, frame)
        finally:
            if seconds is not None:
                seconds["store"] = seconds.get("store", 0.0) + time.perf_counter() - start

    def _replace(name: str, frame: pl.DataFrame) -> int:
        # stored in gaming-day order, so a day's rows share a few row groups at the table's end:
        # replacing a day then touches those groups only, not one in every table's stretch
        in_day_order = frame if frame["gaming_day"].is_sorted() else frame.sort("gaming_day", maintain_order=True)
        con.register("mart_frame", in_day_order)
        touched = None
        if days is None or name not in stored:
            con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM mart_frame")
        else:
            if (
                totals
                and name == schema.MARTS_PLAYER_SESSIONS
                and schema.MARTS_PLAYERS in stored
                and _players_kept(con)
            ):
                # the players whose ratings change: those of the days, before and after
                before = con.sql(f"SELECT DISTINCT player_id FROM {name} WHERE gaming_day IN ({listed})").pl()
                touched = pl.concat([before, frame.select("player_id")]).unique()
            con.execute(f"DELETE FROM {name} WHERE gaming_day IN ({listed})")
            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM mart_frame")
        con.unregister("mart_frame")
        if not totals:
            return frame.height
        if name == schema.MARTS_BANKER_STREAKS:
            fitted[schema.MARTS_TENURE_FIT] = _refit(con, days, frame, schema.MARTS_TENURE_FIT in stored).height
        if name == schema.MARTS_PLAYER_SESSIONS:
            every = frame if days is None else None
            fitted[schema.MARTS_PLAYERS] = _rerate(con, comp_rate, every, touched)
        if name == schema.MARTS_COUNT_ROOM:
            fitted[schema.MARTS_STATISTICAL_REPORT] = _report(con, report_rules)
        if name == schema.MARTS_DECISIONS:
            fitted[schema.MARTS_DECISION_STYLES] = _styles(con)
        return frame.height

    stored = {name for (name,) in con.sql(f"{_MARTS} SELECT name FROM marts").fetchall()}
    fitted: dict[str, int] = {}
    with _transaction(con, keep):
        # one writer thread, so the connection runs one statement at a time; DuckDB and Polars both let
        # go of Python's lock, so the next mart is computed meanwhile
        with ThreadPoolExecutor(1) as writer:
            written = {name: writer.submit(replace, name, frame) for name, frame in marts}
        rows = {name: future.result() for name, future in written.items()}
        if schema.MARTS_COUP_EDGES in rows:  # every wager with its edge, read through the stored edges
            edged = wager_edges_sql(schema.CORE_BETS, schema.MARTS_COUP_EDGES)
            con.execute(f"CREATE OR REPLACE VIEW {schema.MARTS_WAGER_EDGES} AS {edged}")
    return rows | fitted


@contextmanager
def _transaction(con, keep: bool = True) -> Iterator[None]:
    """One transaction, committed when the block ends (rolled back without `keep`), rolled back when
    it raises: a mart that fails leaves the stored ones as they were, and the connection usable."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT" if keep else "ROLLBACK")


def store_totals(
    con,
    days: Sequence[dt.date],
    comp_rate: Decimal = DEFAULTS.comp_rate,
    report_rules: Sequence[str] = DEFAULTS.report_rules,
) -> dict[str, int]:
    """What `store_marts` takes again over every stored day, after marts stored without `totals`:
    the tenure fit of the months of `days`, every player's totals and the statistical report, in one
    transaction; the rows written to each."""
    with _transaction(con):
        stored = {name for (name,) in con.sql(f"{_MARTS} SELECT name FROM marts").fetchall()}
        fit = _refit(con, days, None, schema.MARTS_TENURE_FIT in stored)
        rows = {schema.MARTS_TENURE_FIT: fit.height, schema.MARTS_PLAYERS: _rerate(con, comp_rate)}
        rows[schema.MARTS_STATISTICAL_REPORT] = _report(con, report_rules)
        if schema.MARTS_DECISIONS in stored:
            rows[schema.MARTS_DECISION_STYLES] = _styles(con)
    return rows


def _refit(con, days: Sequence[dt.date] | None, streaks: pl.DataFrame | None, exists: bool) -> pl.DataFrame:
    """Refit the tenures of the months `days` fall in (all months when None, from `streaks`, the
    tenures just computed; `exists`: the fit is stored already); returns the new rows."""
    period = pl.col("gaming_day").dt.truncate("1mo")
    months = None if days is None else sorted({dt.date(day.year, day.month, 1) for day in days})
    if months is None:
        tenures = streaks
    else:
        # ranges on the day-ordered table read only the months' row groups
        spans = " OR ".join(
            f"(gaming_day >= DATE '{month}' AND gaming_day < DATE '{month}' + INTERVAL 1 MONTH)" for month in months
        )
        tenures = con.sql(
            "SELECT table_id, game, decks, gaming_day, decided, ended_by "
            f"FROM {schema.MARTS_BANKER_STREAKS} WHERE {spans}"
        ).pl()
    fit = tenure_fit(tenures.with_columns(period=period), by=["table_id", "game", "period"])
    con.register("mart_frame", fit)
    if months is None or not exists:
        con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_TENURE_FIT} AS SELECT * FROM mart_frame")
    elif fit.height:
        con.execute(f"DELETE FROM {schema.MARTS_TENURE_FIT} WHERE period IN (SELECT DISTINCT period FROM mart_frame)")
        con.execute(f"INSERT INTO {schema.MARTS_TENURE_FIT} BY NAME SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    return fit


def _rerate(con, comp_rate: Decimal, every: pl.DataFrame | None = None, touched: pl.DataFrame | None = None) -> int:
    """Total the players over every rating stored (all time), in marts.players: all of them (from
    `every`, the ratings, when a full rebuild has them at hand), or only the `touched` players' rows
    (player_id: those with a rating replaced); returns the rows written."""
    if every is not None:
        totals = players(every.lazy(), comp_rate)
    else:  # totalled where the ratings are stored: a day's build does not read the history out
        con.register("touched", pl.DataFrame(schema={"player_id": pl.String}) if touched is None else touched)
        only = "" if touched is None else "WHERE player_id IN (SELECT player_id FROM touched)"
        totals = players_of_totals(con.sql(players_sql(schema.MARTS_PLAYER_SESSIONS, only)).pl(), comp_rate)
    con.register("mart_frame", totals)
    if touched is None:
        con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_PLAYERS} AS SELECT * FROM mart_frame")
    else:
        con.execute(f"DELETE FROM {schema.MARTS_PLAYERS} WHERE player_id IN (SELECT player_id FROM touched)")
        con.execute(f"INSERT INTO {schema.MARTS_PLAYERS} BY NAME SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    if every is None:
        con.unregister("touched")
    return totals.height


def _report(con, rules: Sequence[str]) -> int:
    """marts.statistical_report taken again over every day of marts.count_room (tables x days: small,
    and a day's count changes the month, year and rolling figures after it); the rows written."""
    days = con.sql(f"SELECT table_id, gaming_day, game, drop, win, win_variance FROM {schema.MARTS_COUNT_ROOM}").pl()
    report = statistical_report(days, rules)
    con.register("mart_frame", report)
    con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_STATISTICAL_REPORT} AS SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    return report.height


def _styles(con) -> int:
    """marts.decision_styles taken again over every stored decision (a player's style is all time);
    the rows written."""
    columns = "game, decider, player_id, choice, cost, cost_money, equilibrium_draw, house_draw"
    styles = decision_styles(con.sql(f"SELECT {columns} FROM {schema.MARTS_DECISIONS}").pl().lazy())
    con.register("mart_frame", styles)
    con.execute(f"CREATE OR REPLACE TABLE {schema.MARTS_DECISION_STYLES} AS SELECT * FROM mart_frame")
    con.unregister("mart_frame")
    return styles.height


def _players_kept(con) -> bool:
    """Whether marts.players is stored with this release's columns (so a day's build updates it)."""
    columns = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' AND table_name = ?"
    stored = [name for (name,) in con.execute(columns, [schema.MARTS_PLAYERS.split(".")[1]]).fetchall()]
    return stored == list(PLAYER_COLUMNS)


def outdated(con, marts: dict[str, pl.DataFrame], fresh: bool = True) -> bool:
    """Whether any mart is missing from the warehouse or stored with other columns than it now has
    (with `fresh` False, a warehouse with no mart at all is not: its marts start with these days)."""
    stored = con.sql(f"{_MARTS} SELECT name, columns FROM marts").fetchall()
    if not stored and not fresh:
        return False
    columns = {name: set(names) for name, names in stored}
    return any(columns.get(name) != set(frame.columns) for name, frame in marts.items())


def quiet_checkpoints(con) -> None:
    # DuckDB's checkpoint otherwise spends seconds vacuuming the marts' row groups (at ten million
    # coups) on the next few commits after a full rebuild; a full rebuild rewrites them compactly
    con.execute("SET max_vacuum_tasks = 0")
