"""Streamlit's "Clear cache" for signed-in analysts only.

Any browser may send the clear_cache message over the websocket, menu item or not, and Streamlit empties
every user's st.cache_data and st.cache_resource at once. No setting refuses it, so `guard()` wraps the
server's handler of browser messages (AppSession.handle_backmsg, Streamlit 1.67) and drops the message
from a session that is not an analyst's; the menu item itself is hidden by `client.toolbarMode = "viewer"`.
"""

from __future__ import annotations

import functools
import logging

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.runtime.app_session import AppSession

from dashboards import signin
from models.access import AccessError, Role

_LOGGER = logging.getLogger(__name__)


def allowed(session: AppSession) -> bool:
    """Whether the session that sent clear_cache is a signed-in analyst's (its state and st.user's claims
    are read as the script reads them; anything unreadable refuses)."""
    try:
        # the server's own copies of what a run sees as st.session_state and st.user
        state = {key: session.session_state[key] for key in (signin.USER, signin.HASH) if key in session.session_state}
        who = signin.signed_in(signin.configured(), state, dict(session._user_info))
    except (AccessError, AttributeError, KeyError, RuntimeError):
        return False
    return who is not None and who.role is Role.ANALYST


def guard() -> None:
    """Wrap AppSession.handle_backmsg once per process (a module reloaded by Streamlit wraps the original again)."""
    original = getattr(AppSession.handle_backmsg, "__wrapped__", AppSession.handle_backmsg)

    @functools.wraps(original)
    def handle_backmsg(session: AppSession, msg: BackMsg) -> None:
        if msg.WhichOneof("type") == "clear_cache" and not allowed(session):
            _LOGGER.warning("Clear cache refused: session %s is not a signed-in analyst's", session.id)
            return
        original(session, msg)

    AppSession.handle_backmsg = handle_backmsg
