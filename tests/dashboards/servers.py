"""What the browser tests share: the project's own browser pieces (dashboards/browser.py: a free loopback
port, a `streamlit run` that answers its health check, Debian's headless Chromium), and the dashboard
served as `banco dashboard` serves it."""

from __future__ import annotations

import contextlib
from pathlib import Path

from dashboards.browser import CHROMIUM, CHROMIUM_ARGS, chromium, free_port, running, settled
from models.access import users
from models.settings import BUILT_IN_ALERTS
from pipelines.commands.dashboard import streamlit_command

#: The project's alerts file, the default wherever a server runs.
ALERTS = BUILT_IN_ALERTS

__all__ = ["ALERTS", "CHROMIUM", "CHROMIUM_ARGS", "chromium", "dashboard", "free_port", "running", "settled"]


@contextlib.contextmanager
def dashboard(warehouse: Path, folder: Path, port: int | None = None, toolbar: str = "viewer", **settings: str):
    """`streamlit run` as `banco dashboard` starts it (on 127.0.0.1, its menu in `toolbar` mode), in
    `folder` with `settings` in its environment and no other sign-in than they (or a .streamlit/secrets.toml
    in `folder`) configure; yields its URL and port once it answers."""
    port = port or free_port()
    argv, env = streamlit_command(warehouse, port)
    argv[argv.index("--client.toolbarMode") + 1] = toolbar
    env = {key: value for key, value in env.items() if key != users.SETTING} | {"HOME": str(folder)} | settings
    # cwd: where Streamlit looks for .streamlit/secrets.toml (and in HOME, the same folder)
    with running([*argv, "--server.fileWatcherType", "none"], env, port, folder / "server.log", cwd=folder) as (url, _):
        yield url, port
