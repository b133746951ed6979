"""Read-only SQL over the serving snapshot of the warehouse."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from models.settings import Settings
from models.warehouse import reader
from models.warehouse.store import printable
from pipelines import terminal

if TYPE_CHECKING:  # Polars writes CSV and JSON, imported for them alone: a table starts without it
    import polars as pl

WHERE = "banco sql"
FORMATS = ("table", "csv", "json", "markdown")
MAX_ROWS = 1000
#: The columns of an EXPLAIN's result.
EXPLAIN = ["explain_key", "explain_value"]
#: CSV and JSON are written a batch of rows at a time, so no result is held whole outside DuckDB's cap.
BATCH_ROWS = 100_000


def _rows(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number of rows, 0 for all, not {text!r}")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("query", help='one SQL query, e.g. "SELECT outcome, count(*) FROM core.rounds GROUP BY 1"')
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="table (the default) for people, money to the cent and floats to 6 significant "
                        "digits; csv, json or markdown to pipe or paste, every digit kept")  # fmt: skip
    parser.add_argument("--max-rows", type=_rows, default=MAX_ROWS,
                        help=f"rows the table shows at most, all counted (default {MAX_ROWS}; 0 for all)")  # fmt: skip
    parser.add_argument("--as-of", metavar="SNAPSHOT|TIME",
                        help="read the tables as an earlier commit left them: a snapshot id (meta.snapshots names "
                        "them) or an ISO 8601 time with its zone, e.g. 2026-11-03T12:00:00Z (the marts are not "
                        "there: they are built from the tables)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    fetch = {
        "table": lambda relation: terminal.fetch(relation, args.max_rows or None),
        "markdown": terminal.fetch,
        "csv": _write_csv,
        "json": _write_json,
    }[args.format]
    # CSV, JSON and a table of its first rows take the rows as they come; the others hold them all
    whole = args.format == "markdown" or (args.format == "table" and not args.max_rows)
    db = Path(args.db)
    if args.as_of is None:
        result = reader.run(db, args.query, fetch, where=WHERE, whole=whole)
    else:
        from models.warehouse import travel  # the Iceberg library, for this read alone

        commit = travel.find(db, args.as_of)
        print(f"{WHERE}: reading the tables at {commit.describe()}", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="banco-sql-") as folder:
            scratch = travel.snapshot_file(db, commit, Path(folder))
            result = reader.run(db, args.query, fetch, where=WHERE, snapshot=scratch, whole=whole)
    if args.format == "table" and result.names == EXPLAIN:
        print("\n".join(value for _, value in result.rows))  # the plan DuckDB drew, as its shell prints it
    elif args.format == "table":
        print(terminal.box(terminal.readable(result), terminal.terminal_width()))
    elif args.format == "markdown":
        print(terminal.markdown(result))
    return 0


def _unique(names: list[str]) -> list[str]:
    """Column names made unique as DuckDB's own frames make them: a name used again gets `_1`, `_2`."""
    seen: Counter[str] = Counter()
    unique = []
    for name in names:
        unique.append(f"{name}_{seen[name]}" if seen[name] else name)
        seen[name] += 1
    return unique


def _batches(relation, nested_as_json: bool) -> Iterator[pl.DataFrame]:
    import polars as pl

    names = _unique(relation.columns)
    for batch in printable(relation, nested_as_json=nested_as_json).to_arrow_reader(BATCH_ROWS):
        yield pl.from_arrow(batch.rename_columns(names))


def _write_csv(relation) -> None:
    """The rows as CSV on standard output, a batch at a time (CSV has no nested values: JSON text)."""
    header = True
    for frame in _batches(relation, nested_as_json=True):
        frame.write_csv(sys.stdout, include_header=header)
        header = False
    if header:  # no rows: the header alone
        import polars as pl

        pl.DataFrame(schema=_unique(relation.columns)).write_csv(sys.stdout)


def _write_json(relation) -> None:
    """The rows as one JSON array of objects on standard output, written a batch at a time."""
    sys.stdout.write("[")
    first = True
    for frame in _batches(relation, nested_as_json=False):
        rows = frame.write_json()[1:-1]
        if rows:
            sys.stdout.write(rows if first else "," + rows)
            first = False
    sys.stdout.write("]\n")
