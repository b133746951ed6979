"""Each dealt wager's house net, as core.bets.house_net will hold it (`models.warehouse.settlement`).

House-banked games: settlement's `house_net` is minus the payout the pay table gives, and the kernel's
payout is that payout (its grid is `settlement_grid`, the tabulated `bet_result`; a test holds every
wager of a month to `settle`), so it is read off the payout. Player-banked games: the house takes its
commission, which the bets log does not carry; those wagers are settled by `settle` itself, after
their rounds are checked as the ingest checks them (`models.logs.checks.check_rounds`).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from models.contract import NATURAL_KEY
from models.game.paytable import PayTable
from models.logs.checks import check_rounds
from models.money_units import MONEY, MONEY_SCALE, MONEY_UNIT, arrow_units
from models.simulate.frames import as_frame
from models.warehouse.settlement import SETTLED_BY, settle

KEY = list(NATURAL_KEY)


def settled_units(rounds: pl.DataFrame, bets: pl.DataFrame, table: PayTable) -> np.ndarray:
    """Each bet's house net by `settle`, in ten-thousandths as int64, in the bets' order.

    Raises when a dealt wager does not settle (a simulator bug: its payout is the pay table's).
    """
    facts = check_rounds(rounds.with_row_index("_line")).select(*KEY, *SETTLED_BY)
    placed = bets.with_row_index("_line").join(facts, on=KEY, how="left", maintain_order="left")
    accepted, mismatched = settle(placed, table)
    if mismatched.height or accepted.height != bets.height:
        raise RuntimeError(f"{mismatched.height} dealt wagers do not settle by the pay table")
    net = accepted.sort("_line")["house_net"].cast(MONEY)
    return (net * MONEY_UNIT).cast(pl.Int64).to_numpy()


def house_net_units(
    rounds: pa.Table, bets: pa.Table, table_codes: np.ndarray, player_banked: np.ndarray, paytable: PayTable
) -> np.ndarray:
    """Every dealt wager's house net in ten-thousandths; `table_codes` is each bet's table number and
    `player_banked[t]` says whether table t's game is player-banked."""
    units = -arrow_units(bets["payout"], MONEY_SCALE)
    banked = player_banked[table_codes]
    if banked.any():
        round_tables = rounds["table_id"].combine_chunks().indices.to_numpy(zero_copy_only=False)
        some_rounds = as_frame(rounds.filter(pa.array(player_banked[round_tables])))
        units[banked] = settled_units(some_rounds, as_frame(bets.filter(pa.array(banked))), paytable)
    return units
