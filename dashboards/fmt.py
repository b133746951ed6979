"""Numbers for people: money with thousands separators, percentages, counts; table column formats."""

from __future__ import annotations

from decimal import Decimal

import polars as pl
import streamlit as st

#: Column formats for st.dataframe (money in the warehouse's currency, rates as fractions).
MONEY = "accounting"
PERCENT = "percent"
COUNT = "%,d"


def money(value: Decimal | float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def percent(fraction: float | None, digits: int = 2) -> str:
    return "–" if fraction is None else f"{fraction * 100:.{digits}f} %"


def count(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def columns(money: tuple[str, ...] = (), percent: tuple[str, ...] = (), counts: tuple[str, ...] = (), **numbers: str):
    """A column_config for st.dataframe: money, fractions shown as percent, counts, other printf formats."""
    config = {name: st.column_config.NumberColumn(format=MONEY) for name in money}
    config |= {name: st.column_config.NumberColumn(format=PERCENT) for name in percent}
    config |= {name: st.column_config.NumberColumn(format=COUNT) for name in counts}
    config |= {name: st.column_config.NumberColumn(format=spec) for name, spec in numbers.items()}
    return config


def table(frame: pl.DataFrame, where=st, column_config: dict | None = None, **options):
    """`where.dataframe(frame)`, with each date column shown as a date (Streamlit's default adds a
    midnight time to it)."""
    dates = {
        name: st.column_config.DateColumn(format="YYYY-MM-DD")
        for name, dtype in frame.schema.items()
        if dtype == pl.Date
    }
    return where.dataframe(frame, column_config=dates | (column_config or {}), **options)
