"""Scale-out: the partitioned ingest and marts with one worker process and with two side by side, into a
local warehouse and into a PostgreSQL catalog with an S3 store (moto) on loopback; the shares of the
catalog's commits, the object store and Dagster's orchestration; and the sizing figures of issue #18.

A simulated warehouse of 500 tables dealing about a million coups a gaming day (the operator of the
issue, at the simulator's ~3 wagers a coup), written as one file pair per chunk and shard (4 shards).
Baseline: one worker (the shards one after another in one process); ratio: two workers against it.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy

from benchmarks.report import RESULTS, Row, publish, quick_requested
from benchmarks.scale_out_sizing import sizing, sizing_table
from models.logs.read import kind_of
from models.simulate.config import Population, Simulation
from models.simulate.run import write_simulation
from models.warehouse.assign import by_shard
from models.warehouse.ingest import expand
from models.warehouse.shards import Sharding

ROOT = Path(__file__).resolve().parents[1]
SHARDS = Sharding(4)
SHOES_PER_DAY, PACE = 24, 120.0  # 500 tables x 24 shoes x ~81 coups: about 970,000 coups a gaming day
TABLES = 500
#: The environment a local warehouse's workers get: no catalog or store settings from outside.
SETTINGS = ("BANCO_CATALOG_URI", "BANCO_WAREHOUSE_URI")


@dataclass(frozen=True)
class Sizes:
    """What a run deals and which of its parts it runs."""

    tables: int = TABLES
    days: int = 2
    repeat: int = 2
    #: the first chunk on PostgreSQL and moto's S3 (and through Celery), started on loopback
    remote: bool = True
    celery: bool = True
    #: the first chunk's runs (storages, Dagster's executors) and the memory runs, for the sizing
    subset: bool = True

    @classmethod
    def from_env(cls) -> Sizes:
        env = os.environ.get
        return cls(
            int(env("BANCO_BENCH_SCALE_OUT_TABLES", TABLES)), int(env("BANCO_BENCH_SCALE_OUT_DAYS", 2)),
            int(env("BANCO_BENCH_SCALE_OUT_REPEAT", 2)), env("BANCO_BENCH_SCALE_OUT_REMOTE", "1") != "0",
            env("BANCO_BENCH_SCALE_OUT_CELERY", "1") != "0",
        )  # fmt: skip


#: `--quick`: the embedded part only (a local folder and SQLite, the worker processes, no servers, no
#: Dagster runs, no sizing): 16 tables for one gaming day (about 31,000 coups), each run once.
QUICK = Sizes(tables=16, days=1, repeat=1, remote=False, celery=False, subset=False)


def landed(folder: Path, days: int, tables: int = TABLES) -> dict:
    """Simulate `days` gaming days of `tables` tables into `folder`, a file pair per chunk and shard."""
    sim = Simulation(
        shoes=tables * SHOES_PER_DAY * days, tables=tables, shoes_per_day=SHOES_PER_DAY, seed=7,
        population=Population(coups_per_hour=PACE),
    )  # fmt: skip
    done = write_simulation(sim, folder, sharding=SHARDS)
    return {"coups": done.coups, "wagers": done.bets, "files": len(done.files), "seconds": done.seconds}


def files_by_shard(folder: Path) -> dict[str, dict[str, list[str]]]:
    """Each shard's landing files, rounds and bets apart (its worker ingests the rounds first)."""
    grouped = by_shard(expand([folder]), SHARDS)
    if grouped[None]:
        raise SystemExit(f"{len(grouped[None])} landing files span shards: the simulator wrote them otherwise")
    return {
        shard: {kind: [str(p) for p in paths if kind_of(p) == kind] for kind in ("rounds", "bets")}
        for shard, paths in grouped.items()
        if shard is not None
    }


def _environment(extra: dict[str, str]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS and key != "PYTHONPATH"}
    return {**env, "PYTHONPATH": str(ROOT), "BANCO_SHARDS": str(SHARDS.count), **extra}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def machine_busy() -> float:
    """CPU-seconds every process on the machine has used so far (/proc/stat: all but idle and iowait)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def side_by_side(db: Path, task_lists: list[list[dict]], env: dict[str, str], work: Path) -> dict:
    """Run one worker process per task list, all at once; the group's wall time and CPU (every process's
    user + system time, process starts and imports included), each worker's report, and the cores that
    other processes kept busy meanwhile (the machine is shared: servers and other people's work)."""
    work.mkdir(parents=True, exist_ok=True)
    started, cpu, busy = time.perf_counter(), children_cpu(), machine_busy()
    processes = []
    for index, tasks in enumerate(task_lists):
        listed = work / f"tasks-{index}-{time.monotonic_ns()}.json"
        listed.write_text(json.dumps(tasks))
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "benchmarks.scale_out_worker", str(listed), str(db)],
                cwd=ROOT, env=_environment(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                start_new_session=True,
            )
        )  # fmt: skip
    reports = []
    try:
        for process in processes:
            out, err = process.communicate()
            if process.returncode != 0:
                raise SystemExit(f"a worker failed:\n{err[-3000:]}")
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for process in processes:  # the others, when one failed
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    wall, used = time.perf_counter() - started, children_cpu() - cpu
    others = (machine_busy() - busy - used) / wall
    return {"wall_s": wall, "cpu_s": used, "other_cores": others, "load": os.getloadavg()[0], "workers": reports}


def best(runs: list[dict]) -> dict:
    """The least disturbed of several runs of the same work (the fastest), with every run's wall time."""
    return {**min(runs, key=lambda run: run["wall_s"]), "walls_s": [run["wall_s"] for run in runs]}


def ingest_tasks(files: dict, shards: list[str]) -> list[dict]:
    """A worker's tasks for its shards: each shard's rounds files, then its bets files."""
    return [
        {"kind": "ingest", "shard": shard, "file_kind": kind, "paths": files[shard][kind]}
        for shard in shards
        for kind in ("rounds", "bets")
    ]


def split(items: list[str], workers: int) -> list[list[str]]:
    return [items[index::workers] for index in range(workers)]


def ingest_run(db: Path, files: dict, workers: int, env: dict, work: Path) -> dict:
    """The partitioned ingest with `workers` processes (the shards dealt out between them), then the
    serving host's step (the files of no shard, none here; the tables maintained; the snapshot published)."""
    group = side_by_side(db, [ingest_tasks(files, shards) for shards in split(SHARDS.names, workers)], env, work)
    group["serving"] = side_by_side(db, [[{"kind": "ingest", "paths": []}]], env, work)
    return group


def stage1(shards: list[str], days: list[str], run_id: str) -> list[dict]:
    return [{"kind": "stage1", "days": [day], "shard": shard, "run_id": run_id} for shard in shards for day in days]


def marts_runs(db: Path, days: list[str], env: dict, work: Path, repeat: int, memory: bool = True) -> dict:
    """Stage 1 for every (day, shard) with one worker and with two (alternately, the best of `repeat`
    each), then stage 2 twice (the first creates the marts in a file without any, the second replaces
    the days' rows: the steady state); and with `memory`, for the memory of a partition, one shard's
    first day and then its every day in one build, each in a fresh process."""
    halves = split(SHARDS.names, 2)
    one, two = [], []
    for _ in range(repeat):
        one.append(side_by_side(db, [stage1(SHARDS.names, days, "bench-one")], env, work))
        two.append(side_by_side(db, [stage1(part, days, "bench-two") for part in halves], env, work))
    runs = {"stage1_one": best(one), "stage1_two": best(two)}
    runs["stage2_first"] = side_by_side(db, [[{"kind": "stage2", "days": days}]], env, work)
    runs["stage2"] = side_by_side(db, [[{"kind": "stage2", "days": days}]], env, work)
    if not memory:
        return runs
    shard = SHARDS.names[0]
    runs["memory_one_day"] = side_by_side(db, [stage1([shard], days[:1], "bench-memory")], env, work)
    every_day = [{"kind": "stage1", "days": days, "shard": shard, "run_id": "bench-memory"}]
    runs["memory_every_day"] = side_by_side(db, [every_day], env, work)
    return runs


def small_marts(db: Path, days: list[str], env: dict, work: Path) -> dict:
    """The marts of a fresh warehouse as the marts job builds them: stage 1 with two workers, then
    stage 2 into a file without marts."""
    halves = split(SHARDS.names, 2)
    return {
        "stage1_two": side_by_side(db, [stage1(part, days, "bench-two") for part in halves], env, work),
        "stage2_first": side_by_side(db, [[{"kind": "stage2", "days": days}]], env, work),
    }


def partitions(db: Path, env: dict) -> list[dict]:
    """The coups and wagers of each (gaming day, shard): the coups of the shoes that began on the day."""
    code = (
        "import json, sys; from pathlib import Path; from models.warehouse.store import current;\n"
        "with current(Path(sys.argv[1])) as con:\n"
        '    rows = con.sql("WITH s AS (SELECT table_id, shoe_id, min(started_at - INTERVAL 6 HOUR)::DATE AS day '
        "FROM core.rounds GROUP BY ALL), r AS (SELECT table_id, shoe_id, count(*) AS coups FROM core.rounds "
        "GROUP BY ALL), b AS (SELECT table_id, shoe_id, count(*) AS wagers FROM core.bets GROUP BY ALL) "
        "SELECT s.table_id, s.day::VARCHAR, sum(coups), sum(coalesce(wagers, 0)) FROM s JOIN r USING (table_id, "
        'shoe_id) LEFT JOIN b USING (table_id, shoe_id) GROUP BY ALL").fetchall()\n'
        "print(json.dumps(rows, default=int))"
    )
    out = subprocess.run([sys.executable, "-c", code, str(db)], cwd=ROOT, env=_environment(env), check=True,
                         capture_output=True, text=True)  # fmt: skip
    sizes: dict[tuple[str, str], list[int]] = {}
    for table, day, coups, wagers in json.loads(out.stdout.strip().splitlines()[-1]):
        size = sizes.setdefault((day, SHARDS.of(table)), [0, 0])
        size[0], size[1] = size[0] + coups, size[1] + wagers
    return [{"day": day, "shard": shard, "coups": c, "wagers": w} for (day, shard), (c, w) in sorted(sizes.items())]


def stored_bytes(db: Path) -> dict[str, int]:
    """Bytes of the live data files of each core table (its current snapshot's), and of the partials."""
    from models.warehouse.iceberg import Tables, local_path

    tables = Tables.open(db)
    sizes = {}
    for name in ("core.rounds", "core.bets", "core.shoes"):
        listed = tables.files(name, tables.snapshot_id(name))
        sizes[name] = sum(os.path.getsize(local_path(location)) for location, _ in listed)
    partials = db.with_name(db.stem + ".iceberg") / "partials"
    sizes["partials"] = sum(path.stat().st_size for path in partials.rglob("*") if path.is_file())
    return sizes


# -- the servers on loopback, and their CPU --------------------------------------------------------


def _stat_cpu(pid: int) -> float:
    """A process's user + system time, and that of its children it has waited for (seconds)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, list[str]]]:
    """Every process's parent and command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            found[int(entry.name)] = (parent, argv)
    return found


def servers_cpu(port_pg: int, port_s3: int) -> float:
    """CPU-seconds so far of the PostgreSQL server (its postmaster, which waits for every backend) and
    of moto's server, found by their command lines' ports."""
    processes = _processes()
    postmaster = [pid for pid, (_, argv) in processes.items() if argv[0].endswith("postgres") and str(port_pg) in argv]
    backends = [pid for pid, (parent, _) in processes.items() if parent in postmaster]  # alive: not yet in its sums
    moto = [pid for pid, (_, argv) in processes.items() if "moto.server" in argv and str(port_s3) in argv]
    return sum(_stat_cpu(pid) for pid in [*postmaster, *backends, *moto])


@contextmanager
def remote_store() -> Iterator[tuple[Callable[[str], dict[str, str]], Callable[[], float]]]:
    """PostgreSQL and moto's S3 on loopback, as the tests start them; yields a function giving a fresh
    warehouse's environment (a database and a bucket folder of its own) and one giving the servers' CPU."""
    from tests.postgres import postgres
    from tests.s3 import s3

    with postgres() as url, s3() as store:
        engine = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
        port_pg = engine.url.port
        port_s3 = int(store["PYICEBERG_CATALOG__BANCO__S3__ENDPOINT"].rsplit(":", 1)[1])

        def fresh(name: str) -> dict[str, str]:
            with engine.connect() as connection:
                connection.exec_driver_sql(f"CREATE DATABASE {name}")
            bucket = store["BANCO_WAREHOUSE_URI"].rsplit("/", 1)[0]
            return {
                **store,
                "BANCO_CATALOG_URI": engine.url.set(database=name).render_as_string(hide_password=False),
                "BANCO_WAREHOUSE_URI": f"{bucket}/{name}",
            }

        try:
            yield fresh, lambda: servers_cpu(port_pg, port_s3)
        finally:
            engine.dispose()


# -- Dagster ---------------------------------------------------------------------------------------


def dagster_runs(db: Path, landing: Path, work: Path) -> dict:
    """The ingest and marts jobs through Dagster's multiprocess executor (each step a process of its own,
    two at a time on this machine's two cores), on a fresh local warehouse."""
    env = _environment(
        {
            "BANCO_DB": str(db), "BANCO_LANDING": str(landing), "DAGSTER_HOME": str(ROOT),
            "BANCO_DAGSTER_DIR": str(work / ".dagster"), "BANCO_EXECUTOR": "multiprocess",
        }
    )  # fmt: skip
    return _reported([sys.executable, "-m", "benchmarks.scale_out_dagster"], env)


def celery_runs(landing: Path, work: Path) -> dict:
    """The same jobs on the Celery executor: two workers, Redis, PostgreSQL and moto's S3 (the scale-out
    test's cluster, tests/scale_out/cluster.py); or why they could not run."""
    argv = [sys.executable, "-m", "benchmarks.scale_out_celery", str(work), str(landing), str(SHARDS.count)]
    try:
        return _reported(argv, _environment({}))
    except (SystemExit, ValueError) as error:
        return {"error": str(error)[-1500:]}


def _reported(argv: list[str], env: dict[str, str], timeout: float = 900) -> dict:
    """Run a process that prints one JSON line last; that line, with its wall time and every process's CPU.
    Past `timeout` it is asked to stop (SIGTERM: it stops what it started), then killed."""
    started, cpu = time.perf_counter(), children_cpu()
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)  # fmt: skip
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
        raise SystemExit(f"{argv[2]} took longer than {timeout:.0f} s") from None
    if process.returncode != 0:
        raise SystemExit(f"{argv[2]} failed:\n{err[-3000:]}")
    report = json.loads(out.strip().splitlines()[-1])
    return {**report, "wall_s": time.perf_counter() - started, "cpu_s": children_cpu() - cpu}


def subset(files: dict, folder: Path) -> tuple[dict, Path]:
    """Each shard's first rounds and bets file (the simulation's first chunk), and a landing folder of
    links to them: the work that every storage and executor is compared on."""
    chosen = {shard: {kind: paths[:1] for kind, paths in kinds.items()} for shard, kinds in files.items()}
    folder.mkdir(parents=True)
    for kinds in chosen.values():
        for paths in kinds.values():
            for path in paths:
                os.link(path, folder / Path(path).name)
    return chosen, folder


# -- the table -------------------------------------------------------------------------------------


def _ingest_rows(label: str, one: dict, two: dict, coups: int, wagers: int) -> list[Row]:
    case = f"ingest, {label}"
    return [
        Row(f"{case}: coups/s", coups / two["wall_s"], coups / one["wall_s"], "coups/s", "", True),
        Row(
            "  wagers/s", wagers / two["wall_s"], wagers / one["wall_s"], "wagers/s", "", True, key=f"{case}: wagers/s"
        ),
        Row("  wall time", two["wall_s"], one["wall_s"], "s", key=f"{case}: wall time"),
        Row("  CPU of every worker process", two["cpu_s"], one["cpu_s"], "CPU-s", key=f"{case}: CPU"),
    ]


def table(measured: dict, figures: dict) -> list[Row]:
    """The printed table: two workers against one, and the Dagster runs against the same work run directly."""
    coups, wagers = measured["simulated"]["coups"], measured["simulated"]["wagers"]
    local, marts = measured["ingest_local"], measured["marts_local"]
    rows = _ingest_rows("local folder, SQLite catalog", local[1], local[2], coups, wagers)
    small = measured.get("subset", {})
    if "remote" in small:
        remote, near = small["remote"], small["local"]
        rows += [
            Row("first chunk: ingest on PostgreSQL + S3 (moto)", remote[2]["wall_s"], remote[1]["wall_s"], "s"),
            Row("  the same into the local folder", near[2]["wall_s"], near[1]["wall_s"], "s"),
        ]
    rows += [
        Row("marts stage 1, every (day, shard)", marts["stage1_two"]["wall_s"], marts["stage1_one"]["wall_s"], "s"),
        Row("  CPU of every worker process", marts["stage1_two"]["cpu_s"], marts["stage1_one"]["cpu_s"], "CPU-s",
            key="marts stage 1: CPU"),
        Row("marts stage 2, the days again, against its first", marts["stage2"]["wall_s"],
            marts["stage2_first"]["wall_s"], "s"),
    ]  # fmt: skip
    for executor in ("multiprocess", "celery"):
        added = figures.get("subset", {}).get(executor)
        if added and "error" not in added:
            rows += [
                Row(f"first chunk: ingest job, {executor}, against direct", added["ingest_run_wall_s"],
                    added["ingest_direct_wall_s"], "s"),
                Row(f"first chunk: marts job, {executor}, against direct", added["marts_run_wall_s"],
                    added["marts_direct_wall_s"], "s"),
            ]  # fmt: skip
    return rows


def main(quick: bool = False) -> None:
    sizes = QUICK if quick else Sizes.from_env()
    days, remote, repeat = sizes.days, sizes.remote, sizes.repeat
    for key in SETTINGS:  # the benchmark makes its own warehouses
        os.environ.pop(key, None)
    load_before, began = os.getloadavg(), time.perf_counter()
    with tempfile.TemporaryDirectory(dir=ROOT / "data", prefix="scale-out-") as tmp:
        work = Path(tmp)
        tasks = work / "tasks"
        measured: dict = {"simulated": landed(work / "landing", days, sizes.tables), "shards": SHARDS.count,
                          "tables": sizes.tables, "repeat": repeat}  # fmt: skip
        files = files_by_shard(work / "landing")
        local: dict[int, list[dict]] = {1: [], 2: []}
        for attempt in range(repeat):  # alternately, so that a disturbance hits both alike
            for n in (1, 2):
                local[n].append(ingest_run(work / f"local-{n}-{attempt}" / "banco.duckdb", files, n, {}, tasks))
        local = measured["ingest_local"] = {n: best(runs) for n, runs in local.items()}
        db = work / "local-2-0" / "banco.duckdb"
        measured["partitions"] = partitions(db, {})
        gaming_days = sorted({p["day"] for p in measured["partitions"]})
        measured["marts_local"] = marts_runs(db, gaming_days, {}, tasks, repeat, memory=sizes.subset)
        if sizes.subset:
            measured["stored_bytes"] = stored_bytes(db)
            measured["serving_file_bytes"] = db.stat().st_size
            measured["subset"] = first_chunk(files, work, tasks, remote, sizes.celery)
        shutil.rmtree(work, ignore_errors=True)
    measured["bench_seconds"] = time.perf_counter() - began
    measured["load"] = {"before": load_before, "after": os.getloadavg()}
    figures = sizing(measured) if sizes.subset else {}
    simulated = measured["simulated"]
    publish(
        "scale_out",
        f"Scale-out over {simulated['coups']:,} coups and {simulated['wagers']:,} wagers ({days} gaming days of "
        f"{sizes.tables} tables, {SHARDS.count} shards{'; quick: local, no servers, no Dagster' if quick else ''})",
        table(measured, figures),
        "one worker: the shards one after another in one process",
        quick=quick,
    )
    if quick:
        return
    saved = RESULTS / "scale_out.json"
    payload = json.loads(saved.read_text())
    payload.update({"sizing": sizing_table(figures, measured), "figures": figures, "measured": measured})
    saved.write_text(json.dumps(payload, indent=2, default=str))
    print(json.dumps(figures, indent=2))


def first_chunk(files: dict, work: Path, tasks: Path, remote: bool, celery: bool) -> dict:
    """The first chunk's files on each storage and through each executor."""
    chosen, landing = subset(files, work / "landing-subset")
    small = {"files": sum(len(paths) for kinds in chosen.values() for paths in kinds.values())}
    small["local"] = {n: ingest_run(work / f"sub-local-{n}" / "banco.duckdb", chosen, n, {}, tasks) for n in (1, 2)}
    db = work / "sub-local-2" / "banco.duckdb"
    small["days"] = sorted({p["day"] for p in partitions(db, {})})
    small["marts_local"] = small_marts(db, small["days"], {}, tasks)
    if remote:
        with remote_store() as (fresh, cpu_of_servers):
            small["remote"] = {}
            for n in (1, 2):
                before, env = cpu_of_servers(), fresh(f"s3_{n}")
                run = ingest_run(work / f"sub-s3-{n}" / "banco.duckdb", chosen, n, env, tasks)
                small["remote"][n] = {**run, "servers_cpu_s": cpu_of_servers() - before}
            small["marts_remote"] = small_marts(work / "sub-s3-2" / "banco.duckdb", small["days"], env, tasks)
    small["dagster"] = dagster_runs(work / "dagster" / "banco.duckdb", landing, work / "dagster")
    if remote and celery:
        small["celery"] = celery_runs(landing, work / "celery")
    return small


if __name__ == "__main__":
    main(quick_requested())
