"""Read-only SQL over the serving snapshot of the warehouse."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models.warehouse import reader
from models.warehouse.store import printable
from pipelines import terminal

WHERE = "banco sql"
FORMATS = ("table", "csv", "json", "markdown")
MAX_ROWS = 1000
#: The columns of an EXPLAIN's result.
EXPLAIN = ["explain_key", "explain_value"]


def _rows(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number of rows, 0 for all, not {text!r}")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help='one SQL query, e.g. "SELECT outcome, count(*) FROM core.rounds GROUP BY 1"')
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="table (the default) for people; csv, json or markdown to pipe or paste")  # fmt: skip
    parser.add_argument("--max-rows", type=_rows, default=MAX_ROWS,
                        help=f"rows the table shows at most, all counted (default {MAX_ROWS}; 0 for all)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    fetch = {
        "table": lambda relation: terminal.fetch(relation, args.max_rows or None),
        "markdown": terminal.fetch,
        "csv": lambda relation: printable(relation, nested_as_json=True).pl(),  # CSV has no nested values
        "json": lambda relation: printable(relation, nested_as_json=False).pl(),
    }[args.format]
    result = reader.run(Path(args.db), args.query, fetch, where=WHERE)
    if args.format == "table" and result.names == EXPLAIN:
        print("\n".join(value for _, value in result.rows))  # the plan DuckDB drew, as its shell prints it
    elif args.format == "table":
        print(terminal.box(result, terminal.terminal_width()))
    elif args.format == "markdown":
        print(terminal.markdown(result))
    elif args.format == "csv":
        result.write_csv(sys.stdout)
    else:
        sys.stdout.write(result.write_json() + "\n")
    return 0
