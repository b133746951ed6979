"""The analysts' dashboard over the serving snapshot: `banco dashboard` (or `streamlit run dashboards/app.py`).

The entry point signs the user in when sign-in is configured, offers the pages their role may see, draws
the shared filters and runs the chosen page; a warehouse that cannot answer yet, or filters that match
nothing, become a message with the command to run, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from dashboards import banner, clear_cache, filters, query, signin
from dashboards.pages import PAGES, VIEWS, visible
from models.access import AccessError

#: The tab's icon, shipped with the app: a `:material/...:` icon is fetched from a font service on the
#: internet, which a casino's closed network refuses.
FAVICON = Path(__file__).with_name("favicon.png")


def main() -> None:
    st.set_page_config(page_title="Banco Analytics", page_icon=str(FAVICON), layout="wide")
    clear_cache.guard()  # before anyone signs in: a clear_cache message would empty every user's cache
    try:
        who = signin.identity(signin.configured())
    except AccessError as error:  # sign-in configured but unusable: no page at all, rather than an open one
        st.error(f"The dashboard cannot start: {error}", icon=":material/lock:")
        return
    if who is None or who.role is None:  # every page's address shows the sign-in, so a bookmark leads back
        form = st.navigation([st.Page(signin.page, title="Sign in", url_path=Path(name).stem, default=not index)
                              for index, (name, _, _) in enumerate(PAGES)], position="hidden")  # fmt: skip
        try:
            form.run()
        except AccessError as error:  # the users file broke while the form was open
            st.error(f"The dashboard cannot start: {error}", icon=":material/lock:")
        return
    # a page outside the role's list does not exist for its session, not even by its URL
    pages = [st.Page(VIEWS / name, title=title, icon=icon) for name, title, icon in visible(who.role)]
    page = st.navigation(pages, expanded=True)  # every page listed: collapsed, a "View more" hides the last ones
    try:
        st.session_state["filters"] = filters.sidebar()
    except query.Unavailable as error:  # the page decides whether it can do without the warehouse
        st.session_state["filters"] = error
    signin.sidebar(who)
    banner.stale()
    try:
        page.run()
    except query.Unavailable as error:
        st.warning(str(error), icon=":material/warning:")
        st.caption("Run this, then reload the page:")
        st.code(error.command, language="sh")
    except filters.NoBets:
        st.info(
            "No bets are logged in this warehouse: handle, hold, theo and commission come from bet logs "
            "(ingest them beside the rounds). The other pages read the rounds alone."
        )
    except filters.Empty:
        st.info("Nothing matches the filters: widen the gaming days or clear a table, game or dealer.")


main()
