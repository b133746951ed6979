"""A table-shift's difference attributed, by hand (docs/metrics.md, Count room): the wagers of quarantined
coups priced from their payouts, cards or outcome, mispays, wagers on coups never dealt, coups missing from
the log, an overlapping shift and the tolerance's cap."""

import datetime as dt
from decimal import Decimal

import polars as pl

from models.contract import ROUND_INPUT_COLUMNS
from models.game.paytable import DEFAULT_PAYTABLE
from models.metrics import count_attribution
from models.metrics.count_room import MAX_TOLERANCE, table_shifts
from models.metrics.marts import with_holes
from tests.models.metrics.test_count_room import DAY, EVENTS, at, coups, events, wagers

D = Decimal
TEXT = dict.fromkeys(ROUND_INPUT_COLUMNS, pl.String)


def raw_rounds(*rows: dict) -> pl.DataFrame:
    """quarantine.rounds as the build reads it back: the reason and the round's fields as text."""
    base = {"game": "punto_banco", "decks": "8", "dealer_id": "D1"}
    return pl.DataFrame([base | row for row in rows], schema={"reason": pl.String, **TEXT})


def quarantined_bets(*rows: tuple) -> pl.DataFrame:
    """(table, shoe, round, reason, bet, amount, payout) as the build reads quarantine.bets."""
    return pl.DataFrame(
        [(t, s, r, why, bet, None, D(a), None if p is None else D(p)) for t, s, r, why, bet, a, p in rows],
        schema={"table_id": pl.String, "shoe_id": pl.String, "round_no": pl.Int32, "reason": pl.String,
                "bet": pl.String, "side": pl.Int8, "amount": pl.Decimal(18, 4), "payout": pl.Decimal(18, 4)},
        orient="row",
    )  # fmt: skip


def accepted_facts(*keys: tuple) -> pl.DataFrame:
    """The accepted coups of quarantined bets: T1/S1's round 2, a Player win of 6 to 5 without draws."""
    rows = [
        {"table_id": t, "shoe_id": s, "round_no": r, "started_at": at(2, 8, 20), "game": "punto_banco", "decks": 8,
         "outcome": "P", "outcome2": None, "has_cards": True, "player_total": 6, "banker_total": 5,
         "player2_total": None, "player_third": None, "banker_third": None, "player_pair": False,
         "banker_pair": False, "player2_cards": None}
        for t, s, r in keys
    ]  # fmt: skip
    nulls = {"outcome2": pl.String, "player2_total": pl.Int8, "player_third": pl.Int8, "banker_third": pl.Int8,
             "player2_cards": pl.String}  # fmt: skip
    return pl.DataFrame(rows, schema_overrides=nulls).with_columns(
        pl.col("round_no").cast(pl.Int32), pl.col("decks").cast(pl.Int8), pl.col("started_at").dt.cast_time_unit("us")
    )


#: T1's shift A (08:00-12:00) holds coups 1-3 of shoe S1; these were logged and quarantined beside them.
ROUNDS = raw_rounds(
    # a third card logged against the tableau: its logged outcome (B) is believed
    {"reason": "tableau_violation", "table_id": "T1", "shoe_id": "S1", "round_no": "5",
     "started_at": "2026-11-02T08:40:00Z", "player_cards": "9H TD 2C", "banker_cards": "7C KS", "outcome": "B"},
    # the outcome column contradicts the cards (Player 9, Banker 7): the cards are believed
    {"reason": "outcome_mismatch", "table_id": "T1", "shoe_id": "S1", "round_no": "6",
     "started_at": "2026-11-02T08:50:00Z", "player_cards": "9H TD", "banker_cards": "7C KS", "outcome": "B"},
    # no time and an unreadable card: placed at its shoe's coup before it (round 4, 13:00: shift B),
    # settled by its logged outcome
    {"reason": "bad_card", "table_id": "T1", "shoe_id": "S1", "round_no": "7",
     "player_cards": "1X TD", "banker_cards": "7C KS", "outcome": "P"},
    # neither cards nor outcome: its wager is bounded by its stake
    {"reason": "missing_field", "table_id": "T1", "shoe_id": "S1", "round_no": "8",
     "started_at": "2026-11-02T09:10:00Z"},
)  # fmt: skip
BETS = quarantined_bets(
    ("T1", "S1", 5, "orphan_bet", "banker", "100", "95"),  # logged payout: the house paid 95
    ("T1", "S1", 6, "orphan_bet", "player", "100", None),  # the cards: Player wins, the house pays 100
    ("T1", "S1", 7, "orphan_bet", "banker", "40", None),  # the outcome: Player, the house takes 40
    ("T1", "S1", 8, "orphan_bet", "banker", "30", None),  # unknown: stake 30
    ("T1", "S1", 90, "orphan_bet", "banker", "500", "-500"),  # a round never dealt: not counted
    ("T1", "S1", 2, "payout_mismatch", "player", "200", "250"),  # paid 250 where the pay table gives 200
    ("T1", "S1", 3, "bad_amount", "banker", "0", "0"),  # a stake of nothing: nothing taken, no unit of it
)


def priced() -> tuple[pl.DataFrame, pl.DataFrame]:
    q_coups = count_attribution.read_coups(ROUNDS)
    accepted = accepted_facts(("T1", "S1", 2), ("T1", "S1", 3))
    return q_coups, count_attribution.quarantined_wagers(q_coups, BETS, accepted, DEFAULT_PAYTABLE)


def test_each_quarantined_wager_is_priced_from_its_payout_cards_or_outcome():
    _, priced_wagers = priced()
    got = {row["round_no"]: row for row in priced_wagers.iter_rows(named=True)}
    assert (got[5]["take"], got[5]["basis"]) == (D(-95), "payout")
    assert (got[6]["take"], got[6]["basis"]) == (D(-100), "cards")
    assert (got[7]["take"], got[7]["basis"]) == (D(40), "outcome")
    assert (got[8]["take"], got[8]["stake"], got[8]["dealt"]) == (None, D(30), True)
    assert got[90]["dealt"] is False
    # the pay table's figure is what the wager should have cost; the 50 beyond it is a mispay
    assert (got[2]["take"], got[2]["mispaid"]) == (D(-200), D(50))
    assert (got[3]["take"], got[3]["stake"]) == (D(0), D(0))


def test_a_shift_with_quarantined_coups_is_unreconciled_by_its_mispay_alone():
    q = priced()
    plain = table_shifts(EVENTS, coups(), wagers(), DAY).filter(table_id="T1", shift_id="A").row(0, named=True)
    shift = table_shifts(EVENTS, coups(), wagers(), DAY, quarantined=q).filter(table_id="T1", shift_id="A")
    row = shift.row(0, named=True)
    assert row["quarantined_coups"] == 3 and row["difference"] == plain["difference"]
    assert row["quarantined_win"] == D(-95 - 100 - 200)
    assert (row["quarantined_stake"], row["mispaid"], row["wagers_not_dealt"]) == (D(30), D(50), 0)
    assert row["unexplained"] == plain["difference"] - row["quarantined_win"] + D(50)
    assert row["status"] == "unreconciled" and not row["reconciled"]
    assert "mispay: 1 wager paid 50.00 beyond the pay table" in row["attribution"]
    assert "3 quarantined coups (" in row["attribution"] and "bad_card" not in row["attribution"]
    # the coup without a time, and the wager on a round never dealt, go with shoe S1's round 4: shift B
    later = table_shifts(EVENTS, coups(), wagers(), DAY, quarantined=q).filter(shift_id="B").row(0, named=True)
    assert (later["quarantined_coups"], later["quarantined_win"], later["wagers_not_dealt"]) == (1, D(40), 1)
    assert "1 wager on coups never dealt, not counted" in later["attribution"]


def test_a_shift_whose_difference_its_quarantined_coups_account_for_is_explained():
    q_coups, q_wagers = priced()
    q_wagers = q_wagers.filter(pl.col("round_no") == 5)  # the house paid 95 on a coup the log lost
    plain = table_shifts(EVENTS, coups(), wagers(), DAY).filter(table_id="T1", shift_id="A").row(0, named=True)
    assert plain["status"] == "reconciled"
    short = EVENTS.with_columns(
        amount=pl.when((pl.col("shift_id") == "A") & (pl.col("event") == "closer"))
        .then(pl.col("amount") - D(95))
        .otherwise("amount")
    )
    row = table_shifts(short, coups(), wagers(), DAY, quarantined=(q_coups, q_wagers)).row(0, named=True)
    assert (row["shift_id"], row["difference"], row["unexplained"]) == ("A", D(-95), D(0))
    assert row["status"] == "explained" and row["reconciled"]


def test_a_gap_in_round_numbers_is_a_coup_missing_from_the_log():
    gap = coups().filter(pl.col("round_no") != 2)
    row = table_shifts(EVENTS, gap, wagers(), DAY).filter(table_id="T1", shift_id="A").row(0, named=True)
    assert row["missing_coups"] == 1 and "1 coup missing from the log" in row["attribution"]


def test_an_overlapping_shift_is_reported_and_takes_no_coup_of_the_one_it_overlaps():
    plain = table_shifts(EVENTS, coups(), wagers(), DAY)
    bogus = events(("T1", "OVERLAP", "opener", at(2, 8, 15), "100"), ("T1", "OVERLAP", "closer", at(2, 8, 25), "100"))
    shifts = table_shifts(pl.concat([EVENTS, bogus]), coups(), wagers(), DAY)
    by = {row["shift_id"]: row for row in shifts.iter_rows(named=True)}
    assert by["OVERLAP"]["status"] == "overlapping" and by["OVERLAP"]["coups"] == 0
    assert "overlaps an earlier shift" in by["OVERLAP"]["attribution"]
    # every coup in exactly one shift: A keeps its coups and its difference
    assert by["A"]["coups"] == 3 and by["A"]["difference"] == plain.filter(shift_id="A")["difference"].item()
    assert shifts["coups"].sum() == plain["coups"].sum()


def test_a_shift_opened_before_the_last_closed_takes_the_coups_after_it():
    handover = events(
        ("T1", "A", "opener", at(2, 8), "10000"),
        ("T1", "A", "closer", at(2, 8, 25), "10000"),
        ("T1", "C", "opener", at(2, 8, 15), "10000"),  # opened ten minutes before A closed
        ("T1", "C", "closer", at(2, 14), "10000"),
    )
    by = {r["shift_id"]: r for r in table_shifts(handover, coups(), wagers(), DAY).iter_rows(named=True)}
    assert (by["A"]["coups"], by["C"]["coups"], by["C"]["status"]) == (2, 2, "overlapping")


def test_the_tolerance_from_the_chips_is_capped():
    big = events(
        ("T1", "A", "opener", at(2, 8), "100000", "100000x1"),
        ("T1", "A", "closer", at(2, 12), "100000", "100000x1"),
    )
    row = table_shifts(big, coups(), wagers(), DAY).filter(shift_id="A").row(0, named=True)
    assert row["tolerance"] == MAX_TOLERANCE and row["status"] == "unreconciled"
    assert abs(row["difference"]) > MAX_TOLERANCE


def test_a_table_day_says_how_many_coups_were_quarantined_and_the_share_of_handle_on_them():
    q_coups, q_wagers = priced()
    shoe_days = pl.DataFrame({"table_id": ["T1"], "shoe_id": ["S1"], "gaming_day": [dt.date(2026, 11, 2)]})
    holes = count_attribution.by_table_day(q_coups, q_wagers, shoe_days, DAY)
    # four quarantined coups; the stakes of their wagers and of the mispaid bet, not the wager never dealt
    assert holes.rows() == [("T1", dt.date(2026, 11, 2), 4, D(100 + 100 + 40 + 30 + 200))]
    table_day = pl.DataFrame(
        {"table_id": ["T1", "T1", "T2"], "gaming_day": [dt.date(2026, 11, 2)] * 3,
         "game": ["punto_banco", "super6", "x"], "handle": [D(1000), D(530), D(10)]},
        schema_overrides={"handle": pl.Decimal(18, 4)},
    )  # fmt: skip
    noted = with_holes(table_day, holes)
    assert noted["quarantined_coups"].to_list() == [4, 4, 0]
    assert noted["quarantined_handle_pct"].to_list() == [470 / 2000 * 100, 470 / 2000 * 100, 0.0]
