"""The warehouse's tables on Apache Iceberg, through pyiceberg's SQL catalog.

Six tables (schema.TABLES) live in one catalog: a SQLite file and a local folder beside the DuckDB
file by default, or any SQLAlchemy catalog and any warehouse pyiceberg's FileIO reaches (Postgres
and `s3://`) from `BANCO_CATALOG_URI` and `BANCO_WAREHOUSE_URI`.

Iceberg commits one table at a time, so the warehouse's own commit is the log's: every commit of
meta.ingest_log records, in its snapshot's summary, the snapshot of each other table it goes with
(`banco.tables`). Readers read the tables at exactly those snapshots; a writer that finds a table
ahead of them (a crash between a file's commits) rolls it back before it writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import time
import uuid
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.exceptions import CommitFailedException, NamespaceAlreadyExistsError, TableAlreadyExistsError
from pyiceberg.io.pyarrow import parquet_file_to_data_file
from pyiceberg.manifest import DataFile
from pyiceberg.schema import assign_fresh_schema_ids
from pyiceberg.table import Table
from pyiceberg.table.snapshots import Operation, Snapshot
from pyiceberg.table.update.snapshot import _OverwriteFiles
from sqlalchemy import event
from sqlalchemy.exc import SQLAlchemyError

from models.warehouse.columns import arrow_schema
from models.warehouse.files import Written, data_file
from models.warehouse.location import Settings, is_table_folder, local_path
from models.warehouse.schema import INGEST_LOG, TABLES

# the locations' helpers the tables' callers use are named here too, beside the tables
__all__ = ["BY_KEY", "TABLES_KEY", "Settings", "Tables", "is_table_folder", "local_path", "point"]

#: The summary key of a log commit that names every other table's snapshot (JSON: name -> id).
TABLES_KEY = "banco.tables"
#: The summary key naming what made a snapshot: an ingest's id, or `compact`, `migrate`.
BY_KEY = "banco.by"
PROPERTIES = {
    # appends merge small manifests, so planning a scan reads a few, not one a file ever ingested
    "commit.manifest-merge.enabled": "true",
    "commit.manifest.min-count-to-merge": "16",
    # the metadata JSON of each commit is kept for the last 20 commits only
    "write.metadata.delete-after-commit.enabled": "true",
    "write.metadata.previous-versions-max": "20",
    "format-version": "2",
}
#: Tries of a commit another writer got in first (Iceberg's commits are optimistic).
COMMIT_TRIES = 5

# pyiceberg warns for every column our files keep no statistics for (on purpose: files.STATISTICS)
logging.getLogger("pyiceberg.io.pyarrow").setLevel(logging.ERROR)


def _write_ahead(engine) -> None:
    """SQLite in write-ahead mode, synced at checkpoints only: a commit costs a write, not two
    fsyncs, and a stopped process still loses none (only a power cut can lose the last commits,
    never tear one)."""

    @event.listens_for(engine, "connect")
    def _pragmas(connection, _record) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")  # a second writer waits rather than fails
        cursor.close()

    engine.dispose()  # the catalog's first connection was opened without them


def point(log: Snapshot) -> dict[str, int]:
    """The snapshot of every table that the log's commit `log` names, the log's own included."""
    named = json.loads(log.summary.additional_properties.get(TABLES_KEY, "{}")) if log.summary else {}
    named[INGEST_LOG] = log.snapshot_id
    return {name: int(value) for name, value in named.items() if value is not None}


def _load_catalog(settings: Settings, tries: int = 5) -> Catalog:
    """The SQL catalog; it makes its own tables on first use, so two writers opening a new catalog
    at once may race: the loser finds them made and tries again."""
    for attempt in range(tries):
        try:
            return load_catalog("banco", type="sql", uri=settings.catalog_uri, warehouse=settings.warehouse_uri)
        except SQLAlchemyError:
            if attempt == tries - 1:
                raise
            time.sleep(0.1 * 2**attempt)
    raise AssertionError("unreachable")


class _Swap(_OverwriteFiles):
    """pyiceberg's overwrite (what `update_snapshot().overwrite()` makes), less the parent's
    manifests that hold no live file, only an earlier snapshot's DELETED entries, which Iceberg's
    Java writer drops too: kept, one more piled up in the list at every rewrite (core.shoes is
    rewritten by every rounds file), and every later commit and scan read them all."""

    def _existing_manifests(self):
        return [m for m in super()._existing_manifests() if m.has_added_files() or m.has_existing_files()]


@dataclass
class Tables:
    """The warehouse's Iceberg tables, as one writer or reader of them sees them."""

    settings: Settings
    catalog: Catalog
    loaded: dict[str, Table] = field(default_factory=dict)
    #: Each table's data files at a snapshot: (location, rows) in the order they were added.
    listed: dict[tuple[str, int], list[tuple[str, int]]] = field(default_factory=dict)
    #: The rows of each data file this process added.
    sizes: dict[str, int] = field(default_factory=dict)
    #: How deep this process is in `exclusive` (it is re-entrant).
    holding: int = 0

    @classmethod
    def open(cls, db: Path) -> Tables:
        """The catalog, with every table in place (created on first use, with the first commit)."""
        settings = Settings.of(db)
        if settings.local_folder is not None:
            settings.local_folder.mkdir(parents=True, exist_ok=True)
        if settings.catalog_uri.startswith("sqlite:///"):
            Path(settings.catalog_uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        catalog = _load_catalog(settings)
        if catalog.engine.dialect.name == "sqlite":
            _write_ahead(catalog.engine)
        tables = cls(settings, catalog)
        with tables.exclusive():  # two writers opening a new warehouse at once make its tables once
            tables._create()
        tables._check_location()
        return tables

    def _check_location(self) -> None:
        """Refuse a catalog whose tables live elsewhere than the warehouse it is opened as: a local
        warehouse copied or moved whole, whose catalog still names the files where they were
        (Iceberg's metadata names every file by its full location)."""
        location = self.table(INGEST_LOG).location()
        folder = self.settings.local_folder
        if folder is not None and urlparse(location).scheme in ("", "file"):
            inside = Path(urlparse(location).path).resolve().is_relative_to(folder.resolve())
        else:
            inside = location.startswith(self.settings.warehouse_uri + "/")
        if not inside:
            raise ValueError(
                f"its catalog's tables are at {location.rsplit('/', 2)[0]}, not in {self.settings.warehouse_uri}: "
                "a warehouse cannot be moved or copied by its files; ingest its logs into a new one"
            )

    def _create(self) -> None:
        for name in TABLES:
            with contextlib.suppress(NamespaceAlreadyExistsError):
                self.catalog.create_namespace(name.split(".")[0])
            if self.catalog.table_exists(name):
                continue
            # ids as the catalog assigns them (in order), so the mapping can go in with the table
            schema = assign_fresh_schema_ids(Catalog._convert_schema_if_needed(arrow_schema(name)))
            # our files carry no field ids: their columns are read by name
            mapping = {"schema.name-mapping.default": schema.name_mapping.model_dump_json()}
            with contextlib.suppress(TableAlreadyExistsError):  # another writer made it first
                self.catalog.create_table(name, schema=schema, properties={**PROPERTIES, **mapping})

    def table(self, name: str) -> Table:
        if name not in self.loaded:
            self.loaded[name] = self.catalog.load_table(name)
        return self.loaded[name]

    def snapshot_id(self, name: str) -> int | None:
        snapshot = self.table(name).current_snapshot()
        return snapshot.snapshot_id if snapshot else None

    def location(self, name: str, by: str) -> str:
        """A new data file's location in the table's `data/` folder, named after what writes it."""
        return f"{self.table(name).location()}/data/{by}-{uuid.uuid4().hex[:12]}.parquet"

    @property
    def io(self):
        return self.table(INGEST_LOG).io

    # -- the warehouse's commit --------------------------------------------------------------

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the warehouse's commit lock while a file's tables and its log row are committed (and
        while a writer rolls back or maintains). Writers on other shards and machines work side by
        side and each table's commit stays optimistic, but Iceberg commits one table at a time: the
        log's commit may name only tables no other writer is half-way through. The lock is the
        catalog's own: an advisory lock in PostgreSQL, a file lock beside a SQLite catalog."""
        if self.holding:
            self.holding += 1
            try:
                yield
            finally:
                self.holding -= 1
            return
        with self._catalog_lock():
            self.holding = 1
            self.loaded.clear()  # other writers may have committed since: every table read afresh
            try:
                yield
            finally:
                self.holding = 0

    @contextlib.contextmanager
    def ingesting(self, shards: list[str]) -> Iterator[None]:
        """Hold the ingest lock of each of `shards` for a whole ingest: one writer per shard at a time,
        wherever it runs (two writers of one shard's files would each find them not yet ingested)."""
        with contextlib.ExitStack() as held:
            for shard in sorted(shards):  # in one order, so two writers never wait on each other
                held.enter_context(self._catalog_lock(f"ingest.{shard}"))
            self.loaded.clear()  # the last writer of these shards may have committed since they were read
            yield

    @contextlib.contextmanager
    def _catalog_lock(self, name: str = "commit") -> Iterator[None]:
        """A lock every process reaching the catalog sees: a PostgreSQL advisory lock (freed when its
        connection ends, with the process that held it) or a file lock beside a SQLite catalog."""
        engine = self.catalog.engine
        if engine.dialect.name == "postgresql":
            key = zlib.crc32(f"banco.warehouse.{name}".encode())
            with engine.connect() as connection:
                connection.exec_driver_sql(f"SELECT pg_advisory_lock({key})")
                try:
                    yield
                finally:
                    connection.exec_driver_sql(f"SELECT pg_advisory_unlock({key})")
            return
        if engine.dialect.name != "sqlite" or not engine.url.database:
            raise ValueError(f"the catalog must be SQLite or PostgreSQL, not {engine.dialect.name}")
        with open(f"{engine.url.database}.{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def commit_point(self) -> dict[str, int]:
        """The snapshot of every table that the log's current commit names (readers read these)."""
        snapshot = self.table(INGEST_LOG).current_snapshot()
        return point(snapshot) if snapshot is not None else {}

    def recover(self) -> list[str]:
        """Roll back every table whose current snapshot is not the one the log's commit names (a
        writer stopped between a file's commits); returns the tables rolled back."""
        with self.exclusive():
            return self._recover()

    def _recover(self) -> list[str]:
        point = self.commit_point()
        rolled = []
        for name in TABLES:
            if name == INGEST_LOG or self.snapshot_id(name) == point.get(name):
                continue
            if point.get(name) is None:  # ahead of a commit made before its first snapshot: emptied
                self.replace(name, [], "recover")
            else:
                self.table(name).manage_snapshots().set_current_snapshot(point[name]).commit()
                self.loaded.pop(name, None)
            rolled.append(name)
        if rolled and any(point.get(name) is None for name in rolled):
            self.record("recover")
        return rolled

    def record(self, by: str, log_files: list[str | Written] = ()) -> dict[str, int]:
        """Commit the log (its new data files, if any) with the snapshot of every other table: the
        warehouse's commit. Returns the new commit point."""
        with self.exclusive():
            self.add(INGEST_LOG, list(log_files), by)
            return self.commit_point()

    def _properties(self, name: str, by: str, properties: dict[str, str] | None) -> dict[str, str]:
        """A snapshot's summary: what made it, and for the log every other table's snapshot."""
        properties = {BY_KEY: by, **(properties or {})}
        if name == INGEST_LOG and TABLES_KEY not in properties:
            point = {other: self.snapshot_id(other) for other in TABLES if other != INGEST_LOG}
            properties[TABLES_KEY] = json.dumps(point)
        return properties

    # -- one table's commits -----------------------------------------------------------------

    def add(self, name: str, locations: list[str | Written], by: str, properties: dict[str, str] | None = None) -> None:
        """Append data files (as files.write returned them, or their locations) in one snapshot."""
        properties = self._properties(name, by, properties)
        parent, before = self.snapshot_id(name), self._files_now(name)

        def commit(table: Table) -> None:
            # a merge append, not a fast one: only it honours commit.manifest-merge.enabled (PROPERTIES)
            with table.transaction() as tx, tx.update_snapshot(snapshot_properties=properties).merge_append() as append:
                for data_file in self._data_files(table, locations):
                    append.append_data_file(data_file)

        self._commit(name, commit)
        self._list_after(name, parent, [*before, *self._described(locations)])

    def replace(
        self, name: str, locations: list[str | Written], by: str, properties: dict[str, str] | None = None
    ) -> None:
        """Replace every data file of the table with `locations`, in one snapshot."""
        self.rewrite(name, [location for location, _ in self._files_now(name)], locations, by, properties)

    def rewrite(
        self,
        name: str,
        removed: list[str],
        added: list[str | Written],
        by: str,
        properties: dict[str, str] | None = None,
    ) -> None:
        """Swap data files `removed` for `added` (the same rows, or a table's new contents) in one
        snapshot; the files removed stay on disk for readers of older snapshots until they expire."""
        properties = self._properties(name, by, properties)
        gone = set(removed)
        parent, before = self.snapshot_id(name), self._files_now(name)

        def commit(table: Table) -> None:
            current = table.current_snapshot()
            files = [task.file for task in table.scan(snapshot_id=current.snapshot_id).plan_files()] if current else []
            operation = Operation.OVERWRITE if current else Operation.APPEND
            with table.transaction() as tx, _Swap(operation, tx, table.io, snapshot_properties=properties) as swap:
                for data_file in files:
                    if data_file.file_path in gone:
                        swap.delete_data_file(data_file)
                for data_file in self._data_files(table, added):
                    swap.append_data_file(data_file)

        self._commit(name, commit)
        kept = [(location, rows) for location, rows in before if location not in gone]
        self._list_after(name, parent, [*kept, *self._described(added)])

    def _list_after(self, name: str, parent: int | None, listed: list[tuple[str, int]]) -> None:
        """Remember the files of the table's new snapshot, when it followed the one read before the
        commit (another writer's commit in between: they are listed afresh when asked for)."""
        snapshot = self.table(name).current_snapshot()
        if snapshot is not None and snapshot.parent_snapshot_id == parent:
            self.listed[(name, snapshot.snapshot_id)] = listed

    def _commit(self, name: str, commit) -> None:
        """Run `commit` on the table, again on a fresh copy when another writer committed first."""
        for attempt in range(COMMIT_TRIES):
            try:
                commit(self.table(name))
                break
            except CommitFailedException:
                self.loaded.pop(name, None)
                if attempt == COMMIT_TRIES - 1:
                    raise
                time.sleep(0.05 * 2**attempt)
        self.loaded.pop(name, None)

    def _data_files(self, table: Table, added: list[str | Written]) -> list[DataFile]:
        """Each file's Iceberg entry: from its footer in memory when it was just written, else read."""
        entries = [
            data_file(table.metadata, file)
            if isinstance(file, Written)
            else parquet_file_to_data_file(table.io, table.metadata, file)
            for file in added
        ]
        self.sizes.update({entry.file_path: entry.record_count for entry in entries})
        return entries

    def _described(self, added: list[str | Written]) -> list[tuple[str, int]]:
        locations = [file.location if isinstance(file, Written) else file for file in added]
        return [(location, self.sizes[location]) for location in locations]

    # -- reading -----------------------------------------------------------------------------

    def _files_now(self, name: str) -> list[tuple[str, int]]:
        snapshot_id = self.snapshot_id(name)
        return [] if snapshot_id is None else self.files(name, snapshot_id)

    def files(self, name: str, snapshot_id: int) -> list[tuple[str, int]]:
        """The table's data files (location, rows) at `snapshot_id`."""
        key = (name, snapshot_id)
        if key not in self.listed:
            tasks = list(self.table(name).scan(snapshot_id=snapshot_id).plan_files())
            if any(task.delete_files for task in tasks):  # our writers delete by rewriting files
                raise ValueError(f"{name} has delete files, which the warehouse's readers do not apply")
            self.listed[key] = [(task.file.file_path, task.file.record_count) for task in tasks]
        return self.listed[key]
