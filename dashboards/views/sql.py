"""SQL: a read-only console over the serving snapshot, with example queries and CSV download."""

from __future__ import annotations

import streamlit as st

from dashboards import fmt, query
from dashboards.signin import analysts_only
from models.warehouse.reader import QueryError

analysts_only()  # the navigation offers this page to analysts alone; this is the page's own check

EXAMPLES = {
    "Tie rate per table": "SELECT table_id, game, decks, count(*) AS coups, count(*) FILTER (WHERE outcome = 'T') "
    "AS ties, round(ties / coups, 4) AS tie_rate\nFROM core.rounds\nGROUP BY ALL\nORDER BY table_id",
    "Hold against theo per table": "SELECT table_id, game, sum(handle) AS handle, sum(house_win) AS house_win,\n"
    "       round(sum(theo), 2) AS theo, round(100 * sum(house_win) / sum(handle), 3) AS hold_pct\n"
    "FROM marts.table_day\nGROUP BY ALL\nORDER BY table_id",
    "Commission per gaming day": "SELECT gaming_day, sum(commission) AS commission, sum(cagnotte) AS cagnotte\n"
    "FROM marts.commission\nGROUP BY gaming_day\nORDER BY gaming_day",
    "Flagged tie groups": "SELECT * FROM marts.tie_frequency WHERE flagged ORDER BY p_value",
    "Longest bank tenures": "SELECT table_id, shoe_id, game, holder, decided, coups, ended_by\n"
    "FROM marts.banker_streaks\nORDER BY decided DESC\nLIMIT 20",
    "Quarantine by reason": "SELECT 'rounds' AS kind, reason, count(*) AS rows, any_value(detail) AS example\n"
    "FROM quarantine.rounds GROUP BY ALL\nUNION ALL\nSELECT 'bets', reason, count(*), any_value(detail)\n"
    "FROM quarantine.bets GROUP BY ALL\nORDER BY kind, rows DESC",
    "The ingest log": "SELECT path, kind, status, rows_read, rows_accepted, rows_quarantined, rows_duplicate, error\n"
    "FROM meta.ingest_log\nORDER BY started_at DESC\nLIMIT 20",
    "Tables and columns": "SELECT table_schema, table_name, column_name, data_type\n"
    "FROM information_schema.columns\nORDER BY ALL",
}
SHOWN_ROWS = 10_000
MAX_ROWS = 200_000  # fetched, for the CSV download


def render() -> None:
    st.title("SQL")
    st.caption(
        "Read-only queries on the serving snapshot (DuckDB SQL), each stopped at its time limit. "
        "See docs/warehouse.md for every table, and for what the console allows."
    )
    example = st.selectbox("Example", list(EXAMPLES), key="sql_example")
    text = st.text_area("Query", EXAMPLES[example], height=180, key=f"sql_text_{example}")
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
