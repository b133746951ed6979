"""Sign-in under AppTest on the small real warehouse: required once configured, a wrong name or password
refused in the same one line, failures slowed down, the pages each role is offered, the console's own
check, signing out, and a users file or an address that would leave the dashboard open."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
import streamlit as st
from streamlit import config
from streamlit.testing.v1 import AppTest

from dashboards import signin
from dashboards.pages import ANALYSTS_ONLY, PAGES, VIEWS, visible
from models.access import Role, throttle, users
from tests.models.access.test_signin_settings import AUTH, ROLES

APP = str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py")
PASSWORDS = {"ana": "ana's long password", "vic": "vic's long password"}


@pytest.fixture(scope="module")
def users_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("signin") / "users.toml"
    users.write(path, {
        "ana": users.User("ana", Role.ANALYST, users.hashed(PASSWORDS["ana"])),
        "vic": users.User("vic", Role.VIEWER, users.hashed(PASSWORDS["vic"])),
    })  # fmt: skip
    return path


def forget_failures(users_file: Path) -> None:
    """What the tests before counted against the names and this machine (AppTest has no client address)."""
    path = throttle.beside(users_file)
    if path.exists():
        with sqlite3.connect(path) as con:
            con.execute("DELETE FROM failures")
        con.close()


@pytest.fixture
def app(warehouse, users_file, monkeypatch) -> AppTest:
    forget_failures(users_file)
    monkeypatch.setenv("BANCO_DB", str(warehouse))
    monkeypatch.setenv(users.SETTING, str(users_file))
    return AppTest.from_file(APP, default_timeout=120)


def sign_in(at: AppTest, name: str, password: str) -> AppTest:
    fields = {field.label: field for field in at.text_input}
    fields["User name"].input(name)
    fields["Password"].input(password)
    next(button for button in at.button if button.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def signed_out(at: AppTest) -> bool:
    """The sign-in form and nothing of the warehouse: no page title, metric, table or filter."""
    labels = [field.label for field in at.text_input]
    return labels == ["User name", "Password"] and not at.metric and not at.dataframe and not at.sidebar.multiselect


def test_sign_in_is_required_once_a_users_file_is_configured(app):
    at = app.run()
    assert not at.exception and signed_out(at) and at.title[0].value == "Banco Analytics"
    with pytest.raises(ValueError, match="Could not find a navigation page"):  # no page by its path either
        at.switch_page("views/overview.py")


def test_a_wrong_password_or_name_is_refused_in_the_same_line(app):
    at = app.run()
    sign_in(at, "ana", "not ana's password")
    assert [e.value for e in at.error] == [signin.REFUSED] and signed_out(at)
    sign_in(at, "nobody", PASSWORDS["ana"])  # an unknown name reads the same: no hint which was wrong
    assert [e.value for e in at.error] == [signin.REFUSED] and signed_out(at)
    sign_in(at, "vic", PASSWORDS["ana"])  # another user's password
    assert [e.value for e in at.error] == [signin.REFUSED] and signed_out(at)


@pytest.mark.slow
def test_repeated_failures_wait_even_for_the_right_password(app, users_file):
    at = app.run()
    # three failures are free, then each waits twice as long as the last (1, 2, 4 s): counted only once
    # its wait is over, the sixth holds the name for 8 s, long enough for a loaded machine's next two runs
    for held in (0, 0, 0, 1, 2, 4):
        time.sleep(held * 1.05)
        sign_in(at, "ana", "guess after guess")
        assert at.error[0].value == signin.REFUSED
    sign_in(at, "ana", PASSWORDS["ana"])
    assert at.error[0].value.startswith("Too many failed sign-ins: try again in") and signed_out(at)
    st.cache_data.clear()  # what Streamlit's clear_cache message does: every user's caches emptied
    st.cache_resource.clear()
    fresh = AppTest.from_file(APP, default_timeout=120).run()  # a new session: the name is held up all the same
    sign_in(fresh, "ana", PASSWORDS["ana"])
    assert fresh.error[0].value.startswith("Too many failed sign-ins") and signed_out(fresh)
    forget_failures(users_file)  # the other tests sign in as ana


def test_an_analyst_sees_every_page_and_runs_the_console(app):
    at = sign_in(app.run(), "ana", PASSWORDS["ana"])
    assert at.title[0].value == "Overview" and at.metric and not at.error
    assert "Signed in as `ana` (analyst)" in [caption.value for caption in at.sidebar.caption]
    at.switch_page("views/sql.py").run()
    assert not at.exception and at.title[0].value == "SQL" and not at.error
    assert len(at.dataframe[0].value) > 0  # the first example ran


def test_a_viewer_is_never_offered_the_console(app):
    assert [name for name, _, _ in visible(Role.VIEWER)] == [name for name, _, _ in PAGES if name not in ANALYSTS_ONLY]
    assert visible(Role.ANALYST) == PAGES
    at = sign_in(app.run(), "vic", PASSWORDS["vic"])
    assert at.title[0].value == "Overview" and "Signed in as `vic` (viewer)" in [c.value for c in at.sidebar.caption]
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("views/sql.py")
    at.switch_page("views/integrity.py").run()  # every other page is there
    assert not at.exception and at.title[0].value == "Integrity"


@pytest.mark.parametrize(
    ("page", "title"),
    [
        ("players.py", "Players"),
        ("decisions.py", "Decisions"),
        ("surveillance.py", "Surveillance"),
        ("alerts.py", "Alerts"),
    ],
)
def test_a_viewer_cannot_open_a_page_that_names_players(app, page, title):
    assert page in ANALYSTS_ONLY
    at = sign_in(app.run(), "vic", PASSWORDS["vic"])
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page(f"views/{page}")
    at = sign_in(AppTest.from_file(APP, default_timeout=120).run(), "ana", PASSWORDS["ana"])
    at.switch_page(f"views/{page}").run()
    assert not at.exception and at.title[0].value == title and not at.warning and not at.error


@pytest.mark.parametrize("page", ["players.py", "decisions.py", "surveillance.py", "count_room.py", "alerts.py"])
@pytest.mark.parametrize("name", ["vic", None])
def test_a_page_that_names_players_itself_refuses_anyone_but_an_analyst(app, users_file, name, page):
    at = AppTest.from_file(str(VIEWS / page), default_timeout=120)  # run directly, past the navigation
    if name:
        at.session_state[signin.USER] = name
        at.session_state[signin.HASH] = users.read(users_file)[name].password
    at.run()
    assert not at.exception and [e.value for e in at.error] == [signin.ANALYSTS_ONLY]
    assert not at.title and not at.dataframe and not at.text_input


@pytest.mark.parametrize(("name", "shown"), [("vic", False), ("ana", True), (None, False)])
def test_the_console_page_itself_refuses_anyone_but_an_analyst(app, users_file, name, shown):
    at = AppTest.from_file(str(VIEWS / "sql.py"), default_timeout=120)  # run directly, past the navigation
    if name:
        at.session_state[signin.USER] = name
        at.session_state[signin.HASH] = users.read(users_file)[name].password
    at.run()
    assert not at.exception
    assert bool(at.text_area) is shown and bool(at.dataframe) is shown
    assert [e.value for e in at.error] == ([] if shown else [signin.ANALYSTS_ONLY])


def test_signing_out_or_being_removed_ends_the_session(app, users_file, tmp_path, monkeypatch):
    at = sign_in(app.run(), "ana", PASSWORDS["ana"])
    next(button for button in at.sidebar.button if button.label == "Sign out").click().run()
    assert signed_out(at)
    own = tmp_path / "users.toml"
    users.write(own, users.read(users_file))
    monkeypatch.setenv(users.SETTING, str(own))
    sign_in(at, "vic", PASSWORDS["vic"])
    assert at.title[0].value == "Overview"
    users.write(own, {"ana": users.read(own)["ana"]})  # vic removed while signed in
    at.run()
    assert signed_out(at)


@pytest.mark.parametrize(
    ("text", "says"), [(None, "no users file at"), ("", "holds no user"), ("[users.x]\nrole = 1\n", "needs a valid")]
)
def test_a_users_file_that_cannot_be_used_shows_no_page(warehouse, tmp_path, monkeypatch, text, says):
    path = tmp_path / "users.toml"
    if text is not None:
        path.write_text(text)
    monkeypatch.setenv("BANCO_DB", str(warehouse))
    monkeypatch.setenv(users.SETTING, str(path))
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception and not at.title and not at.metric and not at.text_input
    assert at.error[0].value.startswith("The dashboard cannot start:") and says in at.error[0].value


def test_listening_beyond_this_machine_without_sign_in_shows_no_page(warehouse, monkeypatch):
    monkeypatch.setenv("BANCO_DB", str(warehouse))
    monkeypatch.delenv(users.SETTING, raising=False)
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")  # as a bare `streamlit run --server.address 0.0.0.0`
    try:
        at = AppTest.from_file(APP, default_timeout=120).run()
    finally:
        config.set_option("server.address", before)
    assert not at.exception and not at.title and not at.metric
    assert "configure sign-in first" in at.error[0].value


@pytest.fixture
def provider(warehouse, monkeypatch):
    """The app with an identity provider configured (st.login) and no users file."""
    monkeypatch.setenv("BANCO_DB", str(warehouse))
    monkeypatch.delenv(users.SETTING, raising=False)

    def started(**user) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=120)
        at.secrets = {"auth": AUTH, **ROLES}
        at.user = {"is_logged_in": bool(user), **user}
        return at.run()

    return started


def test_a_providers_sign_in_button_and_no_page_before_it(provider):
    at = provider()
    assert not at.exception and [b.label for b in at.button] == ["Sign in"] and not at.text_input
    assert not at.metric and not at.sidebar.multiselect


def test_a_providers_user_gets_the_role_their_email_has(provider):
    at = provider(email="Vic@example.com", email_verified=True)
    assert not at.exception and at.title[0].value == "Overview"
    assert "Signed in as `Vic@example.com` (viewer)" in [c.value for c in at.sidebar.caption]
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("views/sql.py")
    at = provider(email="ana@example.com")
    at.switch_page("views/sql.py").run()
    assert not at.exception and at.title[0].value == "SQL"


@pytest.mark.parametrize(
    "claims", [{"email": "eve@example.com"}, {"email": "vic@example.com", "email_verified": False}]
)
def test_a_providers_user_without_a_role_sees_no_page(provider, claims):
    at = provider(**claims)
    assert not at.exception and not at.metric and not at.sidebar.multiselect
    assert "has no role on this dashboard" in at.warning[0].value
    assert [b.label for b in at.button] == ["Sign out"]
