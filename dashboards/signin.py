"""Sign-in: a site's identity provider through Streamlit's st.login (`[auth]` in .streamlit/secrets.toml),
the users file of argon2 hashes (BANCO_USERS_FILE), or both. The signed-in user's role decides the pages
they see; with neither configured, everyone is an analyst, and the dashboard answers on this machine only.
"""

from __future__ import annotations

import hmac
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import streamlit as st

from dashboards import fmt
from models.access import AccessError, Role, settings, throttle, users
from models.access.throttle import Throttle, Throttled

#: st.session_state keys: who signed in with a password, the hash they signed in against.
USER, HASH = "signin_user", "signin_hash"
REFUSED = "Wrong user name or password."
ANALYSTS_ONLY = "This page is for analysts: sign in as one to see it."


@dataclass(frozen=True)
class Identity:
    """Who is using this session. `role` is None for a provider's user whose e-mail has no role."""

    name: str
    role: Role | None
    how: Literal["open", "password", "provider"]


def _secrets() -> dict:
    try:
        return st.secrets.to_dict()
    except FileNotFoundError:  # no secrets.toml, or one Streamlit cannot parse
        if any(Path(path).is_file() for path in st.get_option("secrets.files")):
            raise AccessError("a secrets.toml cannot be read: fix it (see the server's log)") from None
        return {}


def configured() -> settings.Signin:
    """The sign-in configured, checked as `banco dashboard` checks it; an AccessError when it cannot be
    used or the server listens beyond this machine without it."""
    signin = settings.configured(os.environ, _secrets())
    # unset under AppTest and a bare `streamlit run` (which listens everywhere: `banco dashboard` never leaves it unset)
    signin.check_exposure(st.get_option("server.address") or "127.0.0.1")
    return signin


def identity(signin: settings.Signin) -> Identity | None:
    """This session's user, or None until someone signs in."""
    who = signed_in(signin, st.session_state, st.user.to_dict() if signin.oidc else {})
    if who is None and signin.users_file and USER in st.session_state:
        sign_out()  # a user removed from the file, or whose password changed, is signed out of every session
    return who


def signed_in(signin: settings.Signin, state: Mapping[str, Any], claims: Mapping[str, Any]) -> Identity | None:
    """Who a session's state (st.session_state) and its provider's claims (st.user) say is signed in, or None."""
    if not signin.required:
        return Identity("", Role.ANALYST, "open")
    if signin.oidc and claims.get("is_logged_in", False):
        return Identity(str(claims.get("email", "")), signin.oidc.role_of(claims), "provider")
    if signin.users_file and USER in state:
        user = users.read(signin.users_file).get(state[USER])
        if user and hmac.compare_digest(user.password, state.get(HASH, "")):
            return Identity(user.name, user.role, "password")
    return None


def allowed(role: Role) -> bool:
    """Whether this session's user may see a page for `role` (an analyst sees a viewer's pages too)."""
    try:
        who = identity(configured())
    except AccessError:
        return False
    return who is not None and who.role is not None and (who.role is Role.ANALYST or role is Role.VIEWER)


def require(role: Role) -> None:
    """Stop the page here unless this session's user has `role`: the page's own check, beside the
    navigation that never offers it to anyone else."""
    if not allowed(role):
        st.error(ANALYSTS_ONLY if role is Role.ANALYST else "Sign in to see this page.")
        st.stop()


def analysts_only() -> None:
    """The first line of the SQL console: it reads anything in the snapshot."""
    require(Role.ANALYST)


def sign_out() -> None:
    for key in (USER, HASH):
        st.session_state.pop(key, None)


def page() -> None:
    """The sign-in page: a button for each identity provider, the password form, or both."""
    st.title("Banco Analytics")
    signin = configured()
    if signin.oidc:
        if st.user.get("is_logged_in", False):  # signed in with the provider, but identity() found no role
            account = fmt.plain(st.user.get("email") or "This account")
            st.warning(f"{account} has no role on this dashboard: ask for one.")
            st.button("Sign out", on_click=st.logout, key="signin_provider_out")
        else:
            for provider in signin.oidc.providers:
                st.button(
                    "Sign in" if provider is None else f"Sign in with {provider}",
                    on_click=st.login,
                    args=() if provider is None else (provider,),
                    key=f"signin_provider_{provider or 'default'}",
                    type="primary",
                )
    if signin.users_file:
        _password_form(signin.users_file)


def _password_form(path: Path) -> None:
    with st.form("signin", clear_on_submit=True):  # the password does not stay in the session's state
        name = st.text_input("User name", max_chars=users.LONGEST_NAME, autocomplete="username")
        password = st.text_input("Password", type="password", max_chars=1024, autocomplete="current-password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if not submitted:
        return
    name = name.strip()[: users.LONGEST_NAME]  # the browser's limit is not the server's
    try:
        user = Throttle(throttle.beside(path)).authenticate(users.read(path), name, password, client())
    except Throttled as held:
        st.error(f"Too many failed sign-ins: try again in {math.ceil(held.wait)} s.")
        return
    if user is None:
        st.error(REFUSED)  # the same words whichever of the two was wrong
        return
    st.session_state[USER], st.session_state[HASH] = user.name, user.password
    st.rerun()


def client() -> str:
    """The address this session's connection comes from, as Streamlit's server sees it: the browser's,
    or the one a reverse proxy on this machine names in X-Forwarded-For (uvicorn trusts that header from
    127.0.0.1 and ::1 only, so a client elsewhere cannot choose its own). "local" for this machine."""
    return st.context.ip_address or "local"


def sidebar(who: Identity) -> None:
    """Who is signed in, and the button that signs them out."""
    if who.how == "open":
        return
    bar = st.sidebar
    bar.divider()
    bar.caption(f"Signed in as `{who.name}` ({who.role})")
    bar.button("Sign out", on_click=st.logout if who.how == "provider" else sign_out, key="signout")
