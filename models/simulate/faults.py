"""Fault injection: realistic bad rows at a known rate, each labelled in a side frame.

A coup is picked with probability `rate` (decided by a hash of its natural key, so the choice does
not depend on how the run is split) and gets one fault, the kinds in turn by a second hash. The label
says what the validator should make of it: the quarantine reason, or `duplicate` for an exact copy.
"""

from __future__ import annotations

import polars as pl

from models.game.cards import parse_card
from models.game.coup import tableau_violation
from models.game.games import Game

#: fault kind -> what a correct validator reports for the faulty row
FAULTS = {
    "wrong_draw": "tableau_violation",
    "wrong_outcome": "outcome_mismatch",
    "malformed_card": "bad_card",
    "overdrawn_shoe": "shoe_overdrawn",
    "exact_duplicate": "duplicate",
    "conflicting_duplicate": "conflicting_duplicate",
    "orphan_bet": "orphan_bet",
}
KINDS = tuple(FAULTS)
KEY = ("table_id", "shoe_id", "round_no")
LABEL_SCHEMA = {
    "table_id": pl.String,
    "shoe_id": pl.String,
    "round_no": pl.Int32,
    "kind": pl.String,
    "file_kind": pl.String,
    "expected": pl.String,
    "detail": pl.String,
}
_FLIP = {"B": "P", "P": "B", "T": "B"}


def _uniform(seed: int, salt: int) -> pl.Expr:
    key = pl.concat_str(pl.col("table_id"), pl.col("shoe_id"), pl.col("round_no").cast(pl.String), separator="|")
    return key.hash(seed * 1_000_003 + salt).cast(pl.Float64) / 2.0**64


def _pick(rounds: pl.DataFrame, rate: float, seed: int) -> pl.DataFrame:
    picked = rounds.filter(_uniform(seed, 1) < rate)
    kind = (_uniform(seed, 2) * len(KINDS)).cast(pl.Int64)
    return picked.with_columns(kind=pl.lit(pl.Series(KINDS)).gather(kind))


def _break_draw(game: str, player: str, banker: str) -> tuple[str, str] | None:
    """The hands with one third card dropped or added so that the tableau is broken, if one can be."""
    p, b = player.split(), banker.split()
    candidates = [
        (p[:2], b) if len(p) == 3 else ([*p, "5H"], b),
        (p, b[:2]) if len(b) == 3 else (p, [*b, "5H"]),
    ]
    for hand_p, hand_b in candidates:
        values_p = [parse_card(token).value for token in hand_p]
        values_b = [parse_card(token).value for token in hand_b]
        if tableau_violation(Game(game), values_p, values_b):
            return " ".join(hand_p), " ".join(hand_b)
    return None


def _wrong_draw(rows: pl.DataFrame) -> pl.DataFrame:
    """Drop or add a third card where the tableau forbids it (checked with the tableau itself)."""
    broken = [
        _break_draw(game, player, banker)
        for game, player, banker in rows.select("game", "player_cards", "banker_cards").iter_rows()
    ]
    keep = pl.Series([hands is not None for hands in broken], dtype=pl.Boolean)
    hands = [hands for hands in broken if hands is not None]
    return rows.filter(keep).with_columns(
        player_cards=pl.Series([p for p, _ in hands], dtype=pl.String),
        banker_cards=pl.Series([b for _, b in hands], dtype=pl.String),
    )


def _malformed(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.with_columns(player_cards=pl.col("player_cards").str.replace(r"^\S+", "1X"))


def _exhausted_copy(rounds: pl.DataFrame, rows: pl.DataFrame, decks: pl.Expr) -> pl.DataFrame:
    """For each picked shoe, a copy of one of its coups holding a card the shoe has already dealt in
    full, logged as one more round: the cards would overdraw the shoe."""
    shoes = rows.select("table_id", "shoe_id").unique(maintain_order=True)
    cards = (
        rounds.join(shoes, on=["table_id", "shoe_id"], maintain_order="left")
        .with_columns(card=pl.concat_str("player_cards", "banker_cards", separator=" ").str.split(" "))
        .explode("card")
    )
    exhausted = (
        cards.group_by("table_id", "shoe_id", "card", "decks", maintain_order=True)
        .agg(pl.len().alias("seen"))
        .filter(pl.col("seen") >= decks)
    )
    last = (
        rounds.join(shoes, on=["table_id", "shoe_id"], maintain_order="left")
        .group_by("table_id", "shoe_id", maintain_order=True)
        .agg(pl.col("round_no").max().alias("last_round"), pl.col("started_at").max().alias("last_at"))
    )
    source = (
        cards.join(exhausted, on=["table_id", "shoe_id", "card", "decks"], maintain_order="left")
        .group_by("table_id", "shoe_id", maintain_order=True)
        .agg(pl.col("round_no").min())
    )
    return (
        rounds.join(source, on=["table_id", "shoe_id", "round_no"], maintain_order="left")
        .join(last, on=["table_id", "shoe_id"], maintain_order="left")
        .with_columns(
            round_no=(pl.col("last_round") + 1).cast(pl.Int32),
            started_at=pl.col("last_at") + pl.duration(seconds=50),
        )
        .drop("last_round", "last_at")
    )


def inject(rounds: pl.DataFrame, bets: pl.DataFrame | None, rate: float, seed: int):
    """Return (rounds, bets, labels) with faults at `rate` per coup; the inputs are left as they were."""
    if rate <= 0:
        return rounds, bets, pl.DataFrame(schema=LABEL_SCHEMA)
    if rate > 1:
        raise ValueError(f"the misdeal rate is a fraction of coups, at most 1, got {rate}")
    picked = _pick(rounds, rate, seed)
    by_kind = {kind: picked.filter(pl.col("kind") == kind).drop("kind") for kind in KINDS}
    changed = pl.concat(
        [
            _wrong_draw(by_kind["wrong_draw"]),
            by_kind["wrong_outcome"].with_columns(pl.col("outcome").replace_strict(_FLIP, default="B")),
            _malformed(by_kind["malformed_card"]),
        ]
    )
    # rows quarantined for their own faults do not count towards the shoe's cards
    untouched = rounds.join(changed.select(KEY), on=list(KEY), how="anti", maintain_order="left")
    added = pl.concat(
        [
            by_kind["exact_duplicate"],
            by_kind["conflicting_duplicate"].with_columns(dealer_id=pl.lit("D999")),
            overdrawn := _exhausted_copy(untouched, by_kind["overdrawn_shoe"], pl.col("decks")),
        ]
    )
    out_rounds = pl.concat([untouched, changed, added])
    labels = [
        changed.join(picked.select(*KEY, "kind"), on=list(KEY), maintain_order="left").select(
            *KEY, "kind", file_kind=pl.lit("rounds")
        ),
        by_kind["exact_duplicate"].select(*KEY, kind=pl.lit("exact_duplicate"), file_kind=pl.lit("rounds")),
        by_kind["conflicting_duplicate"].select(*KEY, kind=pl.lit("conflicting_duplicate"), file_kind=pl.lit("rounds")),
        overdrawn.select(*KEY, kind=pl.lit("overdrawn_shoe"), file_kind=pl.lit("rounds")),
    ]
    out_bets = bets
    orphans = by_kind["orphan_bet"]
    if bets is not None and orphans.height:
        ghost = bets.join(orphans.select(KEY), on=list(KEY), how="semi", maintain_order="left")
        ghost = ghost.unique(list(KEY), keep="first", maintain_order=True)
        ghost = ghost.with_columns(round_no=(pl.col("round_no") + 10_000).cast(pl.Int32))
        out_bets = pl.concat([bets, ghost])
        labels.append(ghost.select(*KEY, kind=pl.lit("orphan_bet"), file_kind=pl.lit("bets")))
    label_frame = pl.concat(labels).with_columns(
        expected=pl.col("kind").replace_strict(FAULTS),
        detail=pl.col("kind").replace_strict(
            {
                "wrong_draw": "a third card dropped or added against the tableau",
                "wrong_outcome": "the outcome column contradicts the cards",
                "malformed_card": "the first player card replaced by the token 1X",
                "overdrawn_shoe": "a coup repeated after the shoe's last round with a card already dealt in full",
                "exact_duplicate": "the row logged twice",
                "conflicting_duplicate": "the row logged twice with another dealer",
                "orphan_bet": "a wager on a round the table never dealt",
            }
        ),
    )
    return out_rounds, out_bets, label_frame.select(list(LABEL_SCHEMA)).cast(LABEL_SCHEMA)
