"""What a warehouse of the release before the Iceberg tables looks like (migrate.py moves it): for
readers to tell one apart without the Iceberg library."""

from __future__ import annotations

from pathlib import Path

from models.warehouse.schema import TABLES

#: The earlier release's list of lake files.
LAKE_FILES = "meta.lake_files"
#: What a reader says of a serving snapshot an earlier release wrote (its views read `banco.lake/`).
EARLIER = (
    "{db} was written by an earlier release: run `banco migrate --db {db}` "
    "(or any writer: banco ingest, banco build) first"
)


def lake_folder(db: Path) -> Path:
    """Where the earlier release kept core.rounds and core.bets: `banco.lake/` beside `banco.duckdb`."""
    return db.absolute().with_name(f"{db.stem}.lake")


def relations(con) -> dict[str, str]:
    """The current DuckDB database's tables and views by name: 'TABLE' or 'VIEW'."""
    here = "database_name = current_database()"
    tables = f"SELECT schema_name || '.' || table_name, 'TABLE' FROM duckdb_tables() WHERE {here}"
    views = f"SELECT schema_name || '.' || view_name, 'VIEW' FROM duckdb_views() WHERE NOT internal AND {here}"
    return dict(con.sql(tables).fetchall()) | dict(con.sql(views).fetchall())


def needed(con) -> bool:
    """Whether the DuckDB database holds an earlier release's tables (anything but views), or its
    list of lake files."""
    kinds = relations(con)
    return LAKE_FILES in kinds or any(kinds.get(name) == "TABLE" for name in TABLES)
