"""The monthly statistical report as a regulator would have it filed: each table and game's drop, win and
win-to-drop for the month and the year to date with the applied rules' bases, intervals and flags, the
totals per game and for the property, the investigations due, and the count against the wagers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from models import display
from models.count_status import AGREED, EXPLAINED
from models.ratios import pct, quarantined_share
from models.reports.rules import KANSAS_POINTS, OHIO_POINTS, RULES, TITLES, month_end

MARTS = ("marts.statistical_report", "marts.table_shift", "marts.count_room")
STATISTICAL_COLUMNS = (
    "table_id", "game", "gaming_day", "drop", "win", "hold_pct", "mtd_drop", "mtd_win", "mtd_hold_pct",
    "ytd_drop", "ytd_win", "ytd_hold_pct", "md_base_hold_pct", "md_base_period", "md_ci_low", "md_ci_high",
    "md_flag", "ks_base_hold_pct", "ks_flag", "oh_rolling_hold_pct", "oh_lifetime_hold_pct", "oh_flag",
)  # fmt: skip
#: A month's rows of marts.statistical_report ($first and $last: its first and last day).
STATISTICAL = (
    f"SELECT {', '.join(STATISTICAL_COLUMNS)} FROM marts.statistical_report "
    "WHERE gaming_day BETWEEN $first AND $last ORDER BY table_id, game, gaming_day"
)
SHIFT_COLUMNS = (
    "gaming_day", "table_id", "shift_id", "game", "status", "opened_at", "closed_at", "drop", "win",
    "wagers_win", "difference", "tolerance", "reconciled", "quarantined_win", "unexplained", "attribution",
    "handle", "quarantined_coups", "quarantined_handle",
)  # fmt: skip
#: A month's table-shifts from marts.table_shift.
SHIFTS = (
    f"SELECT {', '.join(SHIFT_COLUMNS)} FROM marts.table_shift "
    "WHERE gaming_day BETWEEN $first AND $last ORDER BY gaming_day, table_id, opened_at, shift_id"
)
#: The report's columns each rule adds, beside every table's figures.
RULE_COLUMNS = {
    "maryland": ("md_base_period", "md_base_hold_pct", "md_ci_low", "md_ci_high", "md_flag"),
    "kansas": ("ks_base_hold_pct", "ks_low", "ks_high", "ks_flag"),
    "ohio": ("oh_rolling_hold_pct", "oh_lifetime_hold_pct", "oh_days_flagged", "oh_flag"),
}
FIGURES = ("days", "drop", "win", "hold_pct", "ytd_drop", "ytd_win", "ytd_hold_pct")
MONEY = ("drop", "win", "ytd_drop", "ytd_win", "wagers_win", "difference", "tolerance", "unexplained")
PERCENT = (
    "hold_pct", "ytd_hold_pct", "md_base_hold_pct", "md_ci_low", "md_ci_high", "ks_base_hold_pct", "ks_low",
    "ks_high", "oh_rolling_hold_pct", "oh_lifetime_hold_pct", "figure", "base", "low", "high",
)  # fmt: skip
UNRECONCILED_COLUMNS = (
    "gaming_day", "table_id", "shift_id", "game", "status", "drop", "win", "wagers_win", "difference", "tolerance",
    "unexplained", "attribution",
)  # fmt: skip


def window(month: dt.date) -> dict[str, dt.date]:
    """The query parameters of STATISTICAL and SHIFTS for the month starting on `month`."""
    return {"first": month, "last": month_end(month)}


@dataclass(frozen=True)
class Reconciliation:
    """The month's table-shifts: how many, how many reconciled (of them, how many only once the quarantined
    coups are counted), and the difference the logs leave unexplained in the others."""

    shifts: int
    reconciled: int
    unreconciled: int
    difference: Decimal
    explained: int = 0
    #: The month's quarantined coups, and the share of the handle (logged and quarantined) staked on them.
    quarantined_coups: int = 0
    quarantined_share: float = 0.0


@dataclass(frozen=True)
class Report:
    property_name: str
    month: dt.date
    rules: tuple[str, ...]
    #: The time the figures are of: the warehouse's commit they were built from (or the clock's, on a page).
    as_of: dt.datetime
    first_day: dt.date
    last_day: dt.date
    #: level ('table', 'game', 'property'), table_id, game, FIGURES, each rule's RULE_COLUMNS, investigate.
    tables: pl.DataFrame
    #: table_id, game, rule, as_of, measure, figure, base, low, high, explain.
    investigations: pl.DataFrame
    #: The month's table-shifts not reconciled (UNRECONCILED_COLUMNS).
    unreconciled: pl.DataFrame
    reconciliation: Reconciliation

    @property
    def title(self) -> str:
        return f"Monthly statistical report, {self.month:%B %Y}"

    def header(self) -> list[tuple[str, str]]:
        """The header block a filed report opens with, as (label, value) pairs."""
        r = self.reconciliation
        return [
            ("Property", self.property_name),
            ("Month", f"{self.month:%Y-%m}"),
            ("Gaming days", f"{self.first_day} to {self.last_day}"),
            ("Rules applied", ", ".join(TITLES[rule] for rule in self.rules)),
            ("Data as of", f"{self.as_of.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC"),
            ("Investigations due", str(self.investigations.height)),
            (
                "Count against wagers",
                f"{r.reconciled:,} of {r.shifts:,} table-shifts reconciled ({r.explained:,} of them by their "
                f"quarantined coups); {r.unreconciled:,} not, unexplained {display.money(r.difference)}; "
                f"{r.quarantined_coups:,} coups quarantined, {display.percent(r.quarantined_share, 'share')} of the "
                "handle",
            ),
        ]


def _any(flag: str) -> pl.Expr:
    """Whether `flag` was raised on any day; null when it was never known."""
    return pl.when(pl.col(flag).count() > 0).then(pl.col(flag).fill_null(False).any())


def _table_rows(stat: pl.DataFrame) -> pl.DataFrame:
    """One row per table and game: the month-to-date and year-to-date figures of its last gaming day in the
    month, its rules' bases there, and Ohio's flag on any day of the month."""
    last = stat.group_by("table_id", "game", maintain_order=True).agg(
        pl.exclude("gaming_day").last(),
        as_of=pl.col("gaming_day").last(),
        days=pl.len().cast(pl.Int64),
        oh_days_flagged=pl.col("oh_flag").fill_null(False).sum().cast(pl.Int64),
        oh_any=_any("oh_flag"),
    )
    return last.select(
        "table_id", "game", "as_of", "days",
        drop=pl.col("mtd_drop"), win=pl.col("mtd_win"), hold_pct=pl.col("mtd_hold_pct"),
        ytd_drop=pl.col("ytd_drop"), ytd_win=pl.col("ytd_win"), ytd_hold_pct=pl.col("ytd_hold_pct"),
        md_base_period=pl.col("md_base_period"), md_base_hold_pct=pl.col("md_base_hold_pct"),
        md_ci_low=pl.col("md_ci_low"), md_ci_high=pl.col("md_ci_high"), md_flag=pl.col("md_flag"),
        ks_base_hold_pct=pl.col("ks_base_hold_pct"), ks_low=pl.col("ks_base_hold_pct") - KANSAS_POINTS,
        ks_high=pl.col("ks_base_hold_pct") + KANSAS_POINTS, ks_flag=pl.col("ks_flag"),
        oh_rolling_hold_pct=pl.col("oh_rolling_hold_pct"), oh_lifetime_hold_pct=pl.col("oh_lifetime_hold_pct"),
        oh_days_flagged=pl.col("oh_days_flagged"), oh_flag=pl.col("oh_any"),
    )  # fmt: skip


def _totals(stat: pl.DataFrame, tables: pl.DataFrame, by: tuple[str, ...]) -> pl.DataFrame:
    """The tables' figures summed per `by` (none: the property), win-to-drop from the sums."""
    days = stat.group_by(*by).agg(days=pl.col("gaming_day").n_unique().cast(pl.Int64)) if by else None
    sums = [pl.col(name).sum() for name in ("drop", "win", "ytd_drop", "ytd_win")]
    summed = tables.group_by(*by).agg(*sums) if by else tables.select(*sums)
    summed = summed.with_columns(hold_pct=pct("win", "drop"), ytd_hold_pct=pct("ytd_win", "ytd_drop"))
    if by:
        return summed.join(days, on=list(by))
    return summed.with_columns(days=pl.lit(stat["gaming_day"].n_unique(), pl.Int64))


def _investigations(stat: pl.DataFrame, tables: pl.DataFrame, rules: tuple[str, ...]) -> pl.DataFrame:
    found: list[dict] = []
    for row in tables.iter_rows(named=True):
        key = {"table_id": row["table_id"], "game": row["game"]}
        hold, base = row["hold_pct"], row["md_base_hold_pct"]
        if "maryland" in rules and row["md_flag"]:
            low, high = row["md_ci_low"], row["md_ci_high"]
            found.append(key | dict(
                rule="maryland", as_of=row["as_of"], measure="MTD win-to-drop", figure=hold, base=base,
                low=low, high=high,
                explain=f"MTD win-to-drop {hold:.2f} % lies outside the 95 % interval {low:.2f} % to {high:.2f} % "
                f"around the {row['md_base_period']} win-to-drop of {base:.2f} %: explain the fluctuation in writing",
            ))  # fmt: skip
        if "kansas" in rules and row["ks_flag"]:
            base = row["ks_base_hold_pct"]
            found.append(key | dict(
                rule="kansas", as_of=row["as_of"], measure="MTD win-to-drop", figure=hold, base=base,
                low=row["ks_low"], high=row["ks_high"],
                explain=f"MTD win-to-drop {hold:.2f} % is {hold - base:+.2f} points from the base level of "
                f"{base:.2f} % ({row['md_base_period']}), beyond {KANSAS_POINTS:g}: explain the variation in writing",
            ))  # fmt: skip
    if "ohio" in rules:
        flagged = stat.filter(pl.col("oh_flag").fill_null(False)).with_columns(
            gap=(pl.col("oh_rolling_hold_pct") - pl.col("oh_lifetime_hold_pct")).abs(),
            flagged_days=pl.len().over("table_id", "game"),
        )
        worst = flagged.sort("gap", descending=True).group_by("table_id", "game", maintain_order=True).first()
        for row in worst.iter_rows(named=True):
            rolling, lifetime = row["oh_rolling_hold_pct"], row["oh_lifetime_hold_pct"]
            found.append(dict(
                table_id=row["table_id"], game=row["game"], rule="ohio", as_of=row["gaming_day"],
                measure="rolling 30-day win-to-drop", figure=rolling, base=lifetime,
                low=lifetime - OHIO_POINTS, high=lifetime + OHIO_POINTS,
                explain=f"rolling 30-day win-to-drop {rolling:.2f} % was {rolling - lifetime:+.2f} points from the "
                f"lifetime {lifetime:.2f} % on {row['gaming_day']}, beyond {OHIO_POINTS:g} (flagged on "
                f"{row['flagged_days']} days of the month): explain the deviation in writing",
            ))  # fmt: skip
    schema = {
        "table_id": pl.String, "game": pl.String, "rule": pl.String, "as_of": pl.Date, "measure": pl.String,
        "figure": pl.Float64, "base": pl.Float64, "low": pl.Float64, "high": pl.Float64, "explain": pl.String,
    }  # fmt: skip
    order = {rule: index for index, rule in enumerate(RULES)}
    return pl.DataFrame(found, schema=schema).sort(
        "table_id", "game", pl.col("rule").replace_strict(order, return_dtype=pl.Int8)
    )


def _reconciliation(shifts: pl.DataFrame) -> tuple[pl.DataFrame, Reconciliation]:
    unreconciled = shifts.filter(~pl.col("status").is_in(AGREED)).select(UNRECONCILED_COLUMNS)
    difference = unreconciled["unexplained"].drop_nulls().sum() if unreconciled.height else 0
    summary = Reconciliation(
        shifts=shifts.height,
        reconciled=shifts.height - unreconciled.height,
        unreconciled=unreconciled.height,
        difference=Decimal(str(difference or 0)),
        explained=shifts.filter(pl.col("status") == EXPLAINED).height,
        quarantined_coups=int(shifts["quarantined_coups"].sum() or 0),
        quarantined_share=quarantined_share(shifts["quarantined_handle"].sum(), shifts["handle"].sum()) or 0.0,
    )
    return unreconciled, summary


def report(
    statistical: pl.DataFrame,
    shifts: pl.DataFrame,
    month: dt.date,
    rules: tuple[str, ...],
    property_name: str,
    as_of: dt.datetime | None = None,
) -> Report:
    """The report of `month` from its rows of marts.statistical_report (STATISTICAL) and marts.table_shift
    (SHIFTS); `rules` decide which flags are investigations; `as_of`: the time the figures are of (the
    clock's when None). A month without rows is a one-line ValueError."""
    if statistical.is_empty():
        raise ValueError(f"no statistical report for {month:%Y-%m}: the count-room marts hold none of its gaming days")
    stat = statistical.sort("table_id", "game", "gaming_day")
    tables = _table_rows(stat)
    investigations = _investigations(stat, tables, rules)
    flagged = investigations.group_by("table_id", "game").agg(investigate=pl.col("rule").str.join(", "))
    games = _totals(stat, tables, ("game",)).with_columns(level=pl.lit("game"))
    whole = _totals(stat, tables, ()).with_columns(level=pl.lit("property"))
    rows = pl.concat(
        [
            tables.join(flagged, on=["table_id", "game"], how="left").with_columns(
                level=pl.lit("table"), investigate=pl.col("investigate").fill_null("")
            ),
            games,
            whole,
        ],
        how="diagonal_relaxed",
    )
    rank = pl.col("level").replace_strict({"table": 0, "game": 1, "property": 2}, return_dtype=pl.Int8)
    rows = rows.sort(pl.col("level") == "property", "game", rank, "table_id", nulls_last=True).select(
        "level", "table_id", "game", *FIGURES, *[name for rule in rules for name in RULE_COLUMNS[rule]], "investigate"
    )
    unreconciled, summary = _reconciliation(shifts)
    return Report(
        property_name=property_name,
        month=month,
        rules=rules,
        as_of=as_of or dt.datetime.now(dt.UTC),
        first_day=stat["gaming_day"].min(),
        last_day=stat["gaming_day"].max(),
        tables=rows,
        investigations=investigations,
        unreconciled=unreconciled,
        reconciliation=summary,
    )
