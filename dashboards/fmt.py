"""The dashboard's side of models/display.py, the one home of how a figure reads: the figures in metrics and
captions, and each table's columns (a header in words with its unit, one format per kind of figure).
A missing value shows as an em dash everywhere, in a figure or in a table's cell."""

from __future__ import annotations

import re

import polars as pl
import streamlit as st

from models import display
from models.display import MISSING, count, money, number, p_value, points
from models.settings import Settings

__all__ = ["MISSING", "count", "money", "number", "p_value", "points"]

#: printf formats of st.column_config.NumberColumn, as models/display.py writes the figures: separators,
#: a leading minus (Streamlit's "accounting" preset would put a negative in parentheses).
MONEY = "%,.2f"
COUNT = "%,d"
#: Percent columns hold fractions; shown, they are multiplied by 100 under a "(%)" header, since the
#: "percent" preset formats by the browser's locale and a printf format does not multiply.
PERCENT = {kind: f"%,.{digits}f" for kind, digits in display.PERCENT_DIGITS.items()}
NUMBERS = {"points": "%,.2f", "number": "%,.2f", "number1": "%,.1f"}


def currency() -> str:
    """The warehouse's currency (BANCO_CURRENCY), as the dashboard's settings read it."""
    return Settings.from_env().currency


def percent(fraction, kind: str = "edge") -> str:
    """A fraction as a percent to its kind's decimals (`display.PERCENT_DIGITS`): hold, edge, rate, share."""
    return display.percent(fraction, kind)


def name(identifier: str | None) -> str:
    """A game's, bet's or status's name (Chemin de Fer), for a label or a select box."""
    return display.name(identifier)


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


def _kind(column: str, dtype: pl.DataType, kinds: dict[str, str] | None = None) -> str:
    """How `column` reads: `kinds`' word, else its entry in display.COLUMNS, else what its type tells."""
    if kinds and column in kinds:
        return kinds[column]
    if isinstance(dtype, pl.Decimal):  # the warehouse keeps money, and money alone, as decimals
        return "money"
    if dtype.is_integer():
        default = "count"
    elif dtype.is_float():
        default = "number"
    else:
        default = "text"
    return display.kind(column, default)


def _column(label: str, kind: str, dtype: pl.DataType):
    if dtype == pl.Date:
        return st.column_config.DateColumn(label, format="YYYY-MM-DD")  # Streamlit's default adds midnight
    if isinstance(dtype, pl.Datetime):
        return st.column_config.DatetimeColumn(label, format="YYYY-MM-DD HH:mm")
    if not dtype.is_numeric() and not isinstance(dtype, pl.Decimal):
        return st.column_config.Column(label)
    formats = {"money": MONEY, "count": COUNT} | PERCENT | NUMBERS
    return st.column_config.NumberColumn(label, format=formats.get(kind, NUMBERS["number"]))


def shown(frame: pl.DataFrame, kinds: dict[str, str] | None = None) -> tuple[pl.DataFrame, dict]:
    """`frame` as people read it, and its column_config: each header in words with its unit; percents
    times 100; p- and q-values and games, bets and statuses as display.py writes them. Presentation only.
    `kinds` names the kind (display.KINDS) of a column display.COLUMNS does not know."""
    unit = currency()
    config, columns = {}, []
    for column, dtype in frame.schema.items():
        kind = _kind(column, dtype, kinds)
        label = display.header(column, unit, kind)
        if kind in PERCENT and dtype.is_numeric():
            columns.append(pl.col(column).cast(pl.Float64) * 100)
        elif kind == "p" and dtype.is_numeric():
            columns.append(pl.col(column).map_elements(display.p_value, return_dtype=pl.String, skip_nulls=False))
            dtype = pl.String
        elif kind == "name" and dtype == pl.String:
            # each distinct identifier named once, not once a row: a table holds a few games, many rows
            names = {value: display.name(value) for value in frame[column].unique().drop_nulls()}
            columns.append(pl.col(column).replace(names))
        config[column] = _column(label, kind, dtype)
    return frame.with_columns(columns), config


def headers(frame: pl.DataFrame) -> dict:
    """Word headers with units alone, for a table whose cells are already text (a pandas Styler's)."""
    unit = currency()
    return {column: st.column_config.Column(display.header(column, unit, _kind(column, dtype)))
            for column, dtype in frame.schema.items()}  # fmt: skip


def table(
    frame: pl.DataFrame,
    where=st,
    column_config: dict | None = None,
    *,
    kinds: dict[str, str] | None = None,
    as_written: bool = False,
    **options,
):
    """`where.dataframe(frame)` as people read it (`shown`), each missing value as MISSING (Streamlit's
    default is "None"); `as_written` keeps the columns and values as a user's SQL names them."""
    if as_written:
        config = {
            name: st.column_config.DateColumn(format="YYYY-MM-DD")
            for name, dtype in frame.schema.items()
            if dtype == pl.Date
        }
    else:
        frame, config = shown(frame, kinds)
    options.setdefault("placeholder", MISSING)
    return where.dataframe(frame, column_config=config | (column_config or {}), **options)
