"""Bets: settlement, payouts checked against the pay table, sides only where two hands are dealt, and
numbers kept exactly or quarantined."""

from decimal import Decimal
from pathlib import Path

from models.warehouse.ingest import ingest
from models.warehouse.store import read


def test_bets_are_settled_checked_and_sided(tmp_path: Path):
    (tmp_path / "rounds.csv").write_text(
        "table_id,shoe_id,round_no,started_at,game,player_cards,banker_cards,player2_cards\n"
        "T1,S1,1,2026-11-01T10:00:00Z,punto_banco,2H 3S KD,4C 3D,\n"
        "T2,S1,1,2026-11-01T10:00:00Z,baccarat_banque,2H 3S KD,4C 3D,9H KC\n"
    )
    (tmp_path / "bets.csv").write_text(
        "table_id,shoe_id,round_no,seat,bet,amount,payout,side\n"
        "T1,S1,1,1,banker,10,9.50,\n"  # banker 7 beats player 5: pays 0.95
        "T1,S1,1,2,banker,10,10,\n"  # paid without commission: a mismatch
        "T1,S1,1,3,player,10,-10,2\n"  # a side on a one-hand game
        "T2,S1,1,1,player,10,-10,1\n"  # right table: player 5 loses to banker 7
        "T2,S1,1,2,player,20,20,2\n"  # left table: natural 9 beats banker 7
    )
    (result_rounds, result_bets) = ingest(tmp_path / "banco.duckdb", [tmp_path])
    assert result_rounds.accepted == 2
    assert result_bets.accepted == 3 and dict(result_bets.quarantined) == {"payout_mismatch": 1, "bad_type": 1}
    con = read(tmp_path / "banco.duckdb")
    rows = con.execute("SELECT table_id, seat, house_net, commission FROM core.bets ORDER BY table_id, seat").fetchall()
    assert rows == [
        ("T1", "1", Decimal("-9.5000"), Decimal("0.5000")),
        ("T2", "1", Decimal("0.0000"), Decimal("0.0000")),  # a player holds the banque's bank
        ("T2", "2", Decimal("0.0000"), Decimal("0.0000")),
    ]
    details = dict(con.execute("SELECT reason, detail FROM quarantine.bets").fetchall())
    assert details["bad_type"] == "side 2 names a second hand, which only baccarat_banque deals"
    assert details["payout_mismatch"] == "payout 10.0000 but the pay table gives 9.5000"


def test_amounts_are_kept_exactly_or_quarantined_and_never_fail_the_file(tmp_path: Path):
    (tmp_path / "rounds.csv").write_text(
        "table_id,shoe_id,round_no,started_at,game,player_cards,banker_cards\n"
        "T1,S1,1,2026-11-01T10:00:00Z,punto_banco,2H 3S KD,4C 3D\n"
    )
    amounts = {
        "12.34500": None,  # trailing zeros: kept
        "12.34567": "amount 12.34567 has more than 4 decimal places",  # never rounded
        "-5": "amount -5 is not positive",
        "nan": "amount nan is not a decimal",
        "99999999999999999999": "amount 99999999999999999999 is too large (at most 10 digits before the point)",
        # fits, but not what it pays or earns: a strict cast would have failed the whole file
        "99999999999999.9999": "amount 99999999999999.9999 is too large (at most 10 digits before the point)",
    }
    (tmp_path / "bets.csv").write_text(
        "table_id,shoe_id,round_no,seat,bet,amount\n"
        + "".join(f"T1,S1,1,{seat},tie,{amount}\n" for seat, amount in enumerate(amounts, start=1))
    )
    _, bets = ingest(tmp_path / "banco.duckdb", [tmp_path])
    assert bets.status == "ok" and bets.rows_read == bets.accepted + sum(bets.quarantined.values()) == len(amounts)
    con = read(tmp_path / "banco.duckdb")
    details = dict(con.execute("SELECT line_no, detail FROM quarantine.bets").fetchall())
    assert details == {line: text for line, text in enumerate(amounts.values(), start=2) if text}
    assert con.execute("SELECT amount FROM core.bets").fetchall() == [(Decimal("12.3450"),)]


def test_round_numbers_past_the_warehouse_integer_are_quarantined_not_a_failed_file(tmp_path: Path):
    (tmp_path / "rounds.csv").write_text(
        "table_id,shoe_id,round_no,started_at,game,player_cards,banker_cards\n"
        "T1,S1,2147483647,2026-11-01T10:00:00Z,punto_banco,2H 3S KD,4C 3D\n"
        "T1,S1,3000000000,2026-11-01T10:01:00Z,punto_banco,2H 3S KD,4C 3D\n"
    )
    (tmp_path / "bets.csv").write_text("table_id,shoe_id,round_no,seat,bet,amount\nT1,S1,3000000000,1,tie,10\n")
    rounds, bets = ingest(tmp_path / "banco.duckdb", [tmp_path])
    assert (rounds.status, rounds.accepted, dict(rounds.quarantined)) == ("ok", 1, {"bad_type": 1})
    assert (bets.status, dict(bets.quarantined)) == ("ok", {"bad_type": 1})
    details = read(tmp_path / "banco.duckdb").execute("SELECT detail FROM quarantine.rounds").fetchall()
    assert details == [("round_no 3000000000 is too large (at most 2147483647)",)]
