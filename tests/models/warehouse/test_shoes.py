"""core.shoes, pooled from each file's batches and the rows shoes had before, equals one query over
all the stored rows: shoes split across batches and files, hands losing their suits half-way, an
outcome-only shoe and a round overdrawn in the second file."""

from pathlib import Path

import duckdb
import polars as pl
from polars.testing import assert_frame_equal

from models.logs import read
from models.simulate.config import Simulation
from models.simulate.engine import simulate
from models.warehouse.ingest import ingest

#: core.shoes as one query over everything stored: an oracle written apart from models/warehouse/shoes.py.
ORACLE = """
WITH overdrawn AS (
    SELECT table_id, shoe_id, count(DISTINCT round_no) AS rows FROM quarantine.rounds
    WHERE reason = 'shoe_overdrawn' GROUP BY ALL
), cards AS (
    SELECT table_id, shoe_id,
        bool_and(coalesce(length(player_cards) + 1, 0) + coalesce(length(banker_cards) + 1, 0)
            + coalesce(length(player2_cards) + 1, 0) = 3 * cards_used) AS suited,
        bool_and(NOT contains(concat_ws(' ', player_cards, banker_cards, player2_cards), '0')) AS ranked
    FROM core.rounds WHERE has_cards GROUP BY ALL
)
SELECT r.table_id, r.shoe_id, any_value(r.game) AS game, max(r.decks) AS decks, count(*)::INTEGER AS rounds,
    min(r.started_at) AS first_started_at, max(r.started_at) AS last_started_at,
    sum(r.cards_used)::INTEGER AS cards_seen,
    CASE WHEN any_value(c.suited) THEN 'card' WHEN any_value(c.ranked) THEN 'rank'
         WHEN any_value(c.suited) IS NULL THEN 'none' ELSE 'value' END AS reconciled_by,
    coalesce(any_value(o.rows), 0)::INTEGER AS overdrawn_rows,
    CASE WHEN any_value(c.suited) IS NULL THEN 'no cards'
         WHEN coalesce(any_value(o.rows), 0) > 0 THEN 'overdrawn' ELSE 'reconciled' END AS reconciliation
FROM core.rounds r LEFT JOIN cards c USING (table_id, shoe_id) LEFT JOIN overdrawn o USING (table_id, shoe_id)
GROUP BY r.table_id, r.shoe_id ORDER BY ALL
"""


def _logs(folder: Path) -> list[Path]:
    rounds = next(simulate(Simulation(shoes=8, tables=2, decks=8, seed=4, bets=False))).rounds
    shoes = rounds.select("shoe_id").unique(maintain_order=True)["shoe_id"]
    unsuited = pl.col("shoe_id") == shoes[0]
    rounds = rounds.with_columns(  # one shoe loses its suits from round 20 on: it reconciles by rank
        pl.when(unsuited & (pl.col("round_no") >= 20)).then(pl.col(hand).str.replace_all(r"(\w)[CDHS]", "$1"))
        .otherwise(pl.col(hand)).alias(hand)
        for hand in ("player_cards", "banker_cards")
    )  # fmt: skip
    outcome_only = pl.col("shoe_id") == shoes[1]
    rounds = rounds.with_columns(
        pl.when(~outcome_only).then(pl.col(hand)).alias(hand) for hand in ("player_cards", "banker_cards")
    )
    natural = {"player_cards": "9H KD", "banker_cards": "8S KC", "decks": 1, "outcome": "P"}
    one_deck = rounds.head(1).with_columns(shoe_id=pl.lit("one-deck"), round_no=pl.lit(1, pl.Int32), **{
        name: pl.lit(value, rounds.schema[name]) for name, value in natural.items()
    })  # fmt: skip
    again = one_deck.with_columns(round_no=pl.lit(2, pl.Int32))  # the same 9H in a one-deck shoe: overdrawn
    first = pl.concat([rounds.filter(pl.col("round_no") < 30), one_deck])
    second = pl.concat([rounds.filter(pl.col("round_no") >= 30), again])
    paths = [folder / "a.parquet", folder / "b.parquet"]
    first.write_parquet(paths[0])
    second.write_parquet(paths[1])
    return paths


def test_core_shoes_equals_one_query_over_every_stored_row(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "BATCH_ROWS", 97)  # shoes run across batches as well as files
    db = tmp_path / "banco.duckdb"
    first, second = _logs(tmp_path)
    (one,) = ingest(db, [first])
    (two,) = ingest(db, [second])
    assert one.status == two.status == "ok" and two.quarantined == {"shoe_overdrawn": 1}
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = con.sql("SELECT * FROM core.shoes ORDER BY ALL").pl()
        expected = con.sql(ORACLE).pl()
    finally:
        con.close()
    assert set(stored["reconciled_by"]) == {"card", "rank", "none"}
    assert set(stored["reconciliation"]) == {"reconciled", "no cards", "overdrawn"}
    assert_frame_equal(stored, expected)
