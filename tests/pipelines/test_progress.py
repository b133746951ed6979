"""Progress on a terminal, none in a pipe or under --json: the commands run with stderr on a
pseudo-terminal, then piped, their stdout the same either way."""

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from models.progress import quiet
from pipelines.progress import bars, shown
from tests.pipelines.test_cli_ingest import BANCO, banco

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = ("systems", "--system", "1-3-2-6", "--bet", "player", "--shoes", "300")


def on_terminal(*argv: str, cwd: Path | None = None, timeout: float = 300) -> tuple[str, bytes]:
    """Run `argv` with stderr on a pseudo-terminal and stdout piped: its stdout, and every byte drawn on stderr."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, cwd=cwd)
    os.close(follower)
    drawn, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([leader], [], [], 1)[0]:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal closed: every process holding it has ended
                    break
                if not chunk:
                    break
                drawn += chunk
        out = process.communicate(timeout=max(1.0, deadline - time.monotonic()))[0]
    finally:
        os.close(leader)
        process.kill()
    assert process.returncode == 0, drawn.decode(errors="replace")
    return out.decode(), drawn


def timeless(out: str) -> str:
    """A simulate summary without its timings, the one part that differs between runs."""
    return re.sub(r" in [\d.]+ s \(.*\)", "", out)


def test_simulate_draws_a_bar_on_a_terminal_and_nothing_in_a_pipe(tmp_path):
    simulate = (BANCO, "simulate", "--shoes", "200", "--tables", "2", "--start", "2026-01-01", "--out", "logs")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    out, drawn = on_terminal(*simulate, cwd=tmp_path / "a")
    assert b"dealing shoes" in drawn and b"100%" in drawn and b"200/200" in drawn
    piped = subprocess.run(simulate, capture_output=True, text=True, timeout=300, cwd=tmp_path / "b")
    assert piped.returncode == 0, piped.stderr
    assert "dealing shoes" not in piped.stderr and "%" not in piped.stderr
    assert timeless(piped.stdout) == timeless(out) and out.startswith("simulated 200 shoes")


def test_systems_draws_its_stages_but_not_under_json():
    out, drawn = on_terminal(BANCO, *SYSTEM)
    assert b"playing a session per shoe" in drawn or b"dealing shoes" in drawn
    piped = banco(*SYSTEM)
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout == out
    as_json, drawn = on_terminal(BANCO, *SYSTEM, "--json")
    assert drawn == b"" and json.loads(as_json)["backtest"]["sessions"] == 300


def test_no_bars_under_json_or_where_stderr_is_no_terminal():
    assert not shown(json=True)
    if not sys.stderr.isatty():  # pytest captures it (unless run with -s)
        with bars() as progress:
            assert progress is quiet


def test_the_install_status_line_updates_on_a_terminal_and_its_output_shows_on_failure():
    step = "import sys, time\nfor n in range(3): print('Collecting package', n, flush=True); time.sleep(0.3)"
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); import dev; "
        f"print(dev._install([sys.executable, '-c', {step!r}], 'pip: installing')); "
        "print(dev._install([sys.executable, '-c', 'print(\"ERROR: no match\"); raise SystemExit(1)'], 'uv'))"
    )
    out, drawn = on_terminal(sys.executable, "-c", code)
    assert out.split() == ["0", "1"]  # each step's status, its output never on stdout
    assert b"\rdev: pip: installing (" in drawn and b"Collecting package 2" in drawn
    assert b"ERROR: no match" in drawn  # a failed step's output is shown whole
    piped = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "dev: pip" not in piped.stderr and "Collecting package 0" in piped.stdout  # as it was: its own output
