#!/usr/bin/env python3
"""The project's one entry point for people and CI: set up the environment, then run a task.

    python3 dev.py up            # the main job (`banco up`)
    python3 dev.py test          # lint and every test, spread over worker processes
    python3 dev.py test --fast   # the daily loop: every test but those marked slow
    python3 dev.py bench         # the benchmark suite (`--quick`: every benchmark, small)
    python3 dev.py screenshots   # docs/images/NAME.png of every dashboard page, on the demo month (`--db`)

Arguments after the task go to the tool it runs (pytest, `banco up`, `banco bench`, the screenshots).

On first use (and whenever pyproject.toml or constraints.txt change) it creates `.venv/` and
installs the pinned dependencies; nothing else has to be on the machine but Python 3.11+.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PINNED = [ROOT / "pyproject.toml", ROOT / "constraints.txt"]


def _digest() -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in PINNED if p.exists())).hexdigest()


#: The installer: uv fetches and installs the pinned packages side by side, in seconds where pip takes
#: minutes; pip installs it first, and installs everything itself should uv fail.
UV = "uv==0.13.8"


def ensure_environment() -> None:
    """Create the virtual environment and install the pinned dependencies when they changed."""
    stamp = VENV / ".installed"
    if stamp.exists() and stamp.read_text() == _digest():
        return
    if not (BIN / "python").exists():
        print("dev: creating .venv", flush=True)
        venv.create(VENV, with_pip=True)
    print("dev: installing pinned dependencies", flush=True)
    python = str(BIN / "python")
    wanted = ["-c", str(ROOT / "constraints.txt"), "-e", f"{ROOT}[dev]"]
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    uv = [str(BIN / "uv"), "pip", "install", "--quiet", "--python", python]
    if _install([*pip, UV], "installing uv") != 0 or _install([*uv, *wanted], "uv: installing them") != 0:
        print("dev: uv could not install them; pip will (a few minutes)", flush=True)
        if _install([*pip, *wanted], "pip: installing them") != 0:
            raise SystemExit("dev: pip could not install the pinned dependencies (its output is above)")
    stamp.write_text(_digest())


def _install(command: list[str], stage: str) -> int:
    """Run an install step; its exit status. On a terminal, one status line updated as it goes (the
    stage, the seconds so far, the installer's latest line) stands for its output, shown whole only
    if it fails; elsewhere (CI logs) it runs quiet, its errors as they come."""
    if not sys.stderr.isatty():
        return subprocess.run(command).returncode
    loud = [word for word in command if word != "--quiet"]  # its lines are the status's steps
    process = subprocess.Popen(loud, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    lines: list[str] = []

    def read() -> None:
        for line in process.stdout:
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started, width = time.monotonic(), shutil.get_terminal_size().columns - 1
    while reader.is_alive():
        latest = lines[-1].strip() if lines else ""
        status = f"dev: {stage} ({time.monotonic() - started:.0f} s) {latest}"
        sys.stderr.write("\r" + status[:width].ljust(width))
        sys.stderr.flush()
        reader.join(0.25)
    sys.stderr.write("\r" + " " * width + "\r")
    if process.wait() != 0:
        sys.stderr.write("".join(lines))
    sys.stderr.flush()
    return process.returncode


def run(*argv: str) -> int:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(list(argv), cwd=ROOT, env=env).returncode


def main(args: list[str]) -> int:
    task, rest = (args[0], args[1:]) if args else ("help", [])
    if task not in {"up", "test", "bench", "lint", "screenshots"}:
        print(__doc__.strip())
        return 0 if task == "help" else 2
    ensure_environment()
    if task == "up":
        return run(str(BIN / "banco"), "up", *rest)
    if task == "bench":
        return run(str(BIN / "banco"), "bench", *rest)
    if task == "screenshots":
        ensure_chromium()
        return run(str(BIN / "python"), "-m", "dashboards.screenshots", *rest)
    lint = run(str(BIN / "ruff"), "check", ".") or run(str(BIN / "ruff"), "format", "--check", ".")
    if task == "lint" or lint != 0:
        return lint
    ensure_chromium()
    ensure_redis()
    return run(str(BIN / "python"), "-m", "pytest", *pytest_arguments(rest))


#: pytest-xdist workers: more than the 2 cores, since the server, browser and Dagster tests mostly wait.
WORKERS = 4


def pytest_arguments(rest: list[str]) -> list[str]:
    """What `dev.py test` passes to pytest: `--fast` leaves out the tests marked slow, and the suite is
    spread over WORKERS processes, each test module on one of them (its module fixtures built once), in
    the order tests/conftest.py gives (the longest first), unless the caller chose (`-n 0` runs in this
    process, as a debugger wants)."""
    fast = "--fast" in rest
    rest = [word for word in rest if word != "--fast"]
    chosen = any(word == "-n" or word.startswith(("-n", "--numprocesses")) for word in rest)
    spread = [] if chosen else ["-n", str(WORKERS), "--dist", "loadscope", "--no-loadscope-reorder"]
    return [*spread, *(["-m", "not slow"] if fast else []), *rest]


def ensure_chromium() -> None:
    """The dashboard's browser tests and screenshots drive Debian's chromium (Playwright's own browser
    downloads are not used): install it when it is missing and apt-get can."""
    if not Path("/usr/bin/chromium").exists():
        _apt_install("chromium", "the dashboard's browser test")


def ensure_redis() -> None:
    """The scale-out test's Celery broker is Debian's Redis server: install it when it is missing."""
    if not shutil.which("redis-server"):
        _apt_install("redis-server", "the scale-out test's broker")


def _apt_install(package: str, purpose: str) -> None:
    """`apt-get install -y PACKAGE` when apt-get is there, refreshing the package lists once if needed."""
    if not shutil.which("apt-get"):
        return
    print(f"dev: installing {package} for {purpose} (apt-get install -y {package})", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    if subprocess.run(["apt-get", "install", "-y", "-q", package], **quiet).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], **quiet)  # a fresh machine may have no package lists yet
        subprocess.run(["apt-get", "install", "-y", "-q", package], **quiet)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
