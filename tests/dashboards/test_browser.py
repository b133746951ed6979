"""End to end: `streamlit run` headless on localhost, driven by headless Chromium through every page and a
filter change; then sign-in with a users file: required, a wrong password refused, the console an
analyst's alone, failed sign-ins counted through a cleared cache and new sessions, and Streamlit's
clear_cache message obeyed for analysts only. A screenshot of each page is saved in tests/artifacts/screenshots
(git-ignored)."""

from __future__ import annotations

import contextlib
import re
import secrets
import sqlite3
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import duckdb
import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from dashboards import signin
from dashboards.pages import ANALYSTS_ONLY, PAGES
from models.access import Role, throttle, users
from models.contract import BET_INPUT_COLUMNS, EVENT_INPUT_COLUMNS, ROUND_INPUT_COLUMNS
from tests.dashboards.identity_provider import CLIENT_ID, CLIENT_SECRET, IdentityProvider
from tests.dashboards.servers import dashboard, free_port
from tests.sockets import listening

SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
NAVIGATION = '[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]'
PASSWORDS = {"ana": "ana's long password", "vic": "vic's long password"}
#: How long Streamlit's /_stcore/metrics keeps the cache sizes it reports before it measures them again.
METRICS_TTL = 5.0


@pytest.fixture(scope="module")
def guarded(warehouse, tmp_path_factory):
    """A users file configured, with an analyst and a viewer: sign-in is required, even on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("guarded")
    users.write(folder / "users.toml", {
        "ana": users.User("ana", Role.ANALYST, users.hashed(PASSWORDS["ana"])),
        "vic": users.User("vic", Role.VIEWER, users.hashed(PASSWORDS["vic"])),
    })  # fmt: skip
    with dashboard(warehouse, folder, **{users.SETTING: str(folder / "users.toml")}) as (url, _):
        yield url


@pytest.fixture(scope="module")
def clearable(warehouse, tmp_path_factory):
    """A users file as `guarded`, on a server whose menu offers "Clear cache" to everyone (toolbarMode
    developer, as a bare `streamlit run` on localhost without the project's .streamlit/config.toml):
    nothing but the server's own refusal stands between a stranger and every user's cached data."""
    folder = tmp_path_factory.mktemp("clearable")
    users.write(folder / "users.toml", {
        "ana": users.User("ana", Role.ANALYST, users.hashed(PASSWORDS["ana"])),
        "vic": users.User("vic", Role.VIEWER, users.hashed(PASSWORDS["vic"])),
    })  # fmt: skip
    with dashboard(warehouse, folder, toolbar="developer", **{users.SETTING: str(folder / "users.toml")}) as (url, _):
        yield url, folder / "users.toml"


@pytest.fixture(scope="module")
def provider(warehouse, tmp_path_factory):
    """An identity provider configured for st.login (a local one), with roles for ana and vic."""
    folder, port = tmp_path_factory.mktemp("provider"), free_port()
    with IdentityProvider() as idp:
        (folder / ".streamlit").mkdir()
        (folder / ".streamlit" / "secrets.toml").write_text(
            f"""[auth]
redirect_uri = "http://127.0.0.1:{port}/oauth2callback"
cookie_secret = "{secrets.token_urlsafe(32)}"
client_id = "{CLIENT_ID}"
client_secret = "{CLIENT_SECRET}"
server_metadata_url = "{idp.url}/.well-known/openid-configuration"

[banco.roles]
"ana@example.com" = "analyst"
"vic@example.com" = "viewer"
"""
        )
        with dashboard(warehouse, folder, port) as (url, _):
            yield url, idp


def _settled(page) -> None:
    """Wait for the script run to finish and the page to stop changing."""
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_timeout(300)
    page.wait_for_selector(IDLE, timeout=60_000)


@pytest.mark.slow
def test_every_page_renders_in_a_real_browser(server, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    outside: list[str] = []  # requests past this machine, refused as a casino's closed network would

    def refuse(route):
        outside.append(route.request.url)
        route.abort()

    page.route(lambda url: urlsplit(url).hostname not in ("127.0.0.1", "localhost"), refuse)
    # a chart whose spec Vega cannot run (a bad expression) draws nothing and says so only here
    failed: list[str] = []
    page.on("pageerror", lambda error: failed.append(str(error)[:200]))
    for index, (name, title, _) in enumerate(PAGES):
        page.goto(f"{server}/{name.removesuffix('.py') if index else ''}")  # the first page is the default, at /
        page.wait_for_selector(f"h1:has-text('{title}')", timeout=60_000)
        _settled(page)
        page.wait_for_timeout(500)  # the charts are embedded once the run is over
        page.screenshot(path=str(SCREENSHOTS / f"{name.removesuffix('.py')}.png"), full_page=True)
        errors = page.locator(ERRORS)
        assert errors.count() == 0, f"{title}: {errors.first.inner_text()}"
        assert failed == [], f"{title}: {failed}"
    page.close()
    assert outside == []  # the app's icons and fonts ship with it


#: Run before a page's own scripts: keeps every text drawn on a canvas, except a chart's. The data grid of
#: st.dataframe paints its headers and cells on canvases (some off-screen buffers), and its accessible
#: table holds the cells' raw values, not what is shown: what fillText draws is what reaches the screen.
DRAWN = """
window.drawn = [];
const fillText = CanvasRenderingContext2D.prototype.fillText;
CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
  const chart = this.canvas.isConnected && this.canvas.closest('[data-testid="stVegaLiteChart"]');
  if (!chart) window.drawn.push(String(text));
  return fillText.call(this, text, ...rest);
};
"""
#: The page's text without its charts (their titles and axes are the charts' own test's) and grids (whose
#: hidden accessible tables hold raw values: what the grids draw is read apart), with the values its
#: inputs show (a select box's choice is an input's value, outside innerText).
WORDS = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]')]
  .filter((element) => !element.querySelector('[data-testid="stVegaLiteChart"], [data-testid="stDataFrame"]'))
  .map((element) => element.innerText)
  .concat([...document.querySelectorAll('[data-testid="stMain"] input')].map((input) => input.value))
  .join("\\n")"""
#: A column's or an identifier's name: theo_over_handle, chemin_de_fer, p_value.
RAW_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
#: A float as a program prints it: more than 4 decimals (0.45920550664202275), or an exponent (6.9e-09); a
#: p-value of two significant digits (0.00062) is the home's.
RAW_FLOAT = re.compile(r"(?<![\d.])(?!0\.000[1-9]\d?(?![\d.]))\d+\.\d{5,}|\d(?:\.\d+)?e[-+]?\d", re.IGNORECASE)
#: Where a cell may name a log's field: a file's path, and the fields of the landing files (an ingest
#: error says which field of the file to look at).
FILE_PATH = re.compile(r"\S*/\S*")
LOG_FIELDS = frozenset((*ROUND_INPUT_COLUMNS, *BET_INPUT_COLUMNS, *EVENT_INPUT_COLUMNS))
#: A percent to more than 2 decimals ("1.802 %"): models/display.py gives 2 at most.
LONG_PERCENT = re.compile(r"\d\.\d{3,} ?%")
#: A grid's cell in a style the home does not write: a negative in parentheses ("(38,960.00)"), the
#: browser's locale percent ("11.5%": the home puts "(%)" in the header), a number of five digits or
#: more without separators ("50435").
GRID_STYLE = re.compile(r"^\(\d[\d,.]*\)$|^-?[\d,.]+%$|^-?\d{5,}(?:\.\d+)?$")


@pytest.mark.slow
def test_no_raw_name_or_unformatted_float_reaches_the_screen(server, browser):
    """Every page but the SQL console (its results keep the names the user's SQL gives them), as first
    drawn: the figures in its metrics, captions and select boxes, and every table cell the grid paints."""
    found = []
    for index, (name, title, _) in enumerate(PAGES):
        if name == "sql.py":
            continue
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.add_init_script(DRAWN)
        page.goto(f"{server}/{name.removesuffix('.py') if index else ''}")
        page.wait_for_selector(f"h1:has-text('{title}')", timeout=60_000)
        _settled(page)
        page.wait_for_timeout(1_000)  # the grids paint after the run
        words = page.evaluate(WORDS)
        drawn = page.evaluate("window.drawn")
        headers = page.locator('[data-testid="stDataFrame"] th').all_inner_texts()
        found += [
            (title, "text", hit) for pattern in (RAW_NAME, RAW_FLOAT, LONG_PERCENT) for hit in pattern.findall(words)
        ]
        found += [(title, "header", text) for text in headers if RAW_NAME.search(text)]
        found += [
            (title, "cell", text)
            for text in drawn
            if set(RAW_NAME.findall(FILE_PATH.sub("", text))) - LOG_FIELDS
            or RAW_FLOAT.search(text)
            or GRID_STYLE.search(text.strip())
        ]
        page.close()
    assert sorted(set(found)) == []


def test_a_filter_change_redraws_the_overview(server, browser, warehouse):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server)
    page.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
    _settled(page)
    games = page.locator('[data-testid="stSidebar"] [data-testid="stMultiSelect"]').nth(1)
    games.click()
    page.keyboard.type("Super 6")  # the games go by their names
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


def _searched(browser, url: str, text: str, answer: str):
    """A new page at `url` with `text` typed into its player search, once `answer` shows."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    page.wait_for_selector("h1", timeout=60_000)
    _settled(page)
    search = page.get_by_label("Player id", exact=True)
    search.fill(text)
    search.press("Enter")
    page.wait_for_selector(answer, timeout=60_000)
    return page


def test_a_search_opens_a_players_profile(server, browser, warehouse):
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    player, sessions = con.execute(
        "SELECT player_id, sessions FROM marts.players ORDER BY theo DESC, player_id LIMIT 1"
    ).fetchall()[0]
    con.close()
    page = _searched(browser, f"{server}/players", player, f"h4:has-text('{player}')")
    _settled(page)
    page.screenshot(path=str(SCREENSHOTS / "players-profile.png"), full_page=True)
    assert page.locator(ERRORS).count() == 0
    assert page.locator('[data-testid="stVegaLiteChart"]').count() == 2  # the timeline, win against theo
    counted = re.compile(rf"^{sessions:,} sessions?;")
    assert page.locator('[data-testid="stCaptionContainer"]', has_text=counted).count() == 1
    page.close()


@pytest.mark.parametrize("page_name", ["players", "surveillance"])
def test_a_searched_id_shows_as_typed_never_as_markup(server, browser, page_name):
    payload = "![x](http://example.invalid/beacon.png) [Click to verify your account](http://example.invalid)"
    page = _searched(browser, f"{server}/{page_name}", payload, "text=No rated player matches")
    _settled(page)
    warning = page.locator('[data-testid="stAlertContentWarning"]').first.inner_text()
    assert payload in warning.replace("\u2060", "")  # as typed (with invisible word joiners in its addresses)
    main = page.locator('[data-testid="stMain"]')
    assert main.locator("img[src*='example.invalid']").count() == 0
    assert main.locator("a[href*='example.invalid']").count() == 0
    page.close()


def test_the_surveillance_page_shows_a_flag_and_its_evidence(server, browser, warehouse):
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    flags, newest = con.execute(
        "SELECT count(DISTINCT (player_id, gaming_day)), list(DISTINCT player_id) FILTER (WHERE gaming_day = "
        "(SELECT max(gaming_day) FROM marts.surveillance_flags)) FROM marts.surveillance_flags"
    ).fetchall()[0]
    con.close()
    assert flags > 0, "the fixture's advantage players should be flagged"
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{server}/surveillance")
    page.wait_for_selector("h1:has-text('Surveillance')", timeout=60_000)
    _settled(page)
    page.screenshot(path=str(SCREENSHOTS / "surveillance-flag.png"), full_page=True)
    assert page.locator(ERRORS).count() == 0
    assert page.locator('[data-testid="stMetricValue"]').first.inner_text() == f"{flags:,}"  # player-days flagged
    shown = page.locator("h4").first.inner_text().strip()  # the evidence of the newest alert
    assert shown in newest
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    charts.nth(1).wait_for(timeout=60_000)  # drawn once the browser has embedded it, after the run
    assert charts.count() == 2  # alerts per day, the shoe's timeline
    page.close()


def test_the_server_listens_on_this_machine_only(open_server):
    _, port = open_server
    assert listening(port) == {"127.0.0.1"}  # not 0.0.0.0 or ::, Streamlit's own default


def _sign_in(page, url: str, name: str, password: str) -> None:
    page.goto(url)
    page.wait_for_selector("h1:has-text('Banco Analytics')", timeout=60_000)
    _settled(page)
    page.get_by_label("User name", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()
    _settled(page)


def _navigation(page) -> list[str]:
    """The titles of the pages the sidebar offers (each link's text is its icon's name, then its title)."""
    return [link.inner_text().strip().splitlines()[-1] for link in page.locator(NAVIGATION).all()]


def test_sign_in_is_required_and_a_wrong_password_refused(guarded, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    for path in ("", "/sql", "/integrity"):  # no page by its URL either
        page.goto(f"{guarded}{path}")
        page.wait_for_selector("h1:has-text('Banco Analytics')", timeout=60_000)
        _settled(page)
        assert page.get_by_label("Password", exact=True).count() == 1 and _navigation(page) == []
        assert page.locator('[data-testid="stMetricValue"], [data-testid="stDataFrame"]').count() == 0
    page.get_by_test_id("stMainMenu").click()  # the viewer's menu: no "Clear cache", nor its "c" shortcut
    page.get_by_text("Print", exact=True).wait_for(timeout=10_000)
    assert page.get_by_text("Clear cache", exact=True).count() == 0
    page.keyboard.press("Escape")
    page.locator("h1").first.click()
    page.keyboard.press("c")
    page.wait_for_timeout(500)
    assert page.get_by_test_id("stClearCacheDialog").count() == 0
    _sign_in(page, guarded, "ana", "not ana's password")
    page.screenshot(path=str(SCREENSHOTS / "signin-refused.png"), full_page=True)
    assert page.locator('[data-testid="stAlertContentError"]').inner_text().strip() == signin.REFUSED
    assert page.locator("h1:has-text('Overview')").count() == 0 and _navigation(page) == []
    page.close()


def test_an_analyst_sees_and_runs_the_console(guarded, browser, warehouse):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    _sign_in(page, guarded, "ana", PASSWORDS["ana"])
    page.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
    assert _navigation(page) == [title for _, title, _ in PAGES]
    page.locator(NAVIGATION).filter(has_text="SQL").click()
    page.wait_for_selector("h1:has-text('SQL')", timeout=60_000)
    _settled(page)
    page.screenshot(path=str(SCREENSHOTS / "sql-analyst.png"), full_page=True)
    assert page.locator(ERRORS).count() == 0
    con = duckdb.connect(str(warehouse.with_name("banco.serving.duckdb")), read_only=True)
    tables = con.execute("SELECT count(DISTINCT table_id) FROM core.rounds").fetchall()[0][0]
    con.close()
    assert page.locator('[data-testid="stCaptionContainer"]', has_text=f"{tables} rows").count() == 1
    assert page.locator('[data-testid="stDataFrame"]').count() == 1  # the first example ran: a row per table
    page.close()


def test_a_viewer_never_sees_the_console(guarded, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    _sign_in(page, guarded, "vic", PASSWORDS["vic"])
    page.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
    assert _navigation(page) == [title for name, title, _ in PAGES if name not in ANALYSTS_ONLY]
    _sign_in(page, f"{guarded}/sql", "vic", PASSWORDS["vic"])  # by its URL: a new session, signed in again
    page.wait_for_selector("h1", timeout=60_000)
    page.screenshot(path=str(SCREENSHOTS / "sql-viewer.png"), full_page=True)
    assert page.locator("h1:has-text('SQL')").count() == 0 and page.locator("textarea").count() == 0
    assert page.locator("h1:has-text('Overview')").count() == 1 and "SQL" not in _navigation(page)
    page.close()


def test_a_viewer_cannot_reach_the_alerts_page_by_its_address(guarded, browser):
    assert "alerts.py" in ANALYSTS_ONLY
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    _sign_in(page, f"{guarded}/alerts", "vic", PASSWORDS["vic"])
    page.wait_for_selector("h1", timeout=60_000)
    _settled(page)
    assert page.locator("h1:has-text('Alerts')").count() == 0 and "Alerts" not in _navigation(page)
    assert page.locator("h1:has-text('Overview')").count() == 1
    page.close()


def _clear_cache_from_the_menu(page) -> None:
    page.get_by_test_id("stMainMenu").click()
    page.get_by_text("Clear cache", exact=True).click()
    page.get_by_role("button", name="Clear caches").click()
    page.get_by_test_id("stClearCacheDialog").wait_for(state="detached", timeout=10_000)


def _clear_cache_over_the_socket(url: str) -> None:
    """Streamlit's clear_cache message, sent as any program can: no browser, no page, no sign-in. Returns
    once the server has handled it (it answers the heartbeat sent after it)."""
    with connect(f"ws{url.removeprefix('http')}/_stcore/stream", subprotocols=["streamlit"]) as stream:
        stream.send(BackMsg(clear_cache=True).SerializeToString())
        stream.send(BackMsg(app_heartbeat=True).SerializeToString())
        while ForwardMsg.FromString(stream.recv(timeout=30)).WhichOneof("type") != "heartbeat_ack":
            pass


def _cached(url: str) -> list[str]:
    """The st.cache_data functions holding entries, as the server's own metrics count them; but the
    look at who holds the newest snapshot, which empties itself within seconds (query.HELD_TTL_SECONDS)."""
    with urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=30) as answer:
        lines = answer.read().decode().splitlines()
    data = 'cache_memory_bytes{cache_type="st_cache_data"'
    cached = [line.rsplit(" ", 1)[0] for line in lines if line.startswith(data)]
    return [name for name in cached if 'cache="dashboards.query._passed_over"' not in name]


def test_only_an_analyst_clears_every_users_cache(clearable, browser):
    url, _ = clearable
    viewer = browser.new_page(viewport={"width": 1400, "height": 1000})
    _sign_in(viewer, url, "vic", PASSWORDS["vic"])
    viewer.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
    _settled(viewer)
    cached = _cached(url)
    assert cached, "the overview caches its queries"
    stranger = browser.new_page(viewport={"width": 1400, "height": 1000})
    stranger.goto(url)
    stranger.wait_for_selector("h1:has-text('Banco Analytics')", timeout=60_000)
    _settled(stranger)
    _clear_cache_from_the_menu(stranger)  # before signing in
    _clear_cache_over_the_socket(url)  # before signing in, and with no page at all
    _clear_cache_from_the_menu(viewer)
    time.sleep(METRICS_TTL + 0.5)
    assert _cached(url) == cached  # none of the three emptied anything
    analyst = browser.new_page(viewport={"width": 1400, "height": 1000})
    _sign_in(analyst, url, "ana", PASSWORDS["ana"])
    analyst.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
    _settled(analyst)
    _clear_cache_from_the_menu(analyst)
    time.sleep(METRICS_TTL + 0.5)
    assert _cached(url) == []  # the analyst's did: the metrics see a clear when there is one
    for page in (viewer, stranger, analyst):
        page.close()


@pytest.mark.slow
def test_failed_sign_ins_outlive_a_cleared_cache_and_new_sessions(clearable, browser):
    url, users_file = clearable
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        # three failures are free, then each waits twice as long as the last (1, 2, 4, 8 s), each try from a
        # new session (the page loaded anew): counted once its wait is over, the seventh holds the name 16 s
        for held in (0, 0, 0, 1, 2, 4, 8):
            time.sleep(held * 1.05)
            _sign_in(page, url, "ana", "guess after guess")
            assert page.locator('[data-testid="stAlertContentError"]').inner_text().strip() == signin.REFUSED
        _clear_cache_over_the_socket(url)  # before signing in: it used to empty the throttle with the caches
        fresh = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()  # its own cookies too
        _sign_in(fresh, url, "ana", PASSWORDS["ana"])
        said = fresh.locator('[data-testid="stAlertContentError"]').inner_text().strip()
        assert said.startswith("Too many failed sign-ins: try again in"), said
        assert fresh.locator("h1:has-text('Overview')").count() == 0 and _navigation(fresh) == []
        fresh.context.close()
    finally:
        page.close()
        with contextlib.closing(sqlite3.connect(throttle.beside(users_file))) as con, con:
            con.execute("DELETE FROM failures")  # the other tests on this server sign in as ana


@pytest.mark.slow
def test_a_providers_user_signs_in_with_st_login_and_gets_their_emails_role(provider, browser):
    """The whole st.login round trip (Authlib and httpx as pinned); an e-mail without a role is AppTest's."""
    url, idp = provider
    for email, role in (("ana@example.com", "analyst"), ("vic@example.com", "viewer")):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})  # its own cookies
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("h1:has-text('Banco Analytics')", timeout=60_000)
        _settled(page)
        assert _navigation(page) == [] and page.get_by_label("Password", exact=True).count() == 0
        idp.email = email
        page.get_by_role("button", name="Sign in").click()  # to the provider and back, signed in
        page.wait_for_selector("h1:has-text('Overview')", timeout=60_000)
        _settled(page)
        page.screenshot(path=str(SCREENSHOTS / f"provider-{role}.png"), full_page=True)
        assert page.locator('[data-testid="stSidebar"]', has_text=f"Signed in as {email} ({role})").count() == 1
        assert ("SQL" in _navigation(page)) is (role == "analyst") and page.locator(ERRORS).count() == 0
        context.close()
