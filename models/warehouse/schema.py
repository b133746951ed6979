"""The warehouse's tables: the one place that knows their names and columns (docs/warehouse.md)."""

from __future__ import annotations

SCHEMAS = ("core", "quarantine", "meta", "marts")

CORE_ROUNDS = "core.rounds"
CORE_BETS = "core.bets"
CORE_SHOES = "core.shoes"
QUARANTINE_ROUNDS = "quarantine.rounds"
QUARANTINE_BETS = "quarantine.bets"
INGEST_LOG = "meta.ingest_log"
#: The count room's input (models/contract.py EVENT_SCHEMA) and its rejected rows.
CORE_TABLE_EVENTS = "core.table_events"
QUARANTINE_TABLE_EVENTS = "quarantine.table_events"

#: quarantine.rounds and quarantine.bets share their columns.
QUARANTINE_COLUMNS = """
    raw VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    detail VARCHAR,
    table_id VARCHAR,
    shoe_id VARCHAR,
    round_no INTEGER,
    source_file VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL
"""
CORE_ROUNDS_COLUMNS = """
    table_id VARCHAR NOT NULL,
    shoe_id VARCHAR NOT NULL,
    round_no INTEGER NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    player_cards VARCHAR,
    banker_cards VARCHAR,
    player2_cards VARCHAR,
    game VARCHAR NOT NULL,
    decks TINYINT NOT NULL,
    dealer_id VARCHAR,
    bank_holder VARCHAR,
    logged_outcome VARCHAR,
    outcome VARCHAR NOT NULL,
    outcome2 VARCHAR,
    player_total TINYINT,
    banker_total TINYINT,
    player2_total TINYINT,
    player_third TINYINT,
    banker_third TINYINT,
    "natural" BOOLEAN,  -- a reserved word in SQL: quote it in queries
    player_pair BOOLEAN,
    banker_pair BOOLEAN,
    has_cards BOOLEAN NOT NULL,
    cards_used TINYINT NOT NULL,
    source_file VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL
"""
CORE_BETS_COLUMNS = """
    table_id VARCHAR NOT NULL,
    shoe_id VARCHAR NOT NULL,
    round_no INTEGER NOT NULL,
    seat VARCHAR NOT NULL,
    bet VARCHAR NOT NULL,
    amount DECIMAL(18, 4) NOT NULL,
    player_id VARCHAR,
    payout DECIMAL(18, 4),
    side TINYINT,
    game VARCHAR NOT NULL,
    house_net DECIMAL(18, 4),
    commission DECIMAL(18, 4),
    theo DECIMAL(18, 6) NOT NULL,
    source_file VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL
"""
CORE_SHOES_COLUMNS = """
    table_id VARCHAR NOT NULL,
    shoe_id VARCHAR NOT NULL,
    game VARCHAR NOT NULL,
    decks TINYINT NOT NULL,
    rounds INTEGER NOT NULL,
    first_started_at TIMESTAMPTZ,
    last_started_at TIMESTAMPTZ,
    cards_seen INTEGER NOT NULL,
    reconciled_by VARCHAR NOT NULL,
    overdrawn_rows INTEGER NOT NULL,
    reconciliation VARCHAR NOT NULL
"""
INGEST_LOG_COLUMNS = """
    path VARCHAR NOT NULL,
    sha256 VARCHAR NOT NULL,
    kind VARCHAR,
    rows_read BIGINT NOT NULL,
    rows_accepted BIGINT NOT NULL,
    rows_quarantined BIGINT NOT NULL,
    rows_duplicate BIGINT NOT NULL,
    status VARCHAR NOT NULL,
    error VARCHAR,
    started_at TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL
"""
#: core.table_events: the contract's columns (models/contract.py EVENT_SCHEMA) as checked, `event` in
#: lower case and `denominations` with its tokens single-spaced.
CORE_TABLE_EVENTS_COLUMNS = """
    table_id VARCHAR NOT NULL,
    shift_id VARCHAR NOT NULL,
    event_id VARCHAR NOT NULL,
    event VARCHAR NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL,
    amount DECIMAL(18, 2) NOT NULL,
    denominations VARCHAR,
    player_id VARCHAR,
    employee_id VARCHAR,
    source_file VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL
"""
#: quarantine.table_events: as the other quarantine tables, with the event's key in place of the coup's.
QUARANTINE_TABLE_EVENTS_COLUMNS = """
    raw VARCHAR NOT NULL,
    reason VARCHAR NOT NULL,
    detail VARCHAR,
    table_id VARCHAR,
    shift_id VARCHAR,
    event_id VARCHAR,
    source_file VARCHAR NOT NULL,
    line_no BIGINT NOT NULL,
    ingested_at TIMESTAMPTZ NOT NULL
"""
#: The Iceberg tables (iceberg.py), with their columns; the warehouse's DuckDB file reads each
#: through a view of the same name. The log comes last: its commit is the warehouse's.
TABLES = {
    CORE_ROUNDS: CORE_ROUNDS_COLUMNS,
    CORE_BETS: CORE_BETS_COLUMNS,
    CORE_SHOES: CORE_SHOES_COLUMNS,
    QUARANTINE_ROUNDS: QUARANTINE_COLUMNS,
    QUARANTINE_BETS: QUARANTINE_COLUMNS,
    CORE_TABLE_EVENTS: CORE_TABLE_EVENTS_COLUMNS,
    QUARANTINE_TABLE_EVENTS: QUARANTINE_TABLE_EVENTS_COLUMNS,
    INGEST_LOG: INGEST_LOG_COLUMNS,
}
#: The DuckDB file's own table: the Iceberg snapshot each view reads (the warehouse's commit).
SNAPSHOTS = "meta.snapshots"
#: The build's ledger (models/metrics/ledger.py): the data files the marts were last built from, each
#: shoe's row of core.shoes then, and each gaming day's settings and pay table then.
BUILT_FILES = "meta.built_files"
BUILT_SHOES = "meta.built_shoes"
BUILT_DAYS = "meta.built_days"
#: The commit of the warehouse the marts were last stored from, and the settings they were reckoned by
#: (a report's manifest names them: models/reports/manifest.py).
BUILT_FROM = "meta.built_from"
#: The table-days the last build of each gaming day held back from the marts (their rows failed the
#: computation, e.g. a sum past its column's decimal), and why: models/metrics/staleness.py.
HELD_BACK = "meta.held_back"
#: What the alert rules sent, when, to whom, through which channel, and how it went (models/alerts/record.py):
#: one row per fact and delivery, kept in the writer's file across rebuilds.
ALERTS = "meta.alerts"

MARTS_BANKER_STREAKS = "marts.banker_streaks"
MARTS_DECISION_RUNS = "marts.decision_runs"
MARTS_TENURE_FIT = "marts.tenure_fit"
MARTS_COMMISSION = "marts.commission"
MARTS_COMMISSION_BY_DEALER = "marts.commission_by_dealer"
MARTS_COMMISSION_PER_UNIT = "marts.commission_per_unit"
MARTS_TIE_FREQUENCY = "marts.tie_frequency"
MARTS_TIE_FREQUENCY_BY_SHOE = "marts.tie_frequency_by_shoe"
MARTS_TIE_FREQUENCY_BY_DEALER = "marts.tie_frequency_by_dealer"
MARTS_TIES_BY_TOTAL = "marts.ties_by_total"
MARTS_TABLE_DAY = "marts.table_day"
MARTS_DEALER_DAY = "marts.dealer_day"
MARTS_SHOE_SUMMARY = "marts.shoe_summary"
MARTS_PLAYER_SESSIONS = "marts.player_sessions"
MARTS_PLAYER_DAY = "marts.player_day"
MARTS_PLAYER_BETS = "marts.player_bets"
#: All time, not by gaming day: recomputed from marts.player_sessions whenever that is stored.
MARTS_PLAYERS = "marts.players"
MARTS_SIDE_BETS = "marts.side_bets"
MARTS_DEALER_PACE = "marts.dealer_pace"
#: Surveillance (docs/surveillance.md): every bet's exact house edge before each coup whose cards are
#: known, each rating's evidence, each player's day, and the flags.
MARTS_COUP_EDGES = "marts.coup_edges"
MARTS_SURVEILLANCE_SESSIONS = "marts.surveillance_sessions"
MARTS_SURVEILLANCE_PLAYER_DAY = "marts.surveillance_player_day"
MARTS_SURVEILLANCE_FLAGS = "marts.surveillance_flags"
#: Every discretionary decision of Chemin de Fer and Baccarat Banque rated exactly (docs/metrics.md), and
#: the sums by punter and by bank tenure.
MARTS_DECISIONS = "marts.decisions"
MARTS_DECISION_SUMMARY = "marts.decision_summary"
#: All time, not by gaming day: each player's style of play on the free decisions, taken again from
#: marts.decisions whenever that is stored.
MARTS_DECISION_STYLES = "marts.decision_styles"
#: A view, not a table: every wager of core.bets with its player_edge at that coup (marts.coup_edges).
MARTS_WAGER_EDGES = "marts.wager_edges"
#: The count room (docs/metrics.md): each table-shift's count beside its wagers, each table's gaming
#: day, and the regulators' statistical report (daily, month- and year-to-date, with their flags).
MARTS_TABLE_SHIFT = "marts.table_shift"
MARTS_COUNT_ROOM = "marts.count_room"
MARTS_STATISTICAL_REPORT = "marts.statistical_report"
#: Every mart a build stores (the tables and the one view).
MARTS = tuple(value for name, value in dict(globals()).items() if name.startswith("MARTS_"))
