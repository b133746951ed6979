"""The warnings above every page while what it shows lags the warehouse: the previous serving snapshot
read because another process holds the newest open read-write (models/warehouse/serving.py), and in
the words of models/metrics/staleness.py, a build that failed and table-days held back from the marts."""

from __future__ import annotations

import streamlit as st

from dashboards import fmt, query
from models.metrics import staleness


def stale() -> None:
    """Warn of a passed-over snapshot, a failed build and held-back table-days, when there are any."""
    passed_over = query.passed_over()
    if passed_over is not None:
        words = f"{passed_over[:1].upper()}{passed_over[1:]}."
        st.warning(fmt.plain(words), icon=":material/lock:")
    try:
        held = query.frame(staleness.HELD_BACK).rows()
    except query.Unavailable:  # no snapshot yet (the page says so), or one built before builds noted any
        held = []
    words = staleness.warning(staleness.failure(query.warehouse()), held)
    if words is not None:  # an error's words can hold Markdown's marks: shown as they are
        st.warning(fmt.plain(words), icon=":material/warning:")
