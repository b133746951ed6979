"""`banco up` on a fresh folder: a demo dealt and materialized through Dagster, both servers up, and
nothing left running after Ctrl-C."""

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import duckdb
import pytest

BANCO = shutil.which("banco") or str(Path(sys.executable).with_name("banco"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def processes_of(folder: Path) -> list[int]:
    """Processes whose environment points Dagster at `folder`: everything `banco up` started there."""
    marker = f"BANCO_DAGSTER_DIR={folder / '.dagster'}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker in (proc / "environ").read_bytes().split(b"\0"):
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def resident_mb(pid: int) -> float:
    """A process's resident set, in MB, as `ps -o rss` shows it."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def get(url: str, body: dict | None = None) -> bytes:
    data = json.dumps(body).encode() if body else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


@pytest.mark.slow
def test_up_materializes_through_dagster_serves_both_and_stops_cleanly(tmp_path, smtp_server):
    dagster_port, dashboard_port = free_port(), free_port()
    inbox, smtp_port = smtp_server()  # configured, yet a demo month's alerts go to the warehouse's log alone
    db, landing = tmp_path / "warehouse" / "banco.duckdb", tmp_path / "landing"
    args = [BANCO, "up", "--db", str(db), "--landing", str(landing), "--demo-days", "2",
            "--dagster-port", str(dagster_port), "--dashboard-port", str(dashboard_port)]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BANCO_", "DAGSTER_"))}
    env |= {"BANCO_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}", "BANCO_SMTP_FROM": "banco@casino.test",
            "BANCO_ALERTS_TO": "floor@casino.test"}  # fmt: skip
    up = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = []
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            line = up.stdout.readline()
            assert line or up.poll() is None, "".join(output)
            output.append(line)
            if "Ctrl-C stops both" in line:
                break
        text = "".join(output)
        assert "dealing a demo month" in text and "built the marts of 2 gaming days" in text, text
        assert "through log (a demo month: the log alone)" in text, text
        assert f"http://127.0.0.1:{dagster_port}" in text and f"http://127.0.0.1:{dashboard_port}" in text
        assert get(f"http://127.0.0.1:{dashboard_port}/_stcore/health") == b"ok"
        runs = json.loads(
            get(
                f"http://127.0.0.1:{dagster_port}/graphql",
                {"query": "{ runsOrError { ... on Runs { results { jobName status } } } }"},
            )
        )["data"]["runsOrError"]["results"]
        succeeded = {run["jobName"] for run in runs if run["status"] == "SUCCESS"}
        assert {"simulate_shoes", "ingest_landing", "build_marts"} <= succeeded  # the runs show in the UI
        serving = [up.pid, *processes_of(tmp_path)]
        assert len(serving) > 1 and sum(map(resident_mb, serving)) < 1536  # lean when idle (#34)
        up.send_signal(signal.SIGINT)
        assert up.wait(timeout=60) == 0
        time.sleep(1)
        assert processes_of(tmp_path) == [], "a server outlived banco up"
    finally:
        for pid in [up.pid, *processes_of(tmp_path)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    con = duckdb.connect(str(db.with_name("banco.serving.duckdb")), read_only=True)
    games = con.execute("SELECT count(DISTINCT game) FROM core.rounds").fetchall()[0][0]
    faults = con.execute("SELECT count(*) FROM quarantine.rounds").fetchall()[0][0]
    channels = con.execute("SELECT DISTINCT channel FROM meta.alerts").fetchall()
    con.close()
    assert games == 6 and faults > 0  # every game, and a few misdeals for the integrity views
    assert set(channels) <= {("log",)} and inbox.envelopes == []  # recorded, and no one emailed about a demo
    again = subprocess.run([*args, "--no-serve"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "dealing a demo month" not in again.stdout
    assert re.search(r"ingested (\d+) files \(\1 already ingested, 0 failed\): 0 rows read", again.stdout), again.stdout
    assert "the marts of all 2 gaming days are current" in again.stdout  # nothing rebuilt for nothing new
