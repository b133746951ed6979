"""Query results printed for people: a box table like DuckDB's own shell, and Markdown.

DuckDB's Python renderer (`relation.show()`) draws the same box but cannot count past 9,999 rows
and gives no row count for a result shown whole, so the box is drawn here. Every value is DuckDB's
own text for it (a DECIMAL with all its decimals, NULL as `NULL`), numbers aligned right.
"""

from __future__ import annotations

import os
import shutil
import sys
import unicodedata
from dataclasses import dataclass
from typing import TextIO

import duckdb

#: Types whose values are aligned right.
NUMBERS = {
    "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint", "uinteger", "ubigint",
    "uhugeint", "float", "double", "decimal", "bignum", "varint",
}  # fmt: skip
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


def box(result: Result, max_width: int | None = None) -> str:
    """The result as DuckDB's shell draws it: names and types over the rows, then a footer that
    counts the rows, and says what was left out to fit `max_width`."""
    cells = [[_cut(("NULL" if value is None else value).translate(ESCAPES), CELL_WIDTH) for value in row]
             for row in result.rows]  # fmt: skip
    sizes = [
        max([width(name), width(dtype), *(width(row[i]) for row in cells)])
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

    lines = [line("┌", "┬", "┐"), row(result.names, ["center"] * shown), row(result.types, ["center"] * shown)]
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
    """Print every row of `relation` as a box table fitted to the terminal."""
    print(box(fetch(relation), terminal_width()), file=out or sys.stdout)
