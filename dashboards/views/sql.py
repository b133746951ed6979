"""SQL: a read-only console over the serving snapshot, with example queries and CSV download."""

from __future__ import annotations

import streamlit as st

from dashboards import fmt, query
from dashboards.queries import sql
from dashboards.signin import analysts_only
from models.warehouse.reader import QueryError

analysts_only()  # the navigation offers this page to analysts alone; this is the page's own check

SHOWN_ROWS = 10_000
MAX_ROWS = 200_000  # fetched, for the CSV download


def render() -> None:
    st.title("SQL")
    st.caption(
        "Read-only queries on the serving snapshot (DuckDB SQL), each stopped at its time limit. The sidebar's "
        "filters do not apply here: write them into the query. See docs/warehouse.md for every table, and for "
        "what the console allows."
    )
    example = st.selectbox("Example", list(sql.EXAMPLES), key="sql_example")
    text = st.text_area("Query", sql.EXAMPLES[example], height=180, key=f"sql_text_{example}")
    if not text.strip():
        st.info("Write a query, or pick an example.")
        return
    try:
        result = query.console(text, MAX_ROWS + 1)
    except QueryError as error:  # refused, failed or stopped: one line saying why
        st.error(str(error))
        return
    if result.height > MAX_ROWS:
        result = result.head(MAX_ROWS)
        st.warning(f"Only the first {MAX_ROWS:,} rows are fetched here: for all of them, `banco sql --format csv`.")
    st.caption(
        f"{result.height:,} rows" + (f"; showing the first {SHOWN_ROWS:,}" if result.height > SHOWN_ROWS else "")
    )
    fmt.table(result.head(SHOWN_ROWS), hide_index=True)
    st.download_button("Download CSV", result.write_csv(), file_name="banco-query.csv", mime="text/csv", key="sql_csv")


render()
