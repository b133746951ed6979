"""The dashboard in a real browser, for the screenshots command and the browser tests: a free loopback port,
a `streamlit run` that answers its health check (and is killed with its process group afterwards), Debian's
headless Chromium under Playwright (a dev dependency), and a page waited on until its script has run."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
#: Without the background-networking flags Chromium keeps trying hosts this closed network refuses.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: The app once Streamlit has run the page's script and is waiting for the user.
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running(
    argv: list[str], env: dict[str, str], port: int, log: Path, cwd: Path | None = None
) -> Iterator[tuple[str, int]]:
    """`argv` (a `streamlit run` on 127.0.0.1:`port`) started in its own process group, its output in
    `log`; yields its URL and pid once it answers, and stops the whole group afterwards."""
    with log.open("w") as output:
        process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                        if answer.read() == b"ok":
                            break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"streamlit did not come up: see {log}") from None
                    time.sleep(0.3)
            yield url, process.pid
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


@contextlib.contextmanager
def chromium():
    """Debian's headless Chromium under Playwright (Playwright's own browser downloads are not used)."""
    if not CHROMIUM.exists():
        raise RuntimeError("no /usr/bin/chromium: run `apt-get install -y chromium` (python3 dev.py test does)")
    from playwright.sync_api import sync_playwright  # a dev dependency: only the browser's users need it

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def settled(page) -> None:
    """Wait for the script run to finish and the page to stop changing."""
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=60_000)
