"""The ingest's shortcuts give what the general path gives: hands read through the process-wide
cache, typed Parquet columns read without text, full ISO times parsed at once, and shoes that cannot
overdraw passed over by the round-order count."""

import datetime as dt
import random
from collections import Counter

import polars as pl
import pytest

from models.game.cards import RANKS, SUITS, CardError, parse_hand
from models.logs import arrow_text, checks, hands
from models.warehouse import schema
from models.warehouse.reconciliation import reconcile
from models.warehouse.staging import StoredShoes
from models.warehouse.store import writer

TOKENS = [r + s for r in [*RANKS, "10"] for s in ["", *SUITS]] + ["0", "1", "9h", "10s", "XX", "1H", ""]


def _random_hands(count: int, seed: int) -> list[str | None]:
    rng = random.Random(seed)
    hands_ = [" ".join(rng.choices(TOKENS, k=rng.randint(1, 4))) for _ in range(count)]
    return [*hands_, None, "", "  ", "9H,3S", " 9H  3S ", "10H 10D"]


def test_hands_read_through_the_cache_agree_with_parse_hand_cold_warm_and_after_a_reset(monkeypatch):
    first = pl.DataFrame({"h": _random_hands(3000, 1)}, schema={"h": pl.String})
    other = pl.DataFrame({"h": _random_hands(3000, 2)}, schema={"h": pl.String})
    monkeypatch.setattr(hands, "_READINGS", hands._Readings())  # cold
    monkeypatch.setattr(hands._Readings, "LIMIT", 4000)  # reading `other` after `first` resets it

    def read(frame):
        return hands.decode(frame, "h", "c", "n", "t")

    readings = [read(first), read(first), read(other), read(first)]  # cold, warm, (reset), after the reset
    assert readings[0].equals(readings[1]) and readings[0].equals(readings[3])
    for row in readings[0].iter_rows(named=True):
        text = row["h"]
        if text is None or not text.strip():  # blank fields are nulls before they are read
            assert row["n"] is None and row["t"] is None
            continue
        try:
            cards = parse_hand(text)
        except CardError:
            assert row["_t_bad"] is not None or row["n"] == 0, text
            continue
        assert row["_t_bad"] is None, text
        assert row["n"] == len(cards)
        for i, card in enumerate(cards[:3]):
            assert row[f"c{i}_value"] == card.value
            assert row[f"c{i}_rank"] == (None if card.rank is None else card.rank - 1)
            assert row[f"c{i}_suit"] == (None if card.suit is None else SUITS.index(card.suit))


def _rounds(typed: bool) -> pl.DataFrame:
    start = dt.datetime(2026, 11, 1, 10, tzinfo=dt.UTC)
    frame = pl.DataFrame(
        {
            "table_id": ["T1"] * 6,
            "shoe_id": ["S1"] * 6,
            "round_no": [1, 2, 0, None, 5, 6],
            "started_at": [start + dt.timedelta(minutes=i) for i in range(5)] + [None],
            "player_cards": ["9H 3S", "2C 3C 4C", "8D KD", "KS QS", "5H 5D 2S", "AH 2H"],
            "banker_cards": ["7H 1", "9C 9D", "3S 4S", "2D 3D", "6S 6C", "4D 4H"],
            "decks": [8, 9, 6, None, 1, 8],
        },
        schema_overrides={"round_no": pl.Int32, "decks": pl.Int8},
    ).with_columns(_line=pl.int_range(1, pl.len() + 1))
    if typed:
        return frame
    return frame.with_columns(
        pl.col("started_at").dt.to_string("%Y-%m-%dT%H:%M:%S%.6f%:z"), pl.col("round_no", "decks").cast(pl.String)
    )


def test_typed_columns_check_exactly_like_their_text():
    typed, text = checks.check_rounds(_rounds(True)), checks.check_rounds(_rounds(False))
    assert typed.select("reason").to_series().to_list() == text.select("reason").to_series().to_list()
    assert typed["reason"].null_count() < typed.height  # some rows fail: the details are compared too
    same = [name for name in typed.columns if not name.startswith("_") and name not in ("started_at", "decks")]
    assert typed.select(same).equals(text.select(same))
    assert typed["started_at"].equals(text["started_at"])


@pytest.mark.parametrize(
    "times",
    [
        ["2026-11-01T10:00:00+00:00", "2026-11-01T10:00:00.123456+02:00", "2026-11-01T23:59:59.5-05:30", None],
        ["2026-02-30T10:00:00+00:00", "2026-11-01T24:00:00+00:00", "2026-11-01T10:00:00.123456789+01:00"],
    ],
)
def test_full_iso_times_parse_at_once_as_the_repairs_would(times):
    fast = pl.DataFrame({"t": times}, schema={"t": pl.String})
    slow = fast.vstack(pl.DataFrame({"t": ["2026-11-01 10:00"]}))  # one time needing repair: the slow path
    assert (
        fast.select(checks._instant(fast, "t"))["t"].to_list()
        == (slow.select(checks._instant(slow, "t"))["t"].to_list()[:-1])
    )


def _overdrawn_by_rule(frame: pl.DataFrame) -> set[int]:
    """docs/round-log-format.md's rule, row by row: per shoe in round order, a row whose cards would take a card past
    what the shoe holds is overdrawn, and its cards are not counted."""
    over, counts = set(), {}
    for row in frame.sort("table_id", "shoe_id", "round_no").iter_rows(named=True):
        cards = [str(card) for card in parse_hand(row["player_cards"]) + parse_hand(row["banker_cards"])]
        seen = counts.setdefault((row["table_id"], row["shoe_id"]), Counter())
        if any(seen[card] + cards.count(card) > row["decks"] for card in cards):
            over.add(row["_line"])
        else:
            seen.update(cards)
    return over


def test_reconciliation_with_shoes_passed_over_agrees_with_the_rule_row_by_row(tmp_path):
    rng = random.Random(7)
    deck = [rank + suit for rank in RANKS for suit in SUITS]
    rows = []
    for shoe in range(60):
        decks, rounds = rng.randint(1, 2), rng.randint(5, 30)
        # small shoes drawn with replacement: some hold a card more often than they can, most don't
        pool = deck * decks if shoe % 3 else deck
        for round_no in range(1, rounds + 1):
            cards = rng.sample(pool, 4) if shoe % 3 else rng.choices(deck[:8], k=4)
            rows.append((f"T{shoe % 4}", f"S{shoe}", round_no, decks, " ".join(cards[:2]), " ".join(cards[2:])))
    frame = pl.DataFrame(
        rows, schema=["table_id", "shoe_id", "round_no", "decks", "player_cards", "banker_cards"], orient="row"
    ).with_columns(started_at=pl.lit("2026-11-01T10:00:00+00:00"), _line=pl.int_range(2, pl.len() + 2))
    checked = checks.check_rounds(frame.sample(fraction=1.0, shuffle=True, seed=3))  # not in round order
    good = checked.filter(pl.col("reason").is_null() | (pl.col("reason") == "outcome_mismatch"))
    good = good.with_columns(reason=pl.lit(None, pl.String), detail=pl.lit(None, pl.String))
    with writer(tmp_path / "banco.duckdb") as w:  # an empty warehouse: every shoe is new
        stored = StoredShoes.load(w.con, schema.CORE_ROUNDS, w.tables.io)
        accepted, overdrawn = reconcile(w.con, good, stored)
    expected = _overdrawn_by_rule(good.select(frame.columns))
    assert 0 < len(expected) < good.height
    assert set(overdrawn["_line"]) == expected
    assert accepted.height + overdrawn.height == good.height


def test_label_codes_read_text_exactly_whether_a_label_fits_its_view_or_not():
    """Labels of up to 12 bytes match a view whole; longer ones (`baccarat_banque`) and text that
    only starts like a label go by their bytes. Case, spaces and near misses are unknown."""
    labels = ("punto_banco", "baccarat_banque", "chemin_de_fer", "B", "")
    text = [
        "punto_banco", "baccarat_banque", "chemin_de_fer", "B", "", None, "Punto_banco", "punto_banco ",
        "baccarat_banqu", "baccarat_banquet", "chemin_de_fer!", "b", "BB", "punto_banco" * 3,
    ]  # fmt: skip
    codes = arrow_text.label_codes(pl.Series(text, dtype=pl.String), labels, absent=-3, unknown=-1)
    assert codes.tolist() == [0, 1, 2, 3, 4, -3, -1, -1, -1, -1, -1, -1, -1, -1]
    sliced = pl.Series([None, *text], dtype=pl.String).slice(1)  # a view array that starts at an offset
    assert arrow_text.label_codes(sliced, labels, absent=-3, unknown=-1).tolist() == codes.tolist()
