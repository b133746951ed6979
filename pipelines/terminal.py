"""Query results printed for people: a box table like DuckDB's own shell, and Markdown.

DuckDB's Python renderer (`relation.show()`) draws the same box but cannot count past 9,999 rows
and gives no row count for a result shown whole, so the box is drawn here. Every value is DuckDB's
own text for it (a DECIMAL with all its decimals, NULL as `NULL`), numbers aligned right, until
`readable` rounds the numbers of a table to be read: money to the cent, floats to a few figures.
`worded` goes further for a summary of the warehouse (`banco up`): headers in words with units and
every figure as models/display.py writes it; `banco sql` keeps the names the user's SQL gives.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import TextIO

import duckdb

from models import display

#: Types whose values are aligned right.
NUMBERS = {
    "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint", "uinteger", "ubigint",
    "uhugeint", "float", "double", "decimal", "bignum", "varint",
}  # fmt: skip
INTEGERS = NUMBERS - {"float", "double", "decimal"}
#: The significant digits `readable` gives a float: a ratio, a rate or a z-score to its fourth decimal or so.
FLOAT_DIGITS = 6
#: An integer column is written with thousands separators once a value reaches this: counts read
#: better, and a column of years (2026) or round numbers is left as typed.
SEPARATED_FROM = 10_000
#: A text cell wider than this is cut, with an ellipsis (numbers are never cut).
CELL_WIDTH = 48
#: Rows fetched from DuckDB at a time (past the rows shown they are only counted).
BATCH_ROWS = 100_000
ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


@dataclass(frozen=True)
class Result:
    """A query's columns, the first rows as text, and how many rows it returned in all."""

    names: list[str]
    types: list[str]
    rows: list[tuple[str | None, ...]]
    total: int

    @property
    def right(self) -> list[bool]:
        return [dtype.split("(")[0] in NUMBERS for dtype in self.types]


def fetch(relation: duckdb.DuckDBPyRelation, max_rows: int | None = None) -> Result:
    """The relation's rows as DuckDB's text, the first `max_rows` of them kept (all with None),
    every one counted; one pass over the query."""
    names, types = relation.columns, [str(dtype).lower() for dtype in relation.dtypes]
    text = relation.project(", ".join(f"CAST(#{position} AS VARCHAR)" for position in range(1, len(names) + 1)))
    rows: list[tuple[str | None, ...]] = []
    total = 0
    for batch in text.to_arrow_reader(BATCH_ROWS):
        wanted = batch.num_rows if max_rows is None else max(0, min(batch.num_rows, max_rows - len(rows)))
        if wanted:
            rows.extend(zip(*(column.to_pylist() for column in batch.slice(0, wanted).columns), strict=True))
        total += batch.num_rows
    return Result(list(names), types, rows, total)


def readable(result: Result) -> Result:
    """The result with its numbers as people read them: a DECIMAL (in the warehouse, always money) to
    the cent with thousands separators (6,290,375.00; half away from zero, as DuckDB's round), a float
    to FLOAT_DIGITS significant digits (-12.3494, 0.0493820 as 0.049382), an integer column with
    separators when a value reaches SEPARATED_FROM. CSV and JSON keep every digit."""
    formats = [_number_format(dtype, [row[i] for row in result.rows]) for i, dtype in enumerate(result.types)]
    rows = [tuple(_written(value, write) for value, write in zip(row, formats, strict=True)) for row in result.rows]
    return replace(result, rows=rows)


def worded(result: Result, currency: str) -> Result:
    """The result as people read a summary: each header in words with its unit ("Handle (EUR)", "Hold
    (%)"), games by their names, and each figure as models/display.py writes it (money to the cent,
    percents by kind, counts with separators); a missing value as display.MISSING."""
    kinds = [display.kind(name, _default_kind(dtype)) for name, dtype in zip(result.names, result.types, strict=True)]
    names = [display.header(name, currency, kind) for name, kind in zip(result.names, kinds, strict=True)]
    rows = [tuple(_in_words(value, kind) for value, kind in zip(row, kinds, strict=True)) for row in result.rows]
    return replace(result, names=names, rows=rows)


def _default_kind(dtype: str) -> str:
    kind = dtype.split("(")[0]
    return "money" if kind == "decimal" else "count" if kind in INTEGERS else "number" if kind in NUMBERS else "text"


def _in_words(value: str | None, kind: str) -> str:
    if value is None:
        return display.MISSING
    if kind == "money":
        return display.money(Decimal(value))
    if kind == "count":
        return display.count(int(value))
    if kind in display.PERCENT_DIGITS:
        return display.percent(float(value), kind)
    if kind == "p":
        return display.p_value(float(value))
    if kind in ("number", "points", "number1"):
        return display.number(float(value), 1 if kind == "number1" else 2)
    return display.name(value) if kind == "name" else value


def _written(value: str | None, write: Callable[[str], str] | None) -> str | None:
    return value if value is None or write is None else write(value)


def _number_format(dtype: str, values: list[str | None]) -> Callable[[str], str] | None:
    """How `readable` writes a column of type `dtype` holding `values` (None: as DuckDB wrote it)."""
    kind = dtype.split("(")[0]
    if kind == "decimal":
        scale = int(re.fullmatch(r"decimal\(\d+,\s*(\d+)\)", dtype).group(1)) if "(" in dtype else 3
        return _cents if scale > 2 else _separated
    if kind in ("float", "double"):
        return _float
    if kind in INTEGERS and any(value is not None and abs(int(value)) >= SEPARATED_FROM for value in values):
        return _separated
    return None


def _cents(text: str) -> str:
    cents = Decimal(text).quantize(Decimal("0.01"), ROUND_HALF_UP)
    return f"{cents.copy_abs() if cents.is_zero() else cents:,.2f}"  # no -0.00


def _separated(text: str) -> str:
    return f"{Decimal(text):,}"


def _float(text: str) -> str:
    value = float(text)
    if not math.isfinite(value):
        return text  # DuckDB's inf, -inf, nan
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    if not -4 <= magnitude < 15:
        return f"{value:.{FLOAT_DIGITS}g}"  # 1.23457e-05, 1.23457e+15
    written = f"{value:,.{max(FLOAT_DIGITS - 1 - magnitude, 0)}f}"
    return written.rstrip("0").rstrip(".") if "." in written else written


def width(text: str) -> int:
    """Columns a terminal gives `text`: two for wide East Asian characters, none for combining marks."""
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text
    )


def _cut(text: str, limit: int) -> str:
    if width(text) <= limit:
        return text
    while width(text) > limit - 1:
        text = text[:-1]
    return text + "…"


def _pad(text: str, size: int, how: str) -> str:
    space = size - width(text)
    if how == "right":
        return " " * space + text
    if how == "center":
        return " " * (space // 2) + text + " " * (space - space // 2)
    return text + " " * space


def terminal_width() -> int | None:
    """The width to fit a table in: the terminal's (or $COLUMNS), or None when printing to a pipe."""
    if "COLUMNS" in os.environ or sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def box(result: Result, max_width: int | None = None, types: bool = True) -> str:
    """The result as DuckDB's shell draws it: names and (with `types`) types over the rows, then a
    footer that counts the rows, and says what was left out to fit `max_width`."""
    cells = [[_cut(("NULL" if value is None else value).translate(ESCAPES), CELL_WIDTH) for value in row]
             for row in result.rows]  # fmt: skip
    sizes = [
        max([width(name), width(dtype) if types else 0, *(width(row[i]) for row in cells)])
        for i, (name, dtype) in enumerate(zip(result.names, result.types, strict=True))
    ]
    shown = len(sizes)
    while max_width is not None and shown > 1 and 1 + sum(size + 3 for size in sizes[:shown]) > max_width:
        shown -= 1
    sizes, right = sizes[:shown], result.right[:shown]

    def line(left: str, middle: str, end: str) -> str:
        return left + middle.join("─" * (size + 2) for size in sizes) + end

    def row(values, how) -> str:
        return "│" + "│".join(f" {_pad(v, s, h)} " for v, s, h in zip(values, sizes, how, strict=False)) + "│"

    lines = [line("┌", "┬", "┐"), row(result.names, ["center"] * shown)]
    if types:
        lines.append(row(result.types, ["center"] * shown))
    lines.append(line("├", "┼", "┤"))
    lines += [row(values, ["right" if r else "left" for r in right]) for values in cells]
    lines.append(line("└", "┴", "┘"))
    lines.append(_footer(result, shown, max_width))
    return "\n".join(lines)


def _footer(result: Result, shown: int, max_width: int | None) -> str:
    footer = f"{result.total:,} row{'' if result.total == 1 else 's'}"
    if len(result.rows) < result.total:
        footer += f" ({len(result.rows):,} shown: --max-rows 0 shows every row, --format csv writes them)"
    if shown < len(result.names):
        footer += (
            f"; {len(result.names)} columns ({shown} shown to fit {max_width} characters: "
            "widen the terminal or set COLUMNS, or use --format csv)"
        )
    return "  " + footer


def markdown(result: Result) -> str:
    """The result as a Markdown table (numbers aligned right, NULL empty as in DuckDB's markdown
    mode), for pasting into a document."""

    def row(values) -> str:
        cells = (("" if v is None else v).translate(ESCAPES).replace("|", "\\|") for v in values)
        return "| " + " | ".join(cells) + " |"

    rule = "|" + "|".join("---:" if right else "---" for right in result.right) + "|"
    return "\n".join([row(result.names), rule, *(row(values) for values in result.rows)])


def print_table(relation: duckdb.DuckDBPyRelation, out: TextIO | None = None) -> None:
    """Print every row of `relation` as a box table fitted to the terminal, its numbers `readable`."""
    print(box(readable(fetch(relation)), terminal_width()), file=out or sys.stdout)


def print_summary(relation: duckdb.DuckDBPyRelation, currency: str, out: TextIO | None = None) -> None:
    """Print every row of `relation` `worded` for people, without DuckDB's types, fitted to the terminal."""
    print(box(worded(fetch(relation), currency), terminal_width(), types=False), file=out or sys.stdout)
