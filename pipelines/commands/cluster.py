"""Run the assets on a Celery cluster on this machine: `banco cluster up` starts PostgreSQL, Redis, an S3
server, two Celery workers, the code server, the Dagster daemon and UI, until Ctrl-C."""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import signal
from pathlib import Path

from models.settings import DEFAULTS, Settings
from models.warehouse.ingest import expand
from models.warehouse.shards import MAX_SHARDS, Sharding
from pipelines.cluster import processes, servers
from pipelines.cluster.environment import dagster_home, environment
from pipelines.commands import arguments
from pipelines.services import Service, ServiceError, port_free, supervised, wait_until_healthy

DEFAULT_FOLDER = "data/cluster"
#: Below the ephemeral range (32768 and up on Linux), where outgoing connections take their ports.
PORTS = {"dagster": 3000, "postgres": 15432, "redis": 16379, "s3": 19000, "code_server": 14266}
BUCKET = "banco"
#: moto accepts any keys; pyiceberg, DuckDB and Polars are given these.
S3_KEYS = {"ACCESS_KEY_ID": "banco", "SECRET_ACCESS_KEY": "banco-secret", "REGION": "us-east-1"}
DEMO_DAYS = 30
#: The file that marks a folder as a cluster's, which `banco cluster up` may empty.
MARKER = ".banco-cluster"


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    up = actions.add_parser("up", help="start the cluster on this machine until Ctrl-C")
    add_up_arguments(up, settings)


def add_up_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("--folder", type=Path, default=Path(DEFAULT_FOLDER), help="the cluster's state, afresh "
                        f"each time (default {DEFAULT_FOLDER}; the S3 server keeps its objects in memory)")  # fmt: skip
    parser.add_argument("--landing", type=Path, default=settings.landing, help="folder of incoming round logs "
                        f"(default: $BANCO_LANDING, else {DEFAULTS.landing})")  # fmt: skip
    parser.add_argument("--shards", type=arguments.whole(high=MAX_SHARDS, ceiling="docs/simulator.md#ceilings"),
                        default=settings.shards, help=f"shards of tables (default: $BANCO_SHARDS, else "
                        f"{DEFAULTS.shards}; at most {MAX_SHARDS})")  # fmt: skip
    parser.add_argument("--demo-days", type=arguments.demo_days, default=DEMO_DAYS,
                        help="days of demo play when nothing has landed (default %(default)s, at most "
                        f"{arguments.MAX_DEMO_DAYS})")  # fmt: skip
    for name, port in PORTS.items():
        flag = name.replace("_", "-")
        parser.add_argument(f"--{flag}-port", type=int, default=port, help=f"port of {flag} (default {port})")


def run(args: argparse.Namespace) -> int:
    return up(args)


def up_options(args: argparse.Namespace) -> argparse.Namespace:
    """`banco cluster up`'s options from another command's (`banco up --cluster`): the ones both know
    (--landing, --demo-days, --dagster-port) as given, the others at their defaults."""
    parser = argparse.ArgumentParser()
    add_up_arguments(parser, getattr(args, "settings", None) or Settings.from_env())
    defaults = vars(parser.parse_args([]))
    return argparse.Namespace(**{**defaults, **{key: value for key, value in vars(args).items() if key in defaults}})


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def up(args: argparse.Namespace) -> int:
    """Start everything, print the addresses, and keep it up until Ctrl-C (or one process dies)."""
    Sharding(args.shards)  # a bad count is a one-line error before anything starts
    folder = args.folder.resolve()
    if folder.exists() and any(folder.iterdir()) and not (folder / MARKER).exists():
        raise ServiceError(f"{folder} is not empty and not a cluster's folder: pass --folder naming a new one")
    ports = {name: getattr(args, f"{name}_port") for name in PORTS}
    busy = [f"{name.replace('_', '-')} {port}" for name, port in ports.items() if not port_free(port)]
    if busy:
        raise ServiceError(f"ports in use: {', '.join(busy)}; stop what holds them or pass --NAME-port")
    _fresh(folder)
    _deal_demo(args)
    signal.signal(signal.SIGTERM, _interrupt)  # a supervisor's stop is a Ctrl-C
    signal.signal(signal.SIGINT, _interrupt)
    started: list[Service] = []
    with supervised(started, "the cluster"):
        env = _start_servers(folder, ports, args, started)
        _start_dagster(folder, ports, env, started)
        print(f"\nDagster UI:   http://127.0.0.1:{ports['dagster']}")
        print(f"PostgreSQL:   {env['BANCO_DAGSTER_PG_URL']} (the instance), {env['BANCO_CATALOG_URI']} (the catalog)")
        print(f"Redis broker: {env['BANCO_BROKER_URL']}")
        print(f"S3 endpoint:  http://127.0.0.1:{ports['s3']} (warehouse {env['BANCO_WAREHOUSE_URI']})")
        print(f"Workers:      w1 (queues dagster, serving), w2 (queue dagster); logs under {folder}")
        print(f"Landing:      {args.landing} (the landing sensor ingests new files; the marts follow)")
        print("Ctrl-C stops them all.", flush=True)
    return 0


def _fresh(folder: Path) -> None:
    """The cluster's folder emptied: the S3 server starts empty, so does everything else."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("made by `banco cluster up`, which empties this folder at each start\n")


def _deal_demo(args: argparse.Namespace) -> None:
    """A demo month, one file pair a shard, when nothing has landed (what the landing sensor then finds)."""
    if args.landing.is_dir() and expand([args.landing]):
        return
    from models.simulate.config import Simulation
    from models.simulate.run import write_simulation

    tables, per_day = 6, 8
    start = dt.date.today() - dt.timedelta(days=args.demo_days)
    sim = Simulation(shoes=args.demo_days * tables * per_day, tables=tables, shoes_per_day=per_day, start=start)
    summary = write_simulation(sim, args.landing, misdeal_rate=0.002, sharding=Sharding(args.shards))
    print(f"nothing has landed in {args.landing}: dealt a demo month there ({summary.line()})")


def _start(service: Service, started: list[Service]) -> Service:
    started.append(service)
    service.start()
    return service


def _start_servers(folder: Path, ports: dict[str, int], args: argparse.Namespace, started: list[Service]) -> dict:
    """PostgreSQL, Redis and S3 up and answering; the environment that names them."""
    postgres = _start(servers.postgres(folder / "postgres", ports["postgres"]), started)
    redis = _start(servers.redis(folder / "redis", ports["redis"]), started)
    s3 = _start(servers.s3(folder / "s3", ports["s3"]), started)
    processes.wait_for_port(postgres, ports["postgres"])
    urls = servers.create_databases(ports["postgres"])
    processes.wait_for_port(redis, ports["redis"])
    wait_until_healthy([s3])
    servers.create_bucket(ports["s3"], BUCKET)
    storage = {f"PYICEBERG_CATALOG__BANCO__S3__{key}": value for key, value in S3_KEYS.items()}
    storage["PYICEBERG_CATALOG__BANCO__S3__ENDPOINT"] = f"http://127.0.0.1:{ports['s3']}"
    storage["BANCO_WAREHOUSE_URI"] = f"s3://{BUCKET}/warehouse"
    return environment(
        broker=f"redis://127.0.0.1:{ports['redis']}/0",
        instance_url=urls["dagster"],
        catalog_url=urls["catalog"],
        storage=storage,
        home=dagster_home(folder / "dagster_home"),
        code_port=ports["code_server"],
        shards=args.shards,
        landing=args.landing,
    )


def _start_dagster(folder: Path, ports: dict[str, int], env: dict[str, str], started: list[Service]) -> None:
    """The code server and w1 on the serving host (they hold the serving DuckDB file), w2 beside them
    with a folder of its own, then the daemon and the UI."""
    serving = {**env, "BANCO_DB": str(folder / "serving" / "banco.duckdb")}
    code = _start(processes.code_server(ports["code_server"], folder / "code-server", serving), started)
    workers = [
        _start(processes.worker("w1", folder / "w1", serving=True, env=serving), started),
        _start(processes.worker("w2", folder / "w2", serving=False,
                                env={**env, "BANCO_DB": str(folder / "w2" / "banco.duckdb")}), started),
    ]  # fmt: skip
    processes.wait_for_port(code, ports["code_server"])
    _start(processes.daemon(folder / "daemon", env), started)
    web = _start(processes.webserver(ports["dagster"], folder / "webserver", env), started)
    wait_until_healthy([web])
    processes.ready(workers)
