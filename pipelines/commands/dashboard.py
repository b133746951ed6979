"""The Streamlit dashboard alone, on the serving snapshot of the warehouse."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from models.access import settings
from models.settings import Settings

APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
#: The address served on unless sign-in is configured: this machine only.
LOOPBACK = "127.0.0.1"


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("--port", type=int, default=8501, help="port to serve on (default 8501)")
    parser.add_argument(
        "--address",
        default=LOOPBACK,
        help=f"address to listen on (default {LOOPBACK}); any other needs sign-in configured (docs/dashboard.md)",
    )


def secrets_files() -> list[Path]:
    """Where the dashboard's Streamlit will read secrets.toml, in its order (later files win): its own
    `secrets.files` setting (the user's ~/.streamlit and the working folder's .streamlit, unless a
    config.toml says otherwise)."""
    from streamlit import config  # slow to import: only the commands that serve need it

    return [Path(path) for path in config.get_option("secrets.files")]


def secrets() -> dict[str, Any]:
    """The tables of every secrets.toml the dashboard will read, merged the way Streamlit merges them."""
    merged: dict[str, Any] = {}
    for path in secrets_files():
        try:
            merged.update(tomllib.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise ValueError(f"{path} cannot be read: {error}") from None
    return merged


def check_signin(address: str) -> settings.Signin:
    """The sign-in configured for the dashboard, once it is usable and allows serving on `address`;
    otherwise a one-line error saying what to configure."""
    signin = settings.configured(os.environ, secrets())
    signin.check_exposure(address)
    return signin


def streamlit_command(db: Path, port: int, address: str = LOOPBACK) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that serve the dashboard on `address`:`port` for the warehouse at
    `db` (`banco up` starts it the same way). Check the address with `check_signin` first."""
    argv = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.address",  # given always: Streamlit's own default is every interface
        address,
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
    signin = check_signin(args.address)
    argv, env = streamlit_command(Path(args.db), args.port, args.address)
    host = "localhost" if args.address == LOOPBACK else args.address
    how = "sign-in required" if signin.required else "no sign-in: this machine only"
    print(f"dashboard: http://{host}:{args.port} ({how}; warehouse {args.db}; Ctrl-C stops it)", flush=True)
    return subprocess.run(argv, env=env).returncode
