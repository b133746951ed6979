"""Numbers for people: money with thousands separators, percentages, counts; table column formats.
A missing value shows as an em dash everywhere, in a figure or in a table's cell."""

from __future__ import annotations

import re
from decimal import Decimal

import polars as pl
import streamlit as st

#: Column formats for st.dataframe (money in the warehouse's currency, rates as fractions).
MONEY = "accounting"
PERCENT = "percent"
COUNT = "%,d"
#: What a missing value (a null, None) shows as.
MISSING = "—"


def money(value: Decimal | float | None) -> str:
    return MISSING if value is None else f"{value:,.2f}"


def percent(fraction: float | None, digits: int = 2) -> str:
    return MISSING if fraction is None else f"{fraction * 100:.{digits}f} %"


def count(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def number(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else f"{value:,.{digits}f}"


def text(value: object) -> str:
    """Any value as text, a missing one as MISSING (for select boxes' labels and captions)."""
    return MISSING if value is None else str(value)


#: Characters Streamlit's Markdown gives a meaning to: links, images, emphasis, headings, lists, code,
#: tables, HTML, maths ($), colours and icons (:red[...], :material/...:), and the `:`, `.` and `@` of
#: the addresses it links by itself (http://..., www...., a@b.c).
#: A word joiner (U+2060): invisible, and it breaks an address the page would link.
JOINER = "\u2060"
MARKDOWN = re.compile(r"[\\`*_{}\[\]()#+\-.!|<>~$:&@/=\"']")


def plain(value: object) -> str:
    """Text from the logs or a user (an id, a search, a detail) for a Markdown string: every mark
    escaped, so it shows as typed and never becomes a link, an image or markup."""
    # an invisible word joiner inside each address, which the page would otherwise make a link of
    unlinked = text(value).replace("://", f":{JOINER}//").replace("www.", f"www{JOINER}.").replace("@", f"{JOINER}@")
    # each mark as a numeric character reference: the parser reads it as its character, never as a mark
    return MARKDOWN.sub(lambda mark: f"&#{ord(mark.group())};", unlinked).replace("\n", " ")


def columns(money: tuple[str, ...] = (), percent: tuple[str, ...] = (), counts: tuple[str, ...] = (), **numbers: str):
    """A column_config for st.dataframe: money, fractions shown as percent, counts, other printf formats."""
    config = {name: st.column_config.NumberColumn(format=MONEY) for name in money}
    config |= {name: st.column_config.NumberColumn(format=PERCENT) for name in percent}
    config |= {name: st.column_config.NumberColumn(format=COUNT) for name in counts}
    config |= {name: st.column_config.NumberColumn(format=spec) for name, spec in numbers.items()}
    return config


def table(frame: pl.DataFrame, where=st, column_config: dict | None = None, **options):
    """`where.dataframe(frame)`, with each date column shown as a date (Streamlit's default adds a
    midnight time to it) and each missing value as MISSING (Streamlit's default is "None")."""
    dates = {
        name: st.column_config.DateColumn(format="YYYY-MM-DD")
        for name, dtype in frame.schema.items()
        if dtype == pl.Date
    }
    options.setdefault("placeholder", MISSING)
    return where.dataframe(frame, column_config=dates | (column_config or {}), **options)
