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

from models.contract import MONEY, NATURAL_KEY
from models.game.paytable import PayTable
from models.logs.checks import check_rounds
from models.simulate.frames import as_frame
from models.warehouse.settlement import settle

KEY = list(NATURAL_KEY)
#: The rounds' facts a bet is settled by, as the ingest reads them from core.rounds (steps.SETTLED_BY).
FACTS = [
    pl.col("game"),
    pl.col("decks").cast(pl.Int64),
    pl.col("outcome"),
    pl.col("outcome2"),
    pl.col("has_cards"),
    pl.col("player_total"),
    pl.col("banker_total"),
    pl.col("player2_total"),
    pl.col("player_third").is_not_null().alias("player_drew"),
    pl.col("banker_third").is_not_null().alias("banker_drew"),
    pl.col("player_pair"),
    pl.col("banker_pair"),
    (pl.col("player2_cards").str.split(" ").list.len() == 3).alias("player2_drew"),
]


def money_units(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A decimal column of MONEY's scale (as dealt: decimal64) as int64 ten-thousandths, no copy per value."""
    column = pa.chunked_array([column]) if isinstance(column, pa.Array) else column
    parts = [np.zeros(0, np.int64)]
    for chunk in column.chunks:
        if chunk.type.scale != MONEY.scale:
            raise ValueError(f"expected a decimal of scale {MONEY.scale}, got {chunk.type}")
        if pa.types.is_decimal128(chunk.type):
            chunk = chunk.cast(pa.decimal64(18, MONEY.scale))
        data = np.frombuffer(chunk.buffers()[1], np.int64, count=chunk.offset + len(chunk))
        parts.append(data[chunk.offset :])
    return np.concatenate(parts)


def settled_units(rounds: pl.DataFrame, bets: pl.DataFrame, table: PayTable) -> np.ndarray:
    """Each bet's house net by `settle`, in ten-thousandths as int64, in the bets' order.

    Raises when a dealt wager does not settle (a simulator bug: its payout is the pay table's).
    """
    facts = check_rounds(rounds.with_row_index("_line")).select(*KEY, *FACTS)
    placed = bets.with_row_index("_line").join(facts, on=KEY, how="left", maintain_order="left")
    accepted, mismatched = settle(placed, table)
    if mismatched.height or accepted.height != bets.height:
        raise RuntimeError(f"{mismatched.height} dealt wagers do not settle by the pay table")
    net = accepted.sort("_line")["house_net"].cast(MONEY)
    return (net * 10**MONEY.scale).cast(pl.Int64).to_numpy()


def house_net_units(
    rounds: pa.Table, bets: pa.Table, table_codes: np.ndarray, player_banked: np.ndarray, paytable: PayTable
) -> np.ndarray:
    """Every dealt wager's house net in ten-thousandths; `table_codes` is each bet's table number and
    `player_banked[t]` says whether table t's game is player-banked."""
    units = -money_units(bets["payout"])
    banked = player_banked[table_codes]
    if banked.any():
        round_tables = rounds["table_id"].combine_chunks().indices.to_numpy(zero_copy_only=False)
        some_rounds = as_frame(rounds.filter(pa.array(player_banked[round_tables])))
        units[banked] = settled_units(some_rounds, as_frame(bets.filter(pa.array(banked))), paytable)
    return units
