"""Move a warehouse an earlier release wrote onto the Iceberg tables; print the rows each table took."""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb

from models.settings import Settings
from models.warehouse import migrate, store
from models.warehouse.store import WarehouseError


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    """Nothing but `--db`: the warehouse to move."""


def run(args: argparse.Namespace) -> int:
    db = Path(args.db)
    if not db.is_file():
        raise WarehouseError(f"no warehouse at {db}: nothing to migrate")
    if not _pending(db):
        print(f"nothing to move: {db} is on the Iceberg tables already")
        return 0
    with store.writer(db) as writer:  # the writer's open moves it (store.prepare)
        moved = migrate.moved(writer.tables) or {}
        settings = writer.tables.settings
    print(f"moved {db} onto the Iceberg tables of {settings.catalog_uri} ({settings.warehouse_uri}):")
    print("\n".join(f"  {name}: {rows:,} rows" for name, rows in moved.items()))
    return 0


def _pending(db: Path) -> bool:
    """Whether the warehouse holds an earlier release's tables, looked at under the writer's lock."""
    with store.writer_lock(db):
        try:
            con = duckdb.connect(str(db), read_only=True)
        except duckdb.Error as error:
            raise WarehouseError(f"cannot open {db}: {str(error).strip().splitlines()[0]}") from None
        try:
            return migrate.needed(con)
        finally:
            con.close()
