"""Count room: the count's win against the wagers' win per table-shift, hold against theoretical hold by
gaming day, and the monthly statistical report with its investigations, downloadable as filed."""

from __future__ import annotations

import datetime as dt

import altair as alt
import polars as pl
import streamlit as st

from dashboards import charts, filters, fmt, query
from dashboards.layout import metric_row
from dashboards.queries import count_room
from dashboards.signin import analysts_only
from models.count_status import AGREED, EXPLAINED
from models.metrics import count_room as count_room_model
from models.reports import export, monthly
from models.reports.rules import TITLES
from models.settings import Settings

analysts_only()  # the count against the wagers points at tables and their staff: analysts alone

#: The report's percentages are already in percent (win / drop x 100).
PERCENT_COLUMNS = {"format": "%.2f"}
HIGHLIGHT = "background-color: #fbe3e0"
DOWNLOADS = {"csv": ("CSV", "text/csv"), "xlsx": ("XLSX", export.XLSX_MIME), "pdf": ("PDF", "application/pdf")}


def render() -> None:
    f = filters.current()
    st.title("Count room")
    try:
        shifts = count_room.shifts(f)
    except query.Unavailable:
        query.require_marts(*monthly.MARTS)  # a warehouse built before the count room: say which marts it lacks
        raise
    if shifts.is_empty():
        if not count_room.any_shift():
            st.info(
                "No table events are in this warehouse: the count room reads each table's opener, closer, fill, "
                "credit, drop and marker slips (table-events files, ingested beside the round logs)."
            )
            return
        raise filters.Empty
    count_against_wagers(shifts)
    hold_over_time(f)
    statistical_report()


def count_against_wagers(shifts: pl.DataFrame) -> None:
    st.subheader("Count against wagers")
    off = shifts.filter(~pl.col("status").is_in(AGREED))
    explained = shifts.filter(pl.col("status") == EXPLAINED)
    a, b, c = metric_row(3)
    d, e, g = metric_row(3)
    a.metric("Table-shifts", fmt.count(shifts.height))
    b.metric("Unreconciled", fmt.count(off.height), help="Shifts whose count differs from their logs beyond the "
             "tolerance (chips short or over, a slip missing, a wager paid wrongly), or that lack an opener or a "
             "closer, or overlap another shift of their table")  # fmt: skip
    c.metric("Explained", fmt.count(explained.height), help="Shifts whose difference the wagers of their "
             "quarantined coups account for: the chips moved as those coups' logs say")  # fmt: skip
    d.metric("Drop", fmt.money(shifts["drop"].sum()))
    e.metric("Count win", fmt.money(shifts["win"].sum()))
    g.metric("Unexplained", fmt.money(off["unexplained"].sum()), help="What the logs do not explain of the "
             "unreconciled shifts' differences (count win − wagers' win − quarantined win + mispays)")  # fmt: skip
    if off.height:
        st.markdown(f"**To investigate: {fmt.count(off.height)} table-shift{'s' if off.height != 1 else ''}**")
        fmt.table(
            off.select(
                "table_id",
                "shift_id",
                "gaming_day",
                "status",
                "difference",
                "unexplained",
                "tolerance",
                *count_room.DECIDING,
                "attribution",
            ),
            hide_index=True,
        )
        st.caption(
            "A shift is unreconciled when its unexplained amount is more than its tolerance plus the stake on "
            "wagers nothing can price (Quarantined stake) either way, or when a wager was mispaid; or when it "
            "lacks an opener or a closer, or overlaps another shift of its table."
        )
    else:
        st.success("Every table-shift's count agrees with its logs.", icon=":material/verified:")
    shown = shifts.drop("opened_at", "closed_at", *count_room.DECIDING)
    # a Styler's own texts are what the browser shows of a styled table: each column is formatted here
    styled = (
        shown.to_pandas()
        .style.apply(lambda row: [HIGHLIGHT if row["status"] not in AGREED else ""] * len(row), axis=1)
        .format(  # one call: a second would format every column it does not name by pandas' default again
            {name: fmt.money for name in count_room.SHIFT_MONEY}
            | {"coups": fmt.count, "quarantined_coups": fmt.count, "hold_pct": fmt.number, "theo_hold_pct": fmt.number}
            | {"gaming_day": lambda day: f"{day:%Y-%m-%d}", "status": fmt.name, "game": fmt.name},
            na_rep=fmt.MISSING,
        )
    )
    st.dataframe(styled, hide_index=True, placeholder=fmt.MISSING, column_config=fmt.headers(shown))
    st.caption(
        "Each table-shift's count (win = drop + credits − fills + closer − opener) beside the win its wagers "
        "say; difference = count win − wagers' win. The wagers of quarantined coups (a misdeal, a draw against "
        "the tableau) moved chips too: Quarantined win is what the house took on them, from their logged "
        "payouts, else their cards. Unexplained = difference − quarantined win + mispays; a shift is "
        f"explained when that is within the tolerance ({tolerance_in_force()}), unreconciled (shaded) when not. "
        "The dealers' errors stay on the Integrity page. Hold and theo hold are percentages of the drop."
    )


def tolerance_in_force() -> str:
    """The count tolerance this dashboard is set to, in words (the mart's `tolerance` is each shift's)."""
    set_to = Settings.from_env().count_tolerance
    if set_to is None:
        return (
            "one chip of the shift's smallest denomination, at most "
            f"{fmt.money(count_room_model.MAX_TOLERANCE)}: BANCO_COUNT_TOLERANCE is not set"
        )
    return f"{fmt.money(set_to)}, BANCO_COUNT_TOLERANCE"


def hold_over_time(f: filters.Filters) -> None:
    st.subheader("Hold against theoretical hold")
    daily = count_room.days(f)
    lines = daily.unpivot(
        ["hold_pct", "theo_hold_pct"], index="gaming_day", variable_name="series", value_name="percent"
    ).drop_nulls("percent")
    charts.show(
        alt.Chart(lines.tail(charts.MAX_POINTS), title="Is the count's hold tracking theo, day by day?")
        .mark_line(point=True)
        .encode(
            x=alt.X("gaming_day:T", title="Gaming day", axis=alt.Axis(format="%b %d")),
            # the mart holds these as percents already (100 x win / drop): the axis says so, as a number
            y=alt.Y("percent:Q", title="Share of drop (%)", axis=alt.Axis(format=".2f")),
            color=alt.Color(
                "series:N",
                title=None,
                legend=alt.Legend(labelExpr="{'hold_pct': 'Hold', 'theo_hold_pct': 'Theo'}[datum.label]"),
            ),
            tooltip=[alt.Tooltip("gaming_day:T", format="%Y-%m-%d"), "series", alt.Tooltip("percent:Q", format=".2f")],
        )
        .properties(height=280)
    )
    st.caption(
        "Hold: the count's win over the drop; theo hold: the wagers' theoretical win over the same drop, "
        "both summed over the filtered tables before dividing. A hold far from theo for days on end is worth a look."
    )


def _month_label(month: dt.date) -> str:
    return f"{month:%B %Y}"


def statistical_report() -> None:
    st.subheader("Monthly statistical report")
    months = count_room.months()
    if not months:
        st.info("The statistical report has no gaming day yet.")
        return
    month = st.selectbox("Month", months, format_func=_month_label, key="count_room_month")
    settings = Settings.from_env()
    report = monthly.report(*count_room.report_rows(month), month, settings.report_rules, settings.property_name)
    st.caption(" · ".join(f"**{label}**: {value}" for label, value in report.header()))
    st.caption(
        "The whole property, whatever the filters: each table and game's month-to-date and year-to-date figures "
        "at its last gaming day of the month, with the game and property totals. Rules from BANCO_REPORT_RULES: "
        + "; ".join(TITLES[rule] for rule in report.rules)
        + "."
    )
    fmt.table(
        report.tables,
        hide_index=True,
    )
    st.markdown(f"**Investigations due: {report.investigations.height}**")
    if report.investigations.is_empty():
        st.success(
            "No investigation is due: every table and game lies within the applied rules.", icon=":material/verified:"
        )
    else:
        fmt.table(
            report.investigations,
            hide_index=True,
        )
    r = report.reconciliation
    st.markdown(
        f"**Count against wagers in {_month_label(month)}**: {fmt.count(r.reconciled)} of {fmt.count(r.shifts)} "
        f"table-shifts reconciled ({fmt.count(r.explained)} of them by their quarantined coups); "
        f"{fmt.count(r.unreconciled)} not, unexplained {fmt.money(r.difference)}."
    )
    columns = st.columns(len(DOWNLOADS))
    for column, (kind, (label, mime)) in zip(columns, DOWNLOADS.items(), strict=True):
        column.download_button(
            f"Download {label}",
            data=lambda kind=kind: export.to_bytes(report, kind),  # made on the click, not on every run
            file_name=export.file_name(report, kind),
            mime=mime,
            key=f"count_room_{kind}",
            on_click="ignore",
            icon=":material/download:",
        )


render()
