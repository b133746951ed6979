"""The round-log contract (docs/round-log-format.md): column names and types of rounds and bets, in one place."""

from __future__ import annotations

import datetime as dt

import polars as pl

from models.money_units import CENTS, MONEY

#: Rounds as the simulator writes them and the warehouse reads them (times as UTC instants).
ROUND_SCHEMA = {
    "table_id": pl.String,
    "shoe_id": pl.String,
    "round_no": pl.Int32,
    "started_at": pl.Datetime("us", "UTC"),
    "player_cards": pl.String,
    "banker_cards": pl.String,
    "game": pl.String,
    "decks": pl.Int8,
    "dealer_id": pl.String,
    "bank_holder": pl.String,
    "player2_cards": pl.String,
    "outcome": pl.String,
}
#: Bets; `side` (1 or 2) names the hand of a baccarat_banque wager, null elsewhere.
BET_SCHEMA = {
    "table_id": pl.String,
    "shoe_id": pl.String,
    "round_no": pl.Int32,
    "seat": pl.String,
    "bet": pl.String,
    "amount": CENTS,
    "player_id": pl.String,
    "payout": MONEY,
    "side": pl.Int8,
}
NATURAL_KEY = ("table_id", "shoe_id", "round_no")
#: The largest round number the warehouse holds (an INTEGER column).
ROUND_NO_MAX = 2**31 - 1
#: The columns a round log may carry (docs/round-log-format.md); the rest of a file's columns are ignored.
ROUND_INPUT_COLUMNS = tuple(ROUND_SCHEMA)
BET_INPUT_COLUMNS = tuple(BET_SCHEMA)

#: Table events, the count room's input (docs/round-log-format.md): one row per slip or count at a
#: table. A shift is (table_id, shift_id): its coups are the table's from its opener to its closer.
EVENT_SCHEMA = {
    "table_id": pl.String,
    "shift_id": pl.String,
    "event_id": pl.String,  # the slip's or count's number, unique within the table
    "event": pl.String,  # one of EVENT_KINDS
    "recorded_at": pl.Datetime("us", "UTC"),
    "amount": CENTS,
    "denominations": pl.String,  # optional chip breakdown, `DENOMxCOUNT` tokens: "1000x5 100x20 25x40"
    "player_id": pl.String,  # a marker's or a marker payment's player
    "employee_id": pl.String,  # who signed the slip or counted
}
#: opener, closer: the tray's chip inventory at the shift's start and end; fill, credit: chips
#: brought to or taken from the tray; drop: the drop box's count (cash and chips-in) for the shift;
#: marker: credit issued at the table; marker_payment: a marker repaid at the table.
EVENT_KINDS = ("opener", "closer", "fill", "credit", "drop", "marker", "marker_payment")
EVENT_KEY = ("table_id", "event_id")
EVENT_INPUT_COLUMNS = tuple(EVENT_SCHEMA)

#: The contract's bounds (docs/round-log-format.md#bounds), each a row's own: a row past one is
#: quarantined, so whatever is accepted, the warehouse's and the marts' decimals hold.
#: Digits before the point: a wager's amount is below 10^10, its payout below 10^13 (225 times the
#: largest wager: the best egalite pays 225 to 1), a table event's amount below 10^12. Ten thousand
#: of the largest wagers still fit a table-day's sums (the marts' DECIMAL(18, 4) holds below 10^14).
AMOUNT_DIGITS, PAYOUT_DIGITS, EVENT_DIGITS = 10, 13, 12
#: The earliest time a round or table event may carry; the latest is AHEAD past the ingest (a clock
#: a little fast, a time zone mistaken), never a date no casino has.
EARLIEST = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
AHEAD = dt.timedelta(days=1)
#: The longest text, in characters, of the columns free text may fill: ids, a seat, a chip breakdown.
ID_LENGTH, SEAT_LENGTH, DENOMINATIONS_LENGTH = 64, 16, 512
TEXT_LIMITS = {
    **dict.fromkeys(("table_id", "shoe_id", "dealer_id", "bank_holder", "player_id"), ID_LENGTH),
    **dict.fromkeys(("shift_id", "event_id", "employee_id"), ID_LENGTH),
    "seat": SEAT_LENGTH,
    "denominations": DENOMINATIONS_LENGTH,
}
#: The longest quarantine `detail`: a longer one keeps its first characters, marked an excerpt.
DETAIL_LENGTH = 300


def latest(now: dt.datetime | None = None) -> dt.datetime:
    """The latest time a row ingested `now` (the clock's when None) may carry."""
    return (now or dt.datetime.now(dt.UTC)) + AHEAD
