"""The marts of one gaming day and shard, as a worker computed them, kept on the warehouse's store
(its folder or its bucket) until the serving host combines the day's shards.

Each run writes its marts' Parquet files into a folder of its own, then a small pointer naming
that run, in one step (a rename, or one PUT): a reader follows the pointer, so it never reads a
run half written, and a rerun replaces the last one whole.

    <warehouse>/partials/gaming_day=<day>/shard=<shard>/<run_id>/<mart>.parquet
    <warehouse>/partials/gaming_day=<day>/shard=<shard>.json    {run_id, shards, marts, written_at}
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from models.warehouse.location import Settings, object_store
from models.warehouse.store import WarehouseError

#: What a run id or a mart's name may hold: they name folders and files.
SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def write(db: Path, day: dt.date, shard: str, shards: int, frames: Mapping[str, pl.DataFrame], run_id: str) -> None:
    """Store the marts of `day` on `shard` (one of `shards`) as run `run_id` computed them, in place
    of any earlier run's."""
    for name in (run_id, shard, *frames):
        if not SAFE_NAME.fullmatch(name) or name.strip(".") == "":
            raise ValueError(f"a run id, shard or mart name names a file or folder: {name!r} will not do")
    store = _Store.of(db)
    pointer = _pointer(day, shard)
    earlier = _written(store, pointer)
    if earlier is not None and earlier["run_id"] == run_id:
        # the same run again (a retried step): the pointer goes first, so nobody reads the folder while it is rewritten
        store.remove(pointer)
        store.remove_tree(_folder(day, shard, run_id))
    for name, frame in frames.items():
        buffer = io.BytesIO()
        frame.write_parquet(buffer)
        store.put(f"{_folder(day, shard, run_id)}/{name}.parquet", buffer.getvalue())
    written_at = dt.datetime.now(dt.UTC).isoformat()
    facts = {"run_id": run_id, "shards": shards, "marts": list(frames), "written_at": written_at}
    store.put_at_once(pointer, json.dumps(facts).encode())
    if earlier is not None and earlier["run_id"] != run_id:
        store.remove_tree(_folder(day, shard, earlier["run_id"]))


def read(db: Path, day: dt.date, shard: str, shards: int) -> dict[str, pl.DataFrame]:
    """The marts of `day` on `shard` as the last run wrote them, for a sharding into `shards`."""
    store = _Store.of(db)
    rebuild = f"rebuild the shard marts of {day}"
    facts = _written(store, _pointer(day, shard))
    if facts is None:
        raise WarehouseError(f"{rebuild}: shard {shard} has no marts stored for that day")
    if facts["shards"] != shards:
        raise WarehouseError(
            f"{rebuild}: shard {shard}'s marts were computed for {facts['shards']} shards, not {shards}"
        )
    folder = _folder(day, shard, facts["run_id"])
    try:
        return {name: pl.read_parquet(io.BytesIO(store.get(f"{folder}/{name}.parquet"))) for name in facts["marts"]}
    except FileNotFoundError:
        raise WarehouseError(f"{rebuild}: shard {shard}'s run {facts['run_id']} has lost files") from None


def _pointer(day: dt.date, shard: str) -> str:
    return f"partials/gaming_day={day.isoformat()}/shard={shard}.json"


def _folder(day: dt.date, shard: str, run_id: str) -> str:
    return f"partials/gaming_day={day.isoformat()}/shard={shard}/{run_id}"


def _written(store: _Store, pointer: str) -> dict | None:
    """What the pointer says (run_id, shards, marts, written_at), or None where there is none."""
    try:
        text = store.get(pointer)
    except FileNotFoundError:
        return None
    try:
        facts = json.loads(text)
        if not isinstance(facts, dict) or not {"run_id", "shards", "marts"} <= facts.keys():
            raise ValueError("a field is missing")
    except ValueError as error:
        raise WarehouseError(f"the partial marts' pointer {pointer} cannot be read: {error}") from None
    return facts


class _Store:
    """Files under the warehouse's root, named by their path below it: on this machine's disk, or
    in the object store (through fsspec, as DuckDB reads it)."""

    def __init__(self, root: str, fs) -> None:
        self.root, self.fs = root, fs

    @classmethod
    def of(cls, db: Path) -> _Store:
        settings = Settings.of(db)
        fs = object_store(settings)
        return cls(str(settings.local_folder) if fs is None else settings.warehouse_uri, fs)

    def _at(self, name: str) -> str:
        return f"{self.root}/{name}"

    def get(self, name: str) -> bytes:
        if self.fs is None:
            return Path(self._at(name)).read_bytes()
        return self.fs.cat_file(self._at(name))

    def put(self, name: str, data: bytes) -> None:
        if self.fs is not None:
            return self.fs.pipe_file(self._at(name), data)
        path = Path(self._at(name))
        path.parent.mkdir(parents=True, exist_ok=True)
        _durably(path, data)

    def put_at_once(self, name: str, data: bytes) -> None:
        """Write a file that readers see whole or not at all (an object store's PUT is)."""
        if self.fs is not None:
            return self.fs.pipe_file(self._at(name), data)
        path = Path(self._at(name))
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        _durably(temporary, data)
        os.replace(temporary, path)

    def remove(self, name: str) -> None:
        if self.fs is None:
            Path(self._at(name)).unlink(missing_ok=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm_file(self._at(name))

    def remove_tree(self, name: str) -> None:
        if self.fs is None:
            shutil.rmtree(self._at(name), ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                self.fs.rm(self._at(name), recursive=True)


def _durably(path: Path, data: bytes) -> None:
    """Write the file and wait for the disk: the pointer written after it never names a file a crash loses."""
    with open(path, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
