"""End to end: `streamlit run` headless on localhost, driven by headless Chromium through every page and a
filter change; a screenshot of each page is saved in tests/artifacts/screenshots (git-ignored)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import duckdb
import pytest

from dashboards.pages import PAGES
from pipelines.commands.dashboard import streamlit_command

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
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
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(warehouse, tmp_path_factory):
    port = _free_port()
    argv, env = streamlit_command(warehouse, port)
    log = (tmp_path_factory.mktemp("streamlit") / "server.log").open("w")
    process = subprocess.Popen(
        [*argv, "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, killed whole below
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
                    raise RuntimeError(f"streamlit did not come up: see {log.name}") from None
                time.sleep(0.3)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="module")
def browser():
    assert CHROMIUM.exists(), "no /usr/bin/chromium: run `apt-get install -y chromium` (python3 dev.py test does)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _settled(page) -> None:
    """Wait for the script run to finish and the page to stop changing."""
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=60_000)


def test_every_page_renders_in_a_real_browser(server, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    for index, (name, title, _) in enumerate(PAGES):
        page.goto(f"{server}/{name.removesuffix('.py') if index else ''}")  # the first page is the default, at /
        page.wait_for_selector(f"h1:has-text('{title}')", timeout=60_000)
        _settled(page)
        page.screenshot(path=str(SCREENSHOTS / f"{name.removesuffix('.py')}.png"), full_page=True)
        errors = page.locator(ERRORS)
        assert errors.count() == 0, f"{title}: {errors.first.inner_text()}"
    page.close()


def test_a_filter_change_redraws_the_overview(server, browser, warehouse):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server)
    page.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
    _settled(page)
    games = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]').nth(1)
    games.click()
    page.keyboard.type("super6")
    page.keyboard.press("Enter")
    page.keyboard.press("Escape")
    _settled(page)
    page.screenshot(path=str(SCREENSHOTS / "overview-super6.png"), full_page=True)
    assert page.locator(ERRORS).count() == 0
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    coups = con.execute("SELECT count(*) FROM core.rounds WHERE game = 'super6'").fetchall()[0][0]
    con.close()
    shown = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    assert shown == f"{coups:,}"
    page.close()
