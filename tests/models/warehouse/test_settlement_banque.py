"""Settlement of a Baccarat Banque coup whose first hand has a natural while the banker draws against
the second: the natural's wager wins, the other hand's is settled on the final totals."""

from decimal import Decimal

import polars as pl

from models.contract import NATURAL_KEY
from models.game.cells import cell_index
from models.game.paytable import DEFAULT_PAYTABLE
from models.logs.checks import check_rounds
from models.warehouse.settlement import SETTLED_BY, settle
from tests.models.logs.test_banque_naturals import COUP

KEY = list(NATURAL_KEY)


def _settled(payouts: tuple[str, str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    rounds = pl.DataFrame([COUP]).with_row_index("_line")
    facts = check_rounds(rounds).select(*KEY, *SETTLED_BY)
    bets = pl.DataFrame(
        {
            "table_id": ["T1", "T1"],
            "shoe_id": ["S1", "S1"],
            "round_no": [1, 1],
            "seat": ["1", "2"],
            "bet": ["player", "player"],
            "amount": [Decimal("100.00"), Decimal("50.00")],
            "payout": [Decimal(p) for p in payouts],
            "side": [1, 2],
        },
        schema_overrides={"amount": pl.Decimal(18, 2), "payout": pl.Decimal(18, 4), "side": pl.Int8},
    ).with_row_index("_line")
    return settle(
        bets.join(facts.with_columns(pl.col("round_no").cast(pl.Int64)), on=KEY, how="left"), DEFAULT_PAYTABLE
    )


def test_the_natural_s_wager_wins_and_the_other_hand_s_loses():
    accepted, mismatched = _settled(("100", "-50"))
    assert mismatched.height == 0
    accepted = accepted.sort("_line")
    assert accepted["net_unit"].to_list() == [1, -1]  # the bettor's result per unit staked
    assert accepted["cell"].to_list() == [cell_index(8, 5, 0, 0), cell_index(8, 9, 1, 1)]
    assert accepted["house_net"].to_list() == [0, 0]  # the bank is a player's: the house takes no part


def test_a_table_that_took_the_natural_s_wager_is_told_it_should_have_paid():
    _, mismatched = _settled(("-100", "-50"))
    assert mismatched["reason"].to_list() == ["payout_mismatch"]
    assert mismatched["side"].to_list() == [1]
