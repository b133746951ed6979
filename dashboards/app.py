"""The analysts' dashboard over the serving snapshot: `banco dashboard` (or `streamlit run dashboards/app.py`).

The entry point draws the shared filters and runs the chosen page; a warehouse that cannot answer
yet, or filters that match nothing, become a message with the command to run, never a traceback.
"""

from __future__ import annotations

import streamlit as st

from dashboards import filters, query
from dashboards.pages import PAGES, VIEWS


def main() -> None:
    st.set_page_config(page_title="Banco Analytics", page_icon=":material/casino:", layout="wide")
    page = st.navigation([st.Page(VIEWS / name, title=title, icon=icon) for name, title, icon in PAGES])
    try:
        st.session_state["filters"] = filters.sidebar()
    except query.Unavailable as error:  # the page decides whether it can do without the warehouse
        st.session_state["filters"] = error
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
