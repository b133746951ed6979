"""Where figures go on a page, so that each shows whole at any window width."""

from __future__ import annotations

import streamlit as st
from streamlit.delta_generator import DeltaGenerator


def metric_row(slots: int) -> tuple[DeltaGenerator, ...]:
    """A row for `slots` metrics, drawn in the order named (`a, b, c = metric_row(3)`, then `a.metric(...)`,
    `b.metric(...)`): unlike st.columns, a figure too wide for its share of a narrow window moves to the next
    line instead of being cut to "19,919,22…". Each slot is the row itself, so the metrics must be drawn in
    the order of their slots."""
    row = st.container(horizontal=True, gap="medium")  # wraps; each metric stretches to share the line
    return (row,) * slots
