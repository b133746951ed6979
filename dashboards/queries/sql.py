"""The SQL console's example queries (the console runs the analyst's own text through query.console)."""

from __future__ import annotations

from models.warehouse import schema

EXAMPLES = {
    "Tie rate per table": "SELECT table_id, game, decks, count(*) AS coups, count(*) FILTER (WHERE outcome = 'T') "
    f"AS ties, round(ties / coups, 4) AS tie_rate\nFROM {schema.CORE_ROUNDS}\nGROUP BY ALL\nORDER BY table_id",
    "Hold against theo per table": "SELECT table_id, game, sum(handle) AS handle, sum(house_win) AS house_win,\n"
    "       round(sum(theo), 2) AS theo, round(sum(house_win) / sum(handle), 5) AS win_over_handle\n"
    f"FROM {schema.MARTS_TABLE_DAY}\nGROUP BY ALL\nORDER BY table_id",
    "Commission per gaming day": "SELECT gaming_day, sum(commission) AS commission, sum(cagnotte) AS cagnotte\n"
    f"FROM {schema.MARTS_COMMISSION}\nGROUP BY gaming_day\nORDER BY gaming_day",
    "Flagged tie groups": f"SELECT * FROM {schema.MARTS_TIE_FREQUENCY} WHERE flagged ORDER BY p_value",
    "Longest bank tenures": "SELECT table_id, shoe_id, game, holder, decided, coups, ended_by\n"
    f"FROM {schema.MARTS_BANKER_STREAKS}\nORDER BY decided DESC\nLIMIT 20",
    "Quarantine by reason": "SELECT 'rounds' AS kind, reason, count(*) AS rows, any_value(detail) AS example\n"
    f"FROM {schema.QUARANTINE_ROUNDS} GROUP BY ALL\nUNION ALL\nSELECT 'bets', reason, count(*), any_value(detail)\n"
    f"FROM {schema.QUARANTINE_BETS} GROUP BY ALL\nORDER BY kind, rows DESC",
    "The ingest log": "SELECT path, kind, status, rows_read, rows_accepted, rows_quarantined, rows_duplicate, error\n"
    f"FROM {schema.INGEST_LOG}\nORDER BY started_at DESC\nLIMIT 20",
    "Tables and columns": "SELECT table_schema, table_name, column_name, data_type\n"
    "FROM information_schema.columns\nORDER BY ALL",
}
