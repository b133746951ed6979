"""Keeping the Iceberg tables quick to read: small data files merged, old snapshots expired, and
files no snapshot names removed, never a file a snapshot still in use names.

Compaction is a rewrite committed as one snapshot (pyiceberg 0.12 has no rewrite of data files):
the merged files replace their parts, which stay on disk for readers of the older snapshots.
Expiry is Iceberg's own (`expire_snapshots`); after it, a file that no snapshot kept names and
that is older than the retention is removed (pyiceberg has no orphan-file removal either).
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlparse

import pyarrow.fs as pafs

from models.settings import Settings
from models.warehouse import files
from models.warehouse.iceberg import Tables
from models.warehouse.schema import INGEST_LOG, TABLES

#: Files under `SMALL_ROWS` rows are small (an ingest writes a batch of 250,000 rows a file): once
#: `MERGE_AT` of a table's gather, they are merged into files of up to `MERGED_ROWS`. Every query
#: opens each file's footer, so a year of small nightly files would slow them all.
SMALL_ROWS = 200_000
MERGED_ROWS = 1_000_000
MERGE_AT = 16


def retention() -> dt.timedelta:
    """How long a snapshot stays readable after a newer one replaces it (the setting
    `snapshot_retention_hours`): a reader may hold a serving snapshot a publish has since removed, whose
    views name its files, that long."""
    return dt.timedelta(hours=Settings.from_env().snapshot_retention_hours)


def compact(tables: Tables, name: str) -> int:
    """Merge the table's small files once `MERGE_AT` gather (in the order listed), committed as one
    snapshot; returns the number of files merged."""
    small = [(location, rows) for location, rows in tables.files(name, tables.snapshot_id(name)) if rows < SMALL_ROWS]
    if len(small) < MERGE_AT:
        return 0
    groups, rows = [[]], 0
    for part in small:
        if rows + part[1] > MERGED_ROWS and groups[-1]:
            groups.append([])
            rows = 0
        groups[-1].append(part[0])
        rows += part[1]
    groups = [group for group in groups if len(group) > 1]
    merged = []
    for group in groups:
        frame = files.read(tables.io, group, name)
        merged.append(files.write(tables.io, tables.location(name, "compact"), name, frame))
    tables.rewrite(name, [location for group in groups for location in group], merged, "compact")
    return sum(len(group) for group in groups)


def expire(tables: Tables, keep: frozenset[int] = frozenset(), now: dt.datetime | None = None) -> int:
    """Expire every table's snapshots older than the retention but the current one and those in
    `keep` (the ones the current and the previous serving snapshot read, however old), then remove the
    files no kept snapshot names; returns the number of files removed."""
    older = (now or dt.datetime.now(dt.UTC)) - retention()
    removed = 0
    for name in TABLES:
        table = tables.table(name)
        current = table.current_snapshot()
        kept = keep | ({current.snapshot_id} if current else set())
        old = [
            s.snapshot_id
            for s in table.snapshots()
            if s.timestamp_ms < older.timestamp() * 1000 and s.snapshot_id not in kept
        ]
        if old:
            table.maintenance.expire_snapshots().by_ids(old).commit()
            tables.loaded.pop(name, None)
        removed += _remove_unnamed(tables, name, older)
    return removed


def _named(tables: Tables, name: str) -> set[str]:
    """Every file a kept snapshot of the table names: its live data files, manifests, manifest
    lists and the metadata files. A manifest's DELETED entries name files of an older snapshot
    (pyiceberg's overwrite keeps such manifests in every later list), not of this one."""
    table = tables.table(name)
    named = {table.metadata_location, *(entry.metadata_file for entry in table.metadata.metadata_log)}
    manifests = {}
    for snapshot in table.snapshots():
        named.add(snapshot.manifest_list)
        manifests |= {manifest.manifest_path: manifest for manifest in snapshot.manifests(table.io)}
    for path, manifest in manifests.items():  # a manifest is in many snapshots' lists: read once
        named.add(path)
        entries = manifest.fetch_manifest_entry(table.io, discard_deleted=True)
        named.update(entry.data_file.file_path for entry in entries)
    return {_plain(location) for location in named}


def _remove_unnamed(tables: Tables, name: str, older: dt.datetime) -> int:
    """Remove the table's files that no kept snapshot names and that were written before `older`
    (a file younger may be a writer's, staged and not committed yet)."""
    root = tables.table(name).location()
    fs, base = pafs.FileSystem.from_uri(root) if urlparse(root).scheme in ("", "file") else _object_fs(tables, root)
    try:
        found = fs.get_file_info(pafs.FileSelector(base, recursive=True, allow_not_found=True))
    except FileNotFoundError:
        return 0
    old = [
        info.path
        for info in found
        if info.type == pafs.FileType.File and info.mtime is not None and _utc(info.mtime) < older
    ]
    if not old:
        return 0
    named = _named(tables, name)
    unnamed = [path for path in old if _plain(path) not in named]
    for path in unnamed:
        fs.delete_file(path)
    return len(unnamed)


def _utc(instant: dt.datetime) -> dt.datetime:
    return instant if instant.tzinfo else instant.replace(tzinfo=dt.UTC)


def _object_fs(tables: Tables, root: str):
    """The object store's filesystem as pyiceberg's FileIO reaches it (its endpoint and keys)."""
    parsed = urlparse(root)
    return tables.io.fs_by_scheme(parsed.scheme, parsed.netloc), f"{parsed.netloc}{parsed.path}"


def _plain(location: str) -> str:
    """A location without its scheme, as the filesystem lists it."""
    parsed = urlparse(location)
    return f"{parsed.netloc}{parsed.path}" if parsed.scheme not in ("", "file") else parsed.path


def run(tables: Tables, keep: frozenset[int] | None = frozenset()) -> dict[str, int]:
    """Compact every table, the log last (its commit, naming the others' new snapshots, is the
    warehouse's), then expire (never the snapshots in `keep`, the ones the published serving snapshots
    read; nothing at all when they cannot be known, None) and clean. Returns what was done."""
    merged = {name: compact(tables, name) for name in TABLES}
    if any(merged.values()) and not merged[INGEST_LOG]:
        tables.record("compact")
    return {**merged, "files_removed": 0 if keep is None else expire(tables, keep)}
