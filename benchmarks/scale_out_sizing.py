"""The scale-out benchmark's figures from what it measured: costs per million coups and wagers, bytes
stored, memory per partition, the shares of commits, object store and orchestration, and the sizing of
issue #18's operator (500 tables, ~1 M coups and ~1 B wagers a gaming day) from them."""

from __future__ import annotations

import math
from collections.abc import Iterable

#: The operator of issue #18.
OPERATOR = {"tables": 500, "coups_per_day": 1_000_000, "wagers_per_day": 1_000_000_000}
#: A worker's memory, and the part of it one partition's build may take (the rest: the OS, page cache, headroom).
WORKER_GB, USABLE = 16, 0.75
#: How often each shard's landing files arrive (a rounds and a bets file each time).
LANDING_MINUTES = 5
DAY_SECONDS = 86_400


def tasks(group: dict, **match) -> list[dict]:
    """Every task of every worker of a group whose fields equal `match`."""
    return [
        task
        for worker in group["workers"]
        for task in worker["tasks"]
        if all(task.get(key) == value for key, value in match.items())
    ]


def total(items: Iterable[dict], key: str) -> float:
    return sum(item.get(key, 0.0) for item in items)


def per_million(value: float, count: int) -> float:
    return value / count * 1e6 if count else float("nan")


def ingest_costs(run: dict, coups: int, wagers: int) -> dict:
    """CPU per million rows of each kind, and where a worker's time went: its files' commits, waiting
    for the commit lock, holding it; with the run's process starts and the serving host's step."""
    rounds, bets = tasks(run, file_kind="rounds"), tasks(run, file_kind="bets")
    every = rounds + bets
    worked = total(every, "wall_s")
    workers = len(run["workers"])
    return {
        "wall_s": run["wall_s"],
        "walls_s_every_try": run.get("walls_s"),
        "wall_s_after_process_start": max(worker["wall_s"] for worker in run["workers"]),
        "other_processes_cores": run.get("other_cores"),
        "coups_per_s": coups / run["wall_s"],
        "wagers_per_s": wagers / run["wall_s"],
        "cpu_s_every_process": run["cpu_s"],
        "cpu_s_per_m_coups": per_million(total(rounds, "cpu_s"), coups),
        "cpu_s_per_m_wagers": per_million(total(bets, "cpu_s"), wagers),
        "cpu_s_per_worker_process_start": (run["cpu_s"] - total(every, "cpu_s")) / workers,
        "files": int(total(every, "files")),
        "share_in_file_commits": total(every, "file_commit_s") / worked,
        "share_in_table_commits": total(every, "table_commit_s") / worked,
        "share_waiting_for_commit_lock": total(every, "commit_lock_wait_s") / worked,
        "commit_lock_held_share_of_wall": total(every, "commit_lock_held_s") / run["wall_s"],
        "table_commits_per_rounds_file": total(rounds, "table_commits") / max(1, total(rounds, "files")),
        "table_commits_per_bets_file": total(bets, "table_commits") / max(1, total(bets, "files")),
        "commit_lock_held_s_per_rounds_file": total(rounds, "commit_lock_held_s") / max(1, total(rounds, "files")),
        "commit_lock_held_s_per_bets_file": total(bets, "commit_lock_held_s") / max(1, total(bets, "files")),
        "serving_step_wall_s": run["serving"]["wall_s"],
        "serving_step_cpu_s": run["serving"]["cpu_s"],
        "peak_mb_shard_rounds": max(task["peak_mb"] for task in rounds),
        "peak_mb_shard_bets": max(task["peak_mb"] for task in bets),
    }


def marts_costs(runs: dict, partitions: list[dict], coups: int, wagers: int) -> dict:
    """CPU per million rows of the stages, and the memory of one (day, shard) build against its rows."""
    size = {(p["day"], p["shard"]): p for p in partitions}
    one = tasks(runs["stage1_one"])
    peaks = [
        {"day": t["days"][0], "shard": t["shard"], "peak_mb": t["peak_mb"], "wall_s": t["wall_s"], "cpu_s": t["cpu_s"],
         "coups": size[t["days"][0], t["shard"]]["coups"], "wagers": size[t["days"][0], t["shard"]]["wagers"]}
        for t in one
    ]  # fmt: skip
    # one shard's first day, and its every day, each built in a fresh process: what each further wager takes
    (day,), (every,) = tasks(runs["memory_one_day"]), tasks(runs["memory_every_day"])
    rows_day = size[day["days"][0], day["shard"]]["wagers"]
    rows_all = sum(size[d, every["shard"]]["wagers"] for d in every["days"])
    slope = (every["peak_mb"] - day["peak_mb"]) / (rows_all - rows_day)  # MB a wager, its coups along
    stage2, first = runs["stage2"], runs["stage2_first"]
    return {
        "stage1_one_worker_wall_s": runs["stage1_one"]["wall_s"],
        "stage1_two_workers_wall_s": runs["stage1_two"]["wall_s"],
        "stage1_speed_up": runs["stage1_one"]["wall_s"] / runs["stage1_two"]["wall_s"],
        "stage1_walls_s_every_try": {n: runs[f"stage1_{n}"].get("walls_s") for n in ("one", "two")},
        "stage1_other_processes_cores": {n: runs[f"stage1_{n}"].get("other_cores") for n in ("one", "two")},
        "stage1_cpu_s_per_m_coups": per_million(total(one, "cpu_s"), coups),
        "stage1_cpu_s_per_m_wagers": per_million(total(one, "cpu_s"), wagers),
        "stage1_cpu_s_per_partition_mean": total(one, "cpu_s") / len(one),
        "stage1_cpu_s_every_process_one_worker": runs["stage1_one"]["cpu_s"],
        "stage2_wall_s": stage2["wall_s"],
        "stage2_cpu_s_per_m_coups": per_million(total(tasks(stage2), "cpu_s"), coups),
        "stage2_cpu_s_per_m_wagers": per_million(total(tasks(stage2), "cpu_s"), wagers),
        "stage2_cpu_s_every_process": stage2["cpu_s"],
        "stage2_first_wall_s": first["wall_s"],
        "stage1_partitions": peaks,
        "stage1_peak_mb_max": max(p["peak_mb"] for p in peaks),
        "stage1_fresh_process_one_day": {"peak_mb": day["peak_mb"], "wagers": rows_day},
        "stage1_fresh_process_every_day": {"peak_mb": every["peak_mb"], "wagers": rows_all},
        "stage1_mb_per_m_wagers_marginal": slope * 1e6,
        "stage1_mb_fixed": day["peak_mb"] - slope * rows_day,
    }


def operator_sizing(marts: dict, ingest: dict, remote: dict | None) -> dict:
    """The shards a day needs so that each (day, shard) build fits a worker, and the commits a day at
    that many shards, for the operator of issue #18."""
    budget = WORKER_GB * 1024 * USABLE
    per_wager = marts["stage1_mb_per_m_wagers_marginal"] / 1e6
    fits = (budget - marts["stage1_mb_fixed"]) / per_wager  # wagers one partition's build may hold
    shards = math.ceil(OPERATOR["wagers_per_day"] / fits)
    landings = shards * DAY_SECONDS / (LANDING_MINUTES * 60)  # each a rounds file and a bets file

    def held(costs: dict) -> float:  # the commit lock's share of the day
        per_landing = costs["commit_lock_held_s_per_rounds_file"] + costs["commit_lock_held_s_per_bets_file"]
        return landings * per_landing / DAY_SECONDS

    commits = landings * (ingest["table_commits_per_rounds_file"] + ingest["table_commits_per_bets_file"])
    return {
        "worker_memory_gb": WORKER_GB,
        "usable_share": USABLE,
        "wagers_per_partition_that_fit": fits,
        "shards_a_day_needs": shards,
        "tables_per_shard": OPERATOR["tables"] / shards,
        "wagers_per_partition": OPERATOR["wagers_per_day"] / shards,
        "stage1_peak_gb_per_partition": (marts["stage1_mb_fixed"] + per_wager * OPERATOR["wagers_per_day"] / shards)
        / 1024,
        "landing_minutes": LANDING_MINUTES,
        "files_a_day": 2 * landings,
        "table_commits_a_day": commits,
        "commit_lock_held_share_of_the_day_sqlite_local": held(ingest),
        "commit_lock_held_share_of_the_day_postgres_s3": held(remote) if remote else None,
        "ingest_cpu_hours_a_day": (
            ingest["cpu_s_per_m_coups"] * OPERATOR["coups_per_day"] / 1e6
            + ingest["cpu_s_per_m_wagers"] * OPERATOR["wagers_per_day"] / 1e6
        )
        / 3600,
        "stage1_cpu_hours_a_day": marts["stage1_cpu_s_per_m_wagers"] * OPERATOR["wagers_per_day"] / 1e6 / 3600,
    }


def orchestration(runs: dict, direct_ingest: dict, direct_marts: dict, executor: str) -> dict:
    """Dagster's runs against the same work run directly on the same storage: the wall time it adds, and
    each step's start (from the executor taking it up, a process asked for or a task sent, to its body
    beginning)."""
    if "error" in runs:
        return {"executor": executor, "error": runs["error"]}
    ingest_run, marts_run = runs["runs"]
    starts = [
        step["STEP_START"] - min(step.values())
        for run in runs["runs"]
        for step in run["steps"].values()
        if "STEP_START" in step
    ]
    bodies = [step["STEP_SUCCESS"] - step["STEP_START"] for run in runs["runs"] for step in run["steps"].values()
              if "STEP_SUCCESS" in step and "STEP_START" in step]  # fmt: skip
    ingest = direct_ingest["wall_s"] + direct_ingest["serving"]["wall_s"]
    marts = direct_marts["stage1_two"]["wall_s"] + direct_marts["stage2_first"]["wall_s"]
    return {
        "executor": executor,
        "ingest_run_wall_s": ingest_run["wall_s"],
        "ingest_direct_wall_s": ingest,
        "ingest_share_added": (ingest_run["wall_s"] - ingest) / ingest_run["wall_s"],
        "marts_run_wall_s": marts_run["wall_s"],
        "marts_direct_wall_s": marts,
        "marts_share_added": (marts_run["wall_s"] - marts) / marts_run["wall_s"],
        "launch_to_run_start_s": [run["wall_s"] - (run["RUN_SUCCESS"] - run["RUN_START"]) for run in runs["runs"]],
        "steps": len(starts),
        "step_start_s_mean": sum(starts) / len(starts),
        "step_start_s_max": max(starts),
        "step_bodies_s_total": sum(bodies),
        "workers": sorted({worker for run in runs["runs"] for worker in run.get("workers", [])}),
        "cluster_start_s": runs.get("cluster_start_s"),
    }


def subset_figures(small: dict) -> dict:
    """On the first chunk's files: the servers' share (PostgreSQL + moto against the local folder and
    SQLite), and Dagster's executors against the same work run directly."""
    local = {int(n): run for n, run in small["local"].items()}
    figures: dict = {"files": small["files"], "days": small["days"]}
    figures["multiprocess"] = orchestration(small["dagster"], local[2], small["marts_local"], "multiprocess")
    if "remote" not in small:
        return figures
    remote = {int(n): run for n, run in small["remote"].items()}
    figures["remote"] = {}
    for n, name in ((1, "one_worker"), (2, "two_workers")):
        figures["remote"][name] = {
            "wall_s": remote[n]["wall_s"],
            "local_wall_s": local[n]["wall_s"],
            "share_in_servers": 1 - local[n]["wall_s"] / remote[n]["wall_s"],
            "servers_cpu_s": remote[n]["servers_cpu_s"],
            "workers_cpu_s": remote[n]["cpu_s"],
            "local_workers_cpu_s": local[n]["cpu_s"],
            "serving_step_wall_s": remote[n]["serving"]["wall_s"],
            "local_serving_step_wall_s": local[n]["serving"]["wall_s"],
            "share_waiting_for_commit_lock": ingest_costs(remote[n], 1, 1)["share_waiting_for_commit_lock"],
            "share_in_file_commits": ingest_costs(remote[n], 1, 1)["share_in_file_commits"],
        }
    figures["remote"]["speed_up"] = remote[1]["wall_s"] / remote[2]["wall_s"]
    marts = small["marts_remote"]
    figures["remote"]["marts_stage1_two_wall_s"] = marts["stage1_two"]["wall_s"]
    figures["remote"]["marts_local_stage1_two_wall_s"] = small["marts_local"]["stage1_two"]["wall_s"]
    if "celery" in small:
        figures["celery"] = orchestration(small["celery"], remote[2], marts, "celery")
    return figures


def paired(costs: dict[int, dict], runs: dict[int, dict]) -> dict:
    """The costs of one worker and two, and how many times faster two were."""
    return {"one_worker": costs[1], "two_workers": costs[2], "speed_up": runs[1]["wall_s"] / runs[2]["wall_s"]}


def sizing(measured: dict) -> dict:
    coups, wagers = measured["simulated"]["coups"], measured["simulated"]["wagers"]
    local = {int(n): run for n, run in measured["ingest_local"].items()}
    ingest = {n: ingest_costs(run, coups, wagers) for n, run in local.items()}
    marts = marts_costs(measured["marts_local"], measured["partitions"], coups, wagers)
    stored = measured["stored_bytes"]
    figures = {
        "ingest_local": paired(ingest, local),
        "marts_local": marts,
        "bytes_per_coup": (stored["core.rounds"] + stored["core.shoes"]) / coups,
        "bytes_per_wager": stored["core.bets"] / wagers,
        "partials_bytes_per_coup": stored["partials"] / coups,
        "serving_file_bytes_per_coup": measured["serving_file_bytes"] / coups,
        "subset": subset_figures(measured["subset"]),
    }
    remote = measured["subset"].get("remote")
    # the commit lock's hold per file in the operator's deployment, a PostgreSQL catalog and S3 (moto here)
    on_servers = ingest_costs({int(n): run for n, run in remote.items()}[1], 1, 1) if remote else None
    figures["operator"] = operator_sizing(marts, ingest[1], on_servers)
    return figures


def sizing_table(figures: dict, measured: dict) -> list[dict]:
    """The figures docs/scale-out.md's sizing table is computed from, each with how it was measured."""
    ingest, marts, operator = figures["ingest_local"]["one_worker"], figures["marts_local"], figures["operator"]
    ratio = measured["simulated"]["wagers"] / measured["simulated"]["coups"]
    cpu = "user + system time of the worker process over the task, every thread (getrusage)"
    budget = f"{operator['usable_share']:.0%} of a {operator['worker_memory_gb']} GB worker"
    landing = f"a rounds and a bets file per shard every {operator['landing_minutes']} minutes"
    held = "commit_lock_held_share_of_the_day_"
    rows = [
        ("ingest CPU per million coups", ingest["cpu_s_per_m_coups"], "CPU-s",
         f"each shard's rounds files by its writer (ingest(db, files, shard=...)), one worker, local; {cpu}"),
        ("ingest CPU per million wagers", ingest["cpu_s_per_m_wagers"], "CPU-s", f"each shard's bets files; {cpu}"),
        ("a worker process's start", ingest["cpu_s_per_worker_process_start"], "CPU-s",
         "the process's CPU outside its tasks (imports, the catalog opened), once per worker process"),
        ("the ingest's serving step", ingest["serving_step_cpu_s"], "CPU-s a run",
         "ingest(db, []) after the shard writers: small files merged, the serving snapshot published"),
        ("marts stage 1 CPU per million wagers", marts["stage1_cpu_s_per_m_wagers"], "CPU-s",
         f"build_shard of every (day, shard), one worker, with the coups they come with ({ratio:.1f} wagers a "
         "coup): an upper bound where a coup has more wagers"),
        ("marts stage 1 CPU per million coups", marts["stage1_cpu_s_per_m_coups"], "CPU-s",
         "the same CPU per coup (not to be added to the line above)"),
        ("marts stage 2 CPU per million wagers", marts["stage2_cpu_s_per_m_wagers"], "CPU-s",
         "build_from_partials of every day again (the steady state); the serving host's process start apart"),
        ("marts stage 2 CPU per million coups", marts["stage2_cpu_s_per_m_coups"], "CPU-s", "the same CPU per coup"),
        ("bytes stored per coup", figures["bytes_per_coup"], "B",
         "live data files of core.rounds and core.shoes, after the serving step merged small files"),
        ("bytes stored per wager", figures["bytes_per_wager"], "B", "live data files of core.bets"),
        ("partials per coup", figures["partials_bytes_per_coup"], "B", "stage 1's Parquet files of every (day, shard)"),
        ("serving file per coup", figures["serving_file_bytes_per_coup"], "B", "banco.duckdb after stage 2"),
        ("stage 1 memory, fixed", marts["stage1_mb_fixed"], "MB",
         "peak RSS (VmHWM) of one shard's first day and of its every day, each in a fresh process: the intercept"),
        ("stage 1 memory per million wagers", marts["stage1_mb_per_m_wagers_marginal"], "MB",
         "that line's slope, the coups along counted in"),
        ("ingest memory, one shard's bets", ingest["peak_mb_shard_bets"], "MB",
         "peak RSS of a shard's bets ingest: read batch by batch, it follows a file's size, not the partition's"),
        ("ingest memory, one shard's rounds", ingest["peak_mb_shard_rounds"], "MB", "the same, rounds files"),
        ("shards a day needs", operator["shards_a_day_needs"], "shards",
         f"1 B wagers a day, each (day, shard) build within {budget}"),
        ("stage 1 peak per partition at that many", operator["stage1_peak_gb_per_partition"], "GB", "the memory line"),
        ("table commits a day", operator["table_commits_a_day"], "commits", f"{landing}; commits a file as measured"),
        ("commit lock held, share of the day (SQLite)", operator[f"{held}sqlite_local"], "",
         f"{landing}; the lock's hold a file as measured on the local catalog"),
        ("commit lock held, share of the day (PostgreSQL)", operator[f"{held}postgres_s3"], "",
         "the same with the hold a file on PostgreSQL and moto's S3 (moto is slower than real S3)"),
    ]  # fmt: skip
    return [{"figure": name, "value": value, "unit": unit, "how": how} for name, value, unit, how in rows]


def document(saved: dict) -> dict:
    """docs/sizing.json from a saved run (benchmarks/results/scale_out.json): the sizing table's figures,
    the assumptions they rest on, and when and how they were measured."""
    figures, measured = saved["figures"], saved["measured"]
    ingest, few, operator = figures["ingest_local"], figures["subset"], figures["operator"]
    simulated, load = measured["simulated"], measured["load"]
    celery = few.get("celery", {})

    def short(value: float | None) -> float | None:
        return None if value is None else float(f"{value:.4g}")

    return {
        "what": "Costs measured by benchmarks/bench_scale_out.py, from which docs/scale-out.md's sizing table is "
        "computed (`python -m benchmarks.scale_out_sizing` writes this file from the last run's results)",
        "when": saved["when"],
        "command": ".venv/bin/banco bench scale_out",
        "machine": f"2 cores, 24 GiB, shared: load average {load['before'][0]:.1f} before, {load['after'][0]:.1f} "
        "after; docs/benchmarks-history.md, Scale-out, gives the other processes' share of the cores during each run",
        "input": f"{simulated['coups']:,} simulated coups and {simulated['wagers']:,} wagers "
        f"({simulated['wagers'] / simulated['coups']:.2f} wagers a coup) of {measured['tables']} tables, "
        f"{measured['shards']} shards, {simulated['files']} Parquet files (a rounds and a bets file a chunk and shard)",
        "assumptions": {
            "operator": "500 tables, 1,000,000 coups and 1,000,000,000 wagers a gaming day (issue #18)",
            "worker_memory": f"{operator['worker_memory_gb']} GB a worker, {operator['usable_share']:.0%} of it for "
            "one partition's stage-1 build (the rest: the OS, page cache, headroom)",
            "landing": f"each shard lands a rounds and a bets file every {operator['landing_minutes']} minutes",
            "wagers_per_coup": "costs per wager were measured at ~3 wagers a coup and carry the coups' share: at "
            "~1,000 wagers a coup they are upper bounds",
            "storage": "bytes are of the simulator's data (LZ4 Parquet): real logs may compress less",
            "object_store": "moto's S3 is a Python server on the same 2 cores: its share overstates real S3's",
        },
        "figures": [{**row, "value": short(row["value"])} for row in saved["sizing"]],
        "throughput": {
            "ingest_one_worker_coups_per_s": short(ingest["one_worker"]["coups_per_s"]),
            "ingest_one_worker_wagers_per_s": short(ingest["one_worker"]["wagers_per_s"]),
            "ingest_two_workers_coups_per_s": short(ingest["two_workers"]["coups_per_s"]),
            "ingest_two_workers_wagers_per_s": short(ingest["two_workers"]["wagers_per_s"]),
            "ingest_speed_up": short(ingest["speed_up"]),
            "marts_stage1_speed_up": short(figures["marts_local"]["stage1_speed_up"]),
            "ingest_postgres_s3_speed_up": short(few.get("remote", {}).get("speed_up")),
        },
        "shares": {
            "ingest_in_file_commits_one_worker": short(ingest["one_worker"]["share_in_file_commits"]),
            "ingest_waiting_for_commit_lock_two_workers": short(ingest["two_workers"]["share_waiting_for_commit_lock"]),
            "ingest_commit_lock_held_of_wall_two_workers": short(
                ingest["two_workers"]["commit_lock_held_share_of_wall"]
            ),
            "ingest_in_postgres_and_moto_one_worker": short(
                few.get("remote", {}).get("one_worker", {}).get("share_in_servers")
            ),
            "multiprocess_step_start_s_mean": short(few["multiprocess"].get("step_start_s_mean")),
            "celery_step_start_s_mean": short(celery.get("step_start_s_mean")),
            "celery_launch_to_run_start_s": [short(value) for value in celery.get("launch_to_run_start_s", [])],
        },
        "operator": {key: short(value) if isinstance(value, float) else value for key, value in operator.items()},
    }


if __name__ == "__main__":
    import json
    from pathlib import Path

    from benchmarks.report import RESULTS

    target = Path(__file__).resolve().parents[1] / "docs" / "sizing.json"
    target.write_text(json.dumps(document(json.loads((RESULTS / "scale_out.json").read_text())), indent=2) + "\n")
    print(f"saved {target}")
