"""core.rounds and core.bets as Parquet files beside the warehouse, read through views of those names.

These two tables grow by millions of rows a night: appending them to the DuckDB file was most of an
ingest's work, and every publish of the serving snapshot copied them whole. Instead each ingested
file's accepted rows go to Parquet files in `<warehouse>.lake/<table>/`, written once and never
changed. `meta.lake_files` lists the files each table holds, and the table is a view over exactly
those, re-created in the transaction that lists new ones: a crash leaves files no view reads (removed
by the next writer), and a snapshot's views only name files that stay for at least a day: when
`compact` merges small files into one, the small ones are retired, and removed only a day later.
"""

from __future__ import annotations

import datetime as dt
import glob
import uuid
from functools import cache
from pathlib import Path
from typing import NamedTuple

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from models.warehouse.schema import LAKE_FILES, LAKE_TABLES

#: Files under `SMALL_ROWS` rows are small (an ingest writes batches of 250,000 rows): once
#: `MERGE_AT` of a table's gather, `compact` merges them into files of up to `MERGED_ROWS`. Every
#: query opens each listed file's footer, so a year of small nightly files would slow them all.
SMALL_ROWS = 200_000
MERGED_ROWS = 1_000_000
MERGE_AT = 16
#: How long a merged file's parts stay after they are retired: a reader may hold a snapshot whose
#: views still name them.
RETIRED_FOR = dt.timedelta(days=1)


def folder(db: Path) -> Path:
    """The lake of the warehouse at `db`: `banco.duckdb` keeps its files in `banco.lake/` (an
    absolute path: the views name files by it, and readers run from any folder)."""
    return db.absolute().with_name(f"{db.stem}.lake")


class Template(NamedTuple):
    """A lake table's columns as the contract gives them."""

    columns: list[tuple[str, str]]  # (name, SQL type)
    schema: pl.Schema  # the Polars types
    required: frozenset[str]  # the names of the NOT NULL ones


@cache
def _template(table: str) -> Template:
    """The table's `Template`, read off its DDL by an in-memory DuckDB."""
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"CREATE TABLE template ({LAKE_TABLES[table]})")
    described = con.sql("DESCRIBE template").fetchall()
    return Template(
        columns=[(name, dtype) for name, dtype, *_ in described],
        schema=con.sql("SELECT * FROM template").pl().schema,
        required=frozenset(name for name, _, null, *_ in described if null == "NO"),
    )


def is_lake(path: Path) -> bool:
    """Whether `path` is a warehouse's lake (`banco.lake/` beside `banco.duckdb`, holding a folder
    per lake table): its files hold rows already stored, never round logs to ingest."""
    if path.suffix != ".lake" or not any((path / table.replace(".", "/")).is_dir() for table in LAKE_TABLES):
        return False
    return any(s != path and s.is_file() for s in path.parent.glob(f"{glob.escape(path.stem)}.*"))


def frame_schema(table: str) -> pl.Schema:
    """The Polars types of a lake table's columns, as the contract gives them."""
    return _template(table).schema


def conform(table: str, frame: pl.DataFrame) -> pl.DataFrame:
    """The frame's columns of the table, in its order and types."""
    return frame.select(pl.col(name).cast(dtype) for name, dtype in frame_schema(table).items())


def new_path(lake: Path, table: str) -> Path:
    path = lake / table.replace(".", "/") / f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:12]}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def write_file(lake: Path, table: str, frame: pl.DataFrame) -> Path:
    """Write rows of `table` to a new file of the lake (listed by `add` in the writer's transaction)."""
    return write_to(new_path(lake, table), table, frame)


#: Columns whose row groups carry min/max statistics: a one-day build's time filter skips the other
#: days' row groups by `started_at`, and a shoe's lookup skips by its key. Statistics elsewhere
#: cost an eighth of the write and serve no query.
STATISTICS = ("table_id", "shoe_id", "round_no", "started_at")
#: Polars' own row group size: a merged file keeps row groups a one-day filter can skip.
ROW_GROUP_ROWS = 262_144
#: Text written plain rather than through a dictionary: the hands, a few tens of thousands of
#: distinct values a batch, whose dictionary's lookups cost a twelfth of the write and save an
#: eighth of the file.
PLAIN_TEXT = ("player_cards", "banker_cards", "player2_cards")
#: Columns left uncompressed: the instants, all distinct, which LZ4 shrinks by 4% for twice the
#: cost of writing them plain.
UNCOMPRESSED = ("started_at",)


def write_to(path: Path, table: str, frame: pl.DataFrame) -> Path:
    """Write rows of `table` to `path`, a `new_path` of the lake.

    Written by Arrow's writer, which Polars' cannot match column by column: text is dictionary
    encoded (a table's ids, games and outcomes repeat), the line numbers, which count up, are delta
    encoded, and statistics are kept only where a query uses them. LZ4 rather than zstd: a sixth
    less work to write (and less to read) for files a third larger. No Arrow schema is stored, so
    every reader takes the columns in the Parquet types the contract names (text as text, times in
    UTC)."""
    rows = conform(table, frame).to_arrow(compat_level=pl.CompatLevel.newest())
    # NOT NULL columns are written as required, and so is any other column without a null in these
    # rows: no definition levels to encode (a null in a NOT NULL column fails the cast, and the
    # file with it)
    required = _template(table).required
    optional = [field.name not in required and rows[field.name].null_count > 0 for field in rows.schema]
    rows = rows.cast(pa.schema([field.with_nullable(null) for field, null in zip(rows.schema, optional, strict=True)]))
    text = [name for name, dtype in frame_schema(table).items() if dtype == pl.String and name not in PLAIN_TEXT]
    pq.write_table(
        rows,
        path,
        row_group_size=ROW_GROUP_ROWS,
        compression={name: "none" if name in UNCOMPRESSED else "lz4" for name in rows.column_names},
        use_dictionary=text,
        column_encoding={"line_no": "DELTA_BINARY_PACKED"},
        write_statistics=[name for name in STATISTICS if name in rows.column_names],
        store_schema=False,
    )
    return path


def add(con, lake: Path, table: str, files: list[tuple[Path, int]]) -> None:
    """List new files (path, rows) of `table`, if any, and re-create its view; the caller holds the
    transaction."""
    if files:
        now = dt.datetime.now(dt.UTC)
        con.executemany(
            f"INSERT INTO {LAKE_FILES} VALUES (?, ?, ?, ?, NULL)",
            [[table, path.relative_to(lake).as_posix(), rows, now] for path, rows in files],
        )
    _create_view(con, lake, table)


def _paths(con, table: str) -> list[str]:
    """The table's files, within the lake, in the order they were added."""
    query = f"SELECT path FROM {LAKE_FILES} WHERE table_name = ? AND retired_at IS NULL ORDER BY added_at, path"
    return [row[0] for row in con.execute(query, [table]).fetchall()]


def scan(con, db: Path, table: str) -> pl.LazyFrame:
    """The table's rows as Polars reads them straight from its files (what its view reads)."""
    return _scan(table, [folder(db) / path for path in _paths(con, table)])


def _scan(table: str, paths: list[Path]) -> pl.LazyFrame:
    """The table's columns from `paths`; a column a file of an earlier release holds beyond them
    (such as `content_hash`) is passed over."""
    if not paths:
        return pl.LazyFrame(schema=frame_schema(table))
    return pl.scan_parquet(paths, extra_columns="ignore").select(frame_schema(table).names())


def _create_view(con, lake: Path, table: str) -> None:
    paths = _paths(con, table)
    if paths:
        listed = ", ".join("'" + str(lake / path).replace("'", "''") + "'" for path in paths)
        # the contract's columns by name: a file of an earlier release may hold more
        columns = ", ".join(f'"{name}"' for name, _ in _template(table).columns)
        source = f"SELECT {columns} FROM read_parquet([{listed}])"
    else:  # no file yet: the columns, typed, without rows
        columns = ", ".join(f'CAST(NULL AS {dtype}) AS "{name}"' for name, dtype in _template(table).columns)
        source = f"SELECT {columns} LIMIT 0"
    con.execute(f"CREATE OR REPLACE VIEW {table} AS {source}")


def ensure(con, db: Path) -> bool:
    """At a writer's open: move tables an older release kept in the file out to the lake (returns
    whether it did), point every view at the lake where it now is, and remove files no view lists
    (left by a crash)."""
    lake = folder(db)
    tables = {row[0] for row in con.sql("SELECT schema_name || '.' || table_name FROM duckdb_tables()").fetchall()}
    migrated = [table for table in LAKE_TABLES if table in tables]
    for table in LAKE_TABLES:
        if table in migrated:
            _migrate(con, lake, table)
        else:
            _create_view(con, lake, table)
    expired = dt.datetime.now(dt.UTC) - RETIRED_FOR
    for (path,) in con.execute(f"SELECT path FROM {LAKE_FILES} WHERE retired_at < ?", [expired]).fetchall():
        (lake / path).unlink(missing_ok=True)
    con.execute(f"DELETE FROM {LAKE_FILES} WHERE retired_at < ?", [expired])
    listed = {lake / row[0] for row in con.sql(f"SELECT path FROM {LAKE_FILES}").fetchall()}
    for path in lake.rglob("*.parquet") if lake.exists() else ():
        if path not in listed:
            path.unlink()
    return bool(migrated)


def compact(con, db: Path, table: str) -> int:
    """Once `MERGE_AT` small files of `table` gather, merge them, in the order they were added, into
    files of up to `MERGED_ROWS` rows, in one transaction; the parts are retired. Returns the number
    of files merged."""
    small = con.execute(
        f"SELECT path, rows, added_at FROM {LAKE_FILES} WHERE table_name = ? AND retired_at IS NULL "
        "AND rows < ? ORDER BY added_at, path",
        [table, SMALL_ROWS],
    ).fetchall()
    if len(small) < MERGE_AT:
        return 0
    groups, rows = [[]], 0
    for part in small:
        if rows + part[1] > MERGED_ROWS and groups[-1]:
            groups.append([])
            rows = 0
        groups[-1].append(part)
        rows += part[1]
    groups = [group for group in groups if len(group) > 1]
    lake = folder(db)
    merged = [
        (write_file(lake, table, _scan(table, [lake / path for path, *_ in group]).collect()), group)
        for group in groups
    ]
    now = dt.datetime.now(dt.UTC)
    con.execute("BEGIN TRANSACTION")
    try:
        for path, group in merged:
            parts = [part_path for part_path, *_ in group]
            con.execute(f"UPDATE {LAKE_FILES} SET retired_at = ? WHERE path IN (SELECT unnest(?))", [now, parts])
            # the merged file takes the place of its first part in the order of the files
            con.execute(
                f"INSERT INTO {LAKE_FILES} VALUES (?, ?, ?, ?, NULL)",
                [table, path.relative_to(lake).as_posix(), sum(part[1] for part in group), group[0][2]],
            )
        _create_view(con, lake, table)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        for path, _ in merged:
            path.unlink(missing_ok=True)
        raise
    return sum(len(group) for _, group in merged)


def _migrate(con, lake: Path, table: str) -> None:
    """A table stored in the warehouse file by an older release becomes a lake file and a view
    (DuckDB streams it out: its columns are already the contract's)."""
    con.execute("BEGIN TRANSACTION")
    try:
        rows = con.sql(f"SELECT count(*) FROM {table}").fetchall()[0][0]
        path = new_path(lake, table)
        if rows:
            con.execute(f"COPY {table} TO '{path}' (FORMAT parquet, COMPRESSION zstd)")
        con.execute(f"DROP TABLE {table}")
        add(con, lake, table, [(path, rows)] if rows else [])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
