"""Read-only SQL over the serving snapshot of the warehouse."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb
import polars as pl

from models.warehouse.store import printable, read, writes

READ_ONLY = "banco sql is read-only: it runs queries on the serving snapshot, never writes"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help='one SQL query, e.g. "SELECT outcome, count(*) FROM core.rounds GROUP BY 1"')
    parser.add_argument("--format", choices=("table", "csv", "json"), default="table")


def run(args: argparse.Namespace) -> int:
    con = read(Path(args.db))
    try:
        if args.query.strip() and writes(args.query):
            raise ValueError(READ_ONLY)
        relation = con.sql(args.query) if args.query.strip() else None
        frame = printable(relation, nested_as_json=args.format == "csv").pl() if relation is not None else None
    except duckdb.Error as error:
        message = str(error).splitlines()[0]
        if "read-only" in message.lower() or "read only" in message.lower():
            raise ValueError(READ_ONLY) from None
        raise ValueError(f"SQL error: {message}") from None
    finally:
        con.close()
    if frame is None:
        raise ValueError("the query returned no result")
    if args.format == "csv":
        frame.write_csv(sys.stdout)
    elif args.format == "json":
        sys.stdout.write(frame.write_json() + "\n")
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=80, tbl_width_chars=200):
            print(frame)
    return 0
