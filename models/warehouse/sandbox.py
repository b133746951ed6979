"""A user's query in a process of its own, whose address space is held to what it had resident before
the query plus the memory cap: DuckDB's `memory_limit` bounds its buffers, never a list or a string built in one
piece (`range(1e9)`, `repeat('x', 1e9)`), which fails there instead of growing the caller.

`python -m models.warehouse.sandbox` reads a Request on stdin, writes the rows to stdout as an Arrow
stream (with DuckDB's own names and types beside them) and then one line of JSON saying how it ended on
the descriptor that was its stderr. It imports DuckDB, pyarrow and serving.py only, to start quickly.
`Child` is the caller's end; `connect` the locked connection both ends use (reader.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from models.warehouse import serving

#: Rows the child hands over at a time: what a caller that streams holds at once.
BATCH_ROWS = 10_000
#: The schema metadata that carries DuckDB's column names and types (Arrow and DuckDB rename or
#: widen a few: two columns of one name, an ENUM).
TYPES = b"banco.types"


#: What every reader's DuckDB is set to from its start: nothing spills to disk (a query past the memory
#: cap fails), no extension is fetched or loaded, and `FROM name` never reads a Python variable.
LOCKED = {
    "temp_directory": "",
    "max_temp_directory_size": "0B",
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "python_enable_replacements": False,
}


class Unusable(Exception):
    """The reader cannot start or open the snapshot; the message says why (reader.py: WarehouseError)."""


@dataclass(frozen=True)
class Request:
    """One query, and everything the child needs to run it, none of it read from the environment."""

    db: Path
    snapshots: tuple[Path, ...]  # newest first: the first no other process holds open read-write is read
    sql: str
    params: dict[str, Any] | None
    memory: str
    memory_bytes: int
    threads: int
    remote: bool  # the tables are in an object store: the child registers it (location.py)


def connect(snapshot: Path, db: Path, memory: str, threads: int, *, remote: bool, lossless: bool = False):
    """An in-memory DuckDB with `snapshot` attached read-only as `banco`, which may read the data files
    its views name and no other file, within the limits, its configuration locked. `lossless`: Arrow
    keeps DuckDB's own types (HUGEINT, UUID, ...) as extension types, for the other end of a stream."""
    config = {
        **LOCKED,
        "memory_limit": memory,
        "threads": threads,
        "async_threads": threads,  # not 8: each thread's stack counts against the child's address space
        "arrow_lossless_conversion": lossless,
    }
    try:
        con = duckdb.connect(":memory:", config=config)
    except duckdb.Error as error:
        raise Unusable(
            f"cannot start a reader with BANCO_SQL_MEMORY={memory!r}, BANCO_SQL_THREADS={threads}: {line(error)}"
        ) from None
    try:
        if remote:  # an object store the views' files are on, before external access is off
            from models.warehouse.location import register

            register(con, db)
        con.execute("ATTACH ? AS banco (READ_ONLY)", [str(snapshot)])
        con.execute("USE banco")
        from models.warehouse import earlier

        if earlier.needed(con):  # its views read banco.lake/, which is no reader's to read
            raise Unusable(earlier.EARLIER.format(db=db))
        # exactly the files of the snapshot's views (meta.snapshots lists them), not their folder:
        # another snapshot's data files and the Iceberg metadata beside them stay out of reach
        con.execute("SET allowed_paths = ?", [viewed(con)])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except duckdb.Error as error:
        con.close()
        raise Unusable(f"cannot open {snapshot}: {line(error)}") from None
    except Unusable:
        con.close()
        raise
    return con


def viewed(con) -> list[str]:
    """The data files the attached snapshot's views read, as meta.snapshots lists them."""
    from models.warehouse.schema import SNAPSHOTS

    schema, table = SNAPSHOTS.split(".")
    found = "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'banco' AND schema_name = ? AND table_name = ?"
    if not con.execute(found, [schema, table]).fetchall()[0][0]:
        return []
    return [row[0] for row in con.sql(f"SELECT DISTINCT unnest(locations) FROM {SNAPSHOTS}").fetchall()]


def line(error: BaseException) -> str:
    """An error's first line (DuckDB's messages go on with hints)."""
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


class Child:
    """The caller's end: the child process running one Request, its rows as they come, how it ended."""

    def __init__(self, request: Request) -> None:
        root = Path(__file__).resolve().parents[2]  # the child imports this very code
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
        env["MALLOC_ARENA_MAX"] = "1"  # glibc reserves 64 MB of address space per thread's arena otherwise
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "models.warehouse.sandbox"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        with contextlib.suppress(BrokenPipeError):  # it ended before it read the query: end() says why
            self.process.stdin.write(pickle.dumps(request))
            self.process.stdin.close()
        self.killed = False
        self.too_large: str | None = None  # "size" or "rows", when the caller's limits stopped the rows
        self.consumed = False

    def relation(self, con, *, size: int, rows: int | None) -> duckdb.DuckDBPyRelation:
        """The child's rows as a relation of `con`, read as `con` asks for them. At most `size` bytes
        of them arrive, in all (`rows` given: at most that many rows too) or per batch (`rows` None)."""
        import pyarrow as pa
        import pyarrow.ipc

        counted = _Counted(self.process.stdout, size, self)
        stream = pa.ipc.open_stream(counted)  # raises when the child ended before its first rows
        schema = stream.schema

        def batches() -> Iterator[pa.RecordBatch]:
            seen = 0
            for batch in stream:
                seen += batch.num_rows
                if rows is not None and seen > rows:
                    self.too_large = "rows"
                    raise OverflowError("too many rows")
                yield batch
                if rows is None:
                    counted.read_so_far = 0  # the caller holds one batch at a time
            self.consumed = True

        relation = con.from_arrow(pa.RecordBatchReader.from_batches(schema, batches()))
        return _as_sent(relation, schema.names, json.loads(schema.metadata[TYPES]))

    def kill(self) -> None:
        if self.process.poll() is None:
            self.killed = True
            self.process.kill()

    def end(self, wait_seconds: float = 5.0) -> dict[str, Any]:
        """How the child ended: its own word ({"ok": ...}, {"error": ..., "message": ...},
        {"unusable": ...}, {"held": ...}, {"none": ...}; with "notice", the line saying which serving
        snapshots it passed over); else {"killed": True} when the caller killed it, {"signal": n} when
        something else did, or {"exit": status, "said": its last line} when it failed before it
        could say (Python's own error). Kills it when it has not ended in `wait_seconds`."""
        if not self.consumed:
            self.kill()  # it may be blocked writing rows nobody reads
        try:
            self.process.wait(wait_seconds)
        except subprocess.TimeoutExpired:
            self.kill()
            self.process.wait()
        said = self.process.stderr.read().decode(errors="replace").strip().splitlines()
        for text in reversed(said):
            try:
                return json.loads(text)
            except ValueError:
                continue
        if self.killed:
            return {"killed": True}
        code = self.process.returncode
        return {"signal": -code} if code < 0 else {"exit": code, "said": said[-1] if said else ""}

    def close(self) -> None:
        self.kill()
        self.process.wait()
        for pipe in (self.process.stdout, self.process.stderr):
            pipe.close()


class _Counted(io.RawIOBase):
    """The child's stdout, refused past `size` bytes read (since the last batch, for a caller that
    streams): checked before a message is read, so a huge one is never held."""

    def __init__(self, pipe, size: int, child: Child) -> None:
        self.pipe, self.size, self.child, self.read_so_far = pipe, size, child, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n < 0 or self.read_so_far + n > self.size:
            self.child.too_large = "size"
            raise OverflowError("result too large")
        data = self.pipe.read(n)
        self.read_so_far += len(data)
        return data


def _as_sent(relation: duckdb.DuckDBPyRelation, names: list[str], types: list[str]) -> duckdb.DuckDBPyRelation:
    """The relation with the child's column names (DuckDB renames a second `n` to `n_1` when it reads
    Arrow) and types (an ENUM arrives as VARCHAR)."""
    got = [str(dtype) for dtype in relation.dtypes]
    if list(relation.columns) == names and got == types:
        return relation
    quoted = ['"' + name.replace('"', '""') + '"' for name in names]
    pairs = enumerate(zip(got, types, strict=True), start=1)
    cast = [f"#{i}" if dtype == sent else f"CAST(#{i} AS {sent})" for i, (dtype, sent) in pairs]
    try:
        return relation.project(", ".join(f"{column} AS {name}" for column, name in zip(cast, quoted, strict=True)))
    except duckdb.Error:  # a type DuckDB cannot name back: the names alone
        return relation.project(", ".join(f"#{i} AS {name}" for i, name in enumerate(quoted, 1)))


def main() -> None:
    """The child: run the Request on stdin, the rows to stdout, how it ended to stderr's descriptor."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the caller, which kills this process
    _die_with_caller()
    rows, said = os.fdopen(os.dup(1), "wb"), os.fdopen(os.dup(2), "w")
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, 1)  # nothing else written to either can garble the stream or the last word
    os.dup2(nowhere, 2)
    try:
        request: Request = pickle.load(sys.stdin.buffer)
        status = _run(request, rows)
    except Unusable as error:
        status = {"unusable": str(error)}
    except serving.Held as error:
        status = {"held": str(error)}
    except duckdb.Error as error:
        status = {"error": type(error).__name__, "message": line(error)}
    except MemoryError:
        status = {"error": "OutOfMemoryException", "message": "out of memory"}
    except BaseException as error:  # said in one line: the caller turns it into its message
        status = {"error": type(error).__name__, "message": line(error)}
    said.write(json.dumps(status) + "\n")
    said.flush()
    os._exit(0)  # no clean-up of DuckDB's threads or pyarrow's pools: the process ends here


def _run(request: Request, out) -> dict[str, Any]:
    import resource

    import pyarrow as pa
    import pyarrow.ipc

    def open_(snapshot: Path) -> duckdb.DuckDBPyConnection:
        return connect(snapshot, request.db, request.memory, request.threads, remote=request.remote, lossless=True)

    con, notice = serving.newest(request.db, request.snapshots, open_)
    said = {"notice": notice} if notice else {}
    # from here on, the process may hold the memory cap beyond what it holds now and no more: an
    # allocation past it fails. Counted from what is resident, not the address space: space already
    # reserved and not yet touched (thread stacks, the arena) could otherwise become the cap's extra.
    resident, reserved = _status("VmRSS"), _status("VmSize")
    held = max(resident + request.memory_bytes, reserved)
    resource.setrlimit(resource.RLIMIT_AS, (held, held))
    relation = con.sql(request.sql, params=request.params or None)
    if relation is None:
        return {"none": True, **said}
    types = json.dumps([str(dtype) for dtype in relation.dtypes]).encode()
    reader = relation.to_arrow_reader(BATCH_ROWS)
    schema = reader.schema.with_metadata({**(reader.schema.metadata or {}), TYPES: types})
    with pa.ipc.new_stream(out, schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
    out.flush()
    return {"ok": True, **said}


def _status(field: str) -> int:
    """Bytes of one of this process's memory figures now: VmSize (address space), VmRSS (resident)."""
    with open("/proc/self/status") as status:
        for text in status:
            if text.startswith(f"{field}:"):
                return int(text.split()[1]) * 1024
    raise OSError(f"no {field} in /proc/self/status")


def _die_with_caller() -> None:
    """Ask Linux to kill this process when its caller's thread ends, so none outlives a killed caller."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # not Linux: the caller's kill alone
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


if __name__ == "__main__":  # as `python -m`: run the module's own copy, whose classes the Request names
    from models.warehouse.sandbox import main as run_child

    run_child()
