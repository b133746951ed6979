"""The baseline the ingest benchmark compares against: a straightforward row-by-row validator.

It applies the same checks one dict at a time with the project's own Python functions (parse_hand,
tableau_violation, score), keeps duplicates in a dict and shoe counts in Counters, and inserts the
accepted rows into DuckDB in one statement.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import duckdb
import polars as pl

from models.game.cards import CardError, parse_hand
from models.game.coup import score, tableau_violation
from models.game.games import Game


def validate(rows: list[dict]) -> tuple[list[tuple], Counter]:
    accepted, reasons, seen, shoes = [], Counter(), {}, {}
    for row in rows:
        try:
            key = (row["table_id"], row["shoe_id"], int(row["round_no"]))
            started = dt.datetime.fromisoformat(str(row["started_at"]))
            player, banker = parse_hand(row["player_cards"]), parse_hand(row["banker_cards"])
        except (KeyError, ValueError, TypeError, CardError):
            reasons["bad_row"] += 1
            continue
        if not (2 <= len(player) <= 3 and 2 <= len(banker) <= 3):
            reasons["bad_hand_size"] += 1
            continue
        game = Game(row.get("game") or "punto_banco")
        if tableau_violation(game, [c.value for c in player], [c.value for c in banker]):
            reasons["tableau_violation"] += 1
            continue
        coup = score(player, banker)
        if row.get("outcome") and row["outcome"] != coup.outcome:
            reasons["outcome_mismatch"] += 1
            continue
        if key in seen:
            reasons["duplicate"] += 1
            continue
        counts = shoes.setdefault(key[:2], Counter())
        cards = [str(card) for card in player + banker]
        decks = int(row.get("decks") or 8)
        if any(counts[card] + cards.count(card) > decks for card in cards):
            reasons["shoe_overdrawn"] += 1
            continue
        counts.update(cards)
        seen[key] = True
        accepted.append(
            (
                *key,
                started,
                row["player_cards"],
                row["banker_cards"],
                coup.outcome,
                coup.player_total,
                coup.banker_total,
            )
        )
    return accepted, reasons


def ingest_naively(rows: list[dict], db: Path) -> int:
    """Validate row by row, then insert the accepted rows in one statement."""
    accepted, _ = validate(rows)
    columns = ["table_id", "shoe_id", "round_no", "started_at", "player_cards", "banker_cards", "outcome"]
    frame = pl.DataFrame(accepted, orient="row", schema=[*columns, "player_total", "banker_total"])
    con = duckdb.connect(str(db))
    con.register("accepted", frame)
    con.execute("CREATE OR REPLACE TABLE rounds AS SELECT * FROM accepted")
    con.close()
    return len(accepted)
