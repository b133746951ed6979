"""The Streamlit dashboard alone, on the serving snapshot of the warehouse."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8501, help="port to serve on (default 8501)")


def streamlit_command(db: Path, port: int) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that serve the dashboard on `port` for the warehouse at `db`
    (`banco up` starts it the same way)."""
    argv = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",  # the viewer's menu: no Deploy button, no developer options
        "viewer",
    ]
    return argv, {**os.environ, "BANCO_DB": str(db.resolve())}


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        raise ValueError(f"a port is 1 to 65535, got {args.port}")
    argv, env = streamlit_command(Path(args.db), args.port)
    print(f"dashboard: http://localhost:{args.port} (warehouse {args.db}; Ctrl-C stops it)", flush=True)
    return subprocess.run(argv, env=env).returncode
