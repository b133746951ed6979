"""The main job: deal a demo month if nothing has landed, materialize every asset through Dagster, then
serve the Dagster UI (with its daemon, for schedules and sensors) and the dashboard until Ctrl-C."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

from models.progress import quiet
from models.settings import DEFAULTS, Settings
from pipelines.commands import arguments
from pipelines.commands.dashboard import LOOPBACK, check_signin, streamlit_command
from pipelines.progress import Progress, bars
from pipelines.services import Service, ServiceError, free_port, port_free, supervised, wait_until_healthy
from pipelines.settings import dagster_environment

DEMO_DAYS = 30
#: Run config that keeps Dagster's console log to warnings; the full event log is in the UI.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("--landing", type=Path, default=settings.landing, help="folder of incoming round logs "
                        f"(default: $BANCO_LANDING, else {DEFAULTS.landing})")  # fmt: skip
    parser.add_argument("--demo-days", type=arguments.demo_days, default=DEMO_DAYS,
                        help="days of demo play when nothing has landed (default %(default)s, at most "
                        f"{arguments.MAX_DEMO_DAYS})")  # fmt: skip
    parser.add_argument("--dagster-port", type=int, default=3000, help="port of the Dagster UI (default 3000)")
    parser.add_argument("--dashboard-port", type=int, default=8501, help="port of the dashboard (default 8501)")
    parser.add_argument("--dashboard-address", default=LOOPBACK, help=f"address the dashboard listens on "
                        f"(default {LOOPBACK}); any other needs sign-in configured (docs/dashboard.md)")  # fmt: skip
    parser.add_argument("--no-serve", action="store_true", help="materialize everything, then exit without serving")
    parser.add_argument("--cluster", action="store_true", help="run the assets on a Celery cluster on one machine "
                        "instead: PostgreSQL, Redis, S3, 2 workers (banco cluster up; docs/scale-out.md)")  # fmt: skip


def _configure(args: argparse.Namespace) -> None:
    """Point this process and every server it starts at the same warehouse, landing folder and instance;
    on a demo month, let alerts go to the warehouse's log alone."""
    os.environ["BANCO_DB"] = str(Path(args.db).resolve())
    os.environ["BANCO_LANDING"] = str(args.landing.resolve())
    os.environ.update(dagster_environment(Path.cwd()))
    if _demo(args.landing):
        os.environ["BANCO_ALERT_CHANNELS"] = "log"


def _demo(landing: Path) -> bool:
    """Whether the landing folder holds (or is about to hold) simulated play: nothing landed yet, or the
    simulator's answer key (its players) lies beside the logs. Its alerts are about no one real."""
    from models.simulate.run import PLAYERS_FOLDER

    return not _landed(landing) or (landing / PLAYERS_FOLDER).is_dir()


def _landed(landing: Path) -> bool:
    """Whether the landing folder holds a round log the ingest would read (fault labels don't count)."""
    from models.warehouse.ingest import expand

    return landing.is_dir() and bool(expand([landing]))


def ingest_landing_job():
    from pipelines.definitions import defs

    return defs.resolve_job_def("ingest_landing")


def build_marts_job():
    from pipelines.definitions import defs

    return defs.resolve_job_def("build_marts")


def _side_by_side(job, instance, tags: dict | None = None):
    """Run a job with the code location's executor (on one machine, each step in a process of its
    own, the shards' steps side by side on the cores), so its result can be read as it ends."""
    import dagster as dg

    return dg.execute_job(dg.reconstructable(job), instance, run_config=QUIET, tags=tags, raise_on_error=False)


#: The demo month's share of table-shifts with a count fault, so the Count room page has some to find.
DEMO_COUNT_FAULTS = 0.02


def materialize_everything(args: argparse.Namespace, progress: Progress = quiet) -> bool:
    """Run the jobs in this process against the project's Dagster instance, so the runs show in its UI;
    `progress` told each stage as it starts."""
    import dagster as dg

    from models.metrics.days import days_with_coups
    from models.metrics.ledger import reckoned_otherwise
    from pipelines.definitions import defs
    from pipelines.defs.partitions import FIRST_DAY, GAMING_DAYS, range_tags

    instance = dg.DagsterInstance.get()
    if not _landed(args.landing):
        print(f"nothing has landed in {args.landing}: dealing a demo month there (run: simulate_shoes)")
        progress(f"dealing {args.demo_days} days of demo play", 0)
        demo = {"days": args.demo_days, "count_fault_rate": DEMO_COUNT_FAULTS}
        config = {**QUIET, "ops": {"simulated_shoes": {"config": demo}}}
        result = defs.resolve_job_def("simulate_shoes").execute_in_process(run_config=config, instance=instance)
        print("  " + result.asset_materializations_for_node("simulated_shoes")[0].metadata["summary"].value)
    progress("ingesting the landing folder", 0)
    ingest = _side_by_side(ingest_landing_job, instance)
    log = ingest.asset_materializations_for_node("ingest")
    if log:
        meta = next(m.metadata for m in log if m.asset_key.path == ["meta", "ingest_log"])
        print(f"ingested {meta['summary'].value}")
    for check in ingest.get_asset_check_evaluations():
        print(f"  check {check.check_name}: {'passed' if check.passed else 'FAILED'}")
    if not ingest.success:
        print(f"the ingest run failed or a blocking check stopped it: see run {ingest.run_id} in the Dagster UI")
        return False
    warehouse = defs.resources["warehouse"]
    with warehouse.snapshot() as con:
        held = days_with_coups(con, warehouse.gaming_day)
        # days an earlier release (or other settings) built: their figures may differ from this one's
        upgraded = {day.isoformat() for day in reckoned_otherwise(con, warehouse.mart_config, held)}
        days = [day.isoformat() for day in held]
    days = [day for day in days if GAMING_DAYS.has_partition_key(day)]
    if not days:
        print(f"no gaming day with coups from the partitions' first ({FIRST_DAY}) on: nothing to build")
        return True
    # what Dagster has not built yet, and what this ingest changed; the range between them is rebuilt
    # (every day when the last marts run failed: what it was building is not known to be current;
    # a run still queued or going, such as the nightly one, is no reason to rebuild everything)
    built = instance.get_materialized_partitions(dg.AssetKey(["marts", "table_day"]))
    touched = set(meta["gaming_days_touched"].value) if log else set()
    last = instance.get_run_records(dg.RunsFilter(job_name="build_marts"), limit=1)
    if last and last[0].dagster_run.status in (dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED):
        built = set()
    stale = [day for day in days if day not in built or day in touched or day in upgraded]
    if not stale:
        print(f"the marts of all {len(days)} gaming days are current")
        return True
    days = [day for day in days if stale[0] <= day <= stale[-1]]
    tags = range_tags(days)
    progress(f"building the marts of {len(days)} gaming days", 0)
    marts = _side_by_side(build_marts_job, instance, tags)
    if not marts.success:
        print(f"building the marts failed: see run {marts.run_id} in the Dagster UI")
        return False
    flagged = [c.check_name for c in marts.get_asset_check_evaluations() if not c.passed]
    print(f"built the marts of {len(days)} gaming days ({days[0]} to {days[-1]})"
          + (f"; flagged: {', '.join(flagged)}" if flagged else ""))  # fmt: skip
    return file_reports(instance, days, progress)


def file_reports(instance, days: list[str], progress: Progress = quiet) -> bool:
    """The monthly statistical report of every month the built days fall in (a month in progress is
    reported to date), one run a month, as the monthly schedule files them."""
    from pipelines.definitions import defs
    from pipelines.defs.count_room.assets import MONTHS

    job = defs.resolve_job_def("monthly_statistical_report")
    months = sorted({day[:8] + "01" for day in days} & set(MONTHS.get_partition_keys()))
    for done, month in enumerate(months):
        progress("filing the monthly reports", done, len(months), month[:7])
        result = job.execute_in_process(run_config=QUIET, instance=instance, partition_key=month, raise_on_error=False)
        events = result.asset_materializations_for_node("reports__monthly_statistical_report")
        if not result.success or not events:
            print(f"filing the report of {month[:7]} failed: see run {result.run_id} in the Dagster UI")
            return False
        meta = events[0].metadata
        if "pdf_path" in meta:
            print(f"filed the statistical report of {month[:7]}: {meta['pdf_path'].value} (and .csv, .xlsx), "
                  f"{meta['investigations'].value} investigations due")  # fmt: skip
    return True


def report(db: Path) -> None:
    """What the warehouse now holds, per game, as tables like `banco sql` prints."""
    from models.warehouse.store import read
    from pipelines.terminal import print_summary

    currency = Settings.from_env().currency
    con = read(db)
    try:
        print_summary(
            con.sql(
                "SELECT game, count(*) AS coups, count(DISTINCT table_id) AS tables, "
                "avg((outcome = 'B')::INT) AS banker_rate, avg((outcome = 'P')::INT) AS player_rate, "
                "avg((outcome = 'T')::INT) AS tie_rate FROM core.rounds GROUP BY game ORDER BY game"
            ),
            currency,
        )
        print_summary(
            con.sql(
                "SELECT game, sum(handle) AS handle, sum(house_win) AS house_win, sum(theo) AS theo, "
                "sum(house_win) / sum(handle) AS win_over_handle FROM marts.table_day GROUP BY game ORDER BY game"
            ),
            currency,
        )
    finally:
        con.close()


#: The code location's name in the Dagster UI, as Dagster names a location loaded with `-m`.
LOCATION = "pipelines.definitions"


def code_server(port: int, logs: Path) -> Service:
    """The one process that loads the code location: the UI and the daemon both ask it (each would
    otherwise start a code server of its own, a few hundred MB apiece), and it launches the runs."""
    argv = [str(Path(sys.executable).parent / "dagster"), "api", "grpc", "-m", LOCATION,
            "--location-name", LOCATION, "-h", "127.0.0.1", "-p", str(port)]  # fmt: skip
    return Service("dagster-code-server", argv, f"tcp://127.0.0.1:{port}", logs / "code-server.log")


def workspace(port: int, folder: Path) -> Path:
    """A Dagster workspace file naming the running code server, for the UI and the daemon."""
    path = folder / "workspace.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"load_from:\n  - grpc_server:\n      host: 127.0.0.1\n      port: {port}\n      location_name: {LOCATION}\n"
    )
    return path


def services(args: argparse.Namespace, workspace_file: Path) -> list[Service]:
    """The servers that read the code server's location: the Dagster daemon and UI, and the dashboard."""
    logs = Path(os.environ["BANCO_DAGSTER_DIR"]) / "logs"
    location = ["-w", str(workspace_file)]
    bin_dir = Path(sys.executable).parent
    argv, env = streamlit_command(Path(args.db).resolve(), args.dashboard_port, args.dashboard_address)
    health = _dashboard_host(args.dashboard_address)
    return [
        Service("dagster-daemon", [str(bin_dir / "dagster-daemon"), "run", *location], "", logs / "daemon.log"),
        Service(
            "dagster-webserver",
            [str(bin_dir / "dagster-webserver"), *location, "-h", "127.0.0.1", "-p", str(args.dagster_port)],
            f"http://127.0.0.1:{args.dagster_port}/server_info",
            logs / "webserver.log",
        ),
        Service(
            "dashboard", argv, f"http://{health}:{args.dashboard_port}/_stcore/health", logs / "dashboard.log", env=env
        ),
    ]


def _dashboard_host(address: str) -> str:
    """The host the dashboard answers on from this machine: every interface answers on loopback too,
    a single other address only on itself."""
    host = "127.0.0.1" if address in ("0.0.0.0", "::") else address.strip("[]")
    return f"[{host}]" if ":" in host else host


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def serve(args: argparse.Namespace) -> int:
    """Start the servers, print their addresses, and keep them up until Ctrl-C (or one of them dies)."""
    for port in (args.dagster_port, args.dashboard_port):
        if not port_free(port):
            raise ServiceError(f"port {port} is in use: stop what holds it or pass --dagster-port/--dashboard-port")
    folder = Path(os.environ["BANCO_DAGSTER_DIR"])
    port = free_port()
    code = code_server(port, folder / "logs")
    started = [code, *services(args, workspace(port, folder))]
    signal.signal(signal.SIGTERM, _interrupt)  # a supervisor's stop is a Ctrl-C
    signal.signal(signal.SIGINT, _interrupt)  # even when started in the background, where it is ignored
    with supervised(started, "the servers"):
        with bars() as progress:
            progress("starting the Dagster UI, its daemon and the dashboard", 0)
            code.start()
            wait_until_healthy([code])  # the UI and the daemon load the location from it as they start
            for service in started[1:]:
                service.start()
            wait_until_healthy(started)
        print(f"\nDagster UI:  http://127.0.0.1:{args.dagster_port}")
        every = " (listening on every interface)" if args.dashboard_address in ("0.0.0.0", "::") else ""
        print(f"Dashboard:   http://{_dashboard_host(args.dashboard_address)}:{args.dashboard_port}{every}")
        print("Ctrl-C stops both.", flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.cluster:
        from pipelines.commands import cluster

        return cluster.up(cluster.up_options(args))
    if not args.no_serve:  # before minutes of materializing, not after
        check_signin(args.dashboard_address)
    _configure(args)
    if args.no_serve:
        return materialize_and_report(args)
    signal.signal(signal.SIGTERM, _interrupt)  # a supervisor's stop is a Ctrl-C
    status = _materialize_apart(args)
    if status not in (0, 1):  # 1: a run failed, which the UI shows; else the one-line error is printed
        return status
    return serve(args)


def _materialize_apart(args: argparse.Namespace) -> int:
    """`banco up --no-serve` in a process of its own (the warehouse and landing folder are in its
    environment), so the memory the month's data took is given back before the servers start."""
    child = subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "up", "--no-serve", "--demo-days", str(args.demo_days)]
    )
    try:
        return child.wait()
    except KeyboardInterrupt:  # the child has its Ctrl-C too (one process group), unless it was a SIGTERM
        child.send_signal(signal.SIGINT)
        child.wait()
        raise


def materialize_and_report(args: argparse.Namespace) -> int:
    """Materialize everything, then print what the warehouse holds; 0, or 1 when a run failed."""
    with bars() as progress:
        ok = materialize_everything(args, progress)
    db = Path(args.db).resolve()
    if db.exists():
        report(db)
        if ok:
            alert(db)
        print(f'\nwarehouse: {db} (query it: banco sql "SELECT * FROM marts.table_day LIMIT 10")')
    return 0 if ok else 1


def alert(db: Path) -> None:
    """Evaluate the alert rules once over what was built, through the channels allowed (on a demo month,
    the warehouse's log alone), and say what each sent; a rules file that cannot be read is a warning."""
    from models.alerts.channels import every
    from models.alerts.evaluate import evaluate
    from models.alerts.rules import RulesError, read

    settings = Settings.from_env()
    try:
        rules = read(settings.alerts_file)
    except RulesError as error:
        print(f"alerts: not evaluated: {error}")
        return
    channels = every(settings)
    outcomes = evaluate(db, rules, channels, alerts_to=settings.alerts_to, dashboard=settings.dashboard_url)
    new = sum(len(message.facts) for outcome in outcomes for message, sent in outcome.messages if sent.channel == "log")
    for outcome in (outcome for outcome in outcomes if outcome.refused):
        print(f"alerts: {outcome.rule.name} refused: {outcome.refused}")
    through = ", ".join(channel.name for channel in channels)
    demo = " (a demo month: the log alone)" if settings.alert_channels == ("log",) else ""
    print(f"alerts: {new} new fact(s) from {len(outcomes)} rules, through {through}{demo}: `banco alerts history`")
