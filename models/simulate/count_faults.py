"""Count-room faults: which table-shifts get one, and their labels (`_faults/count_faults_<stem>`).

A shift is picked with probability `rate` by a hash of its natural key (table_id, shift_id) and the
seed, so the choice does not depend on how the run is split; its kind by a second hash. An overpaid
wager needs the house to pay wagers, so player-banked tables draw among the other three kinds.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import polars as pl

from models.money_units import CENTS

KINDS = ("short_fill", "missing_credit_slip", "walked_chips", "overpaid_wager")
#: What each fault takes from the tray: the count's win falls short of the wagers' by this much.
AMOUNTS = {
    "short_fill": Decimal(500),
    "missing_credit_slip": Decimal(2000),
    "walked_chips": Decimal(1000),
    "overpaid_wager": Decimal(100),
}
#: A short fill's slip when no fill was due: the tray is topped up by this much (less the shortfall).
FORCED_FILL = Decimal(5000)
LABEL_SCHEMA = {
    "table_id": pl.String,
    "shift_id": pl.String,
    "kind": pl.String,
    "amount": CENTS,  # the count's win minus the wagers' win the fault causes
    "detail": pl.String,
}


def _uniform(seed: int, salt: int) -> pl.Expr:
    key = pl.concat_str(pl.col("table_id"), pl.col("shift_id"), separator="|")
    return key.hash(seed * 1_000_003 + salt).cast(pl.Float64) / 2.0**64


def pick(shifts: pl.DataFrame, rate: float, seed: int) -> np.ndarray:
    """Each shift's fault code (0: none, else 1 + its index in KINDS); `shifts` has table_id,
    shift_id and player_banked."""
    if rate < 0 or rate > 1:
        raise ValueError(f"the count-fault rate is a share of table-shifts, 0 to 1, got {rate}")
    if rate == 0 or shifts.height == 0:
        return np.zeros(shifts.height, np.int8)
    kinds = pl.when(pl.col("player_banked")).then(len(KINDS) - 1).otherwise(len(KINDS))
    codes = shifts.select(
        pl.when(_uniform(seed, 11) < rate).then((_uniform(seed, 12) * kinds).cast(pl.Int64) + 1).otherwise(0)
    )
    return codes.to_series().to_numpy().astype(np.int8)


def detail(kind: str, slip: tuple[str, Decimal] | None, where: str, player: str | None) -> str:
    """What happened, as a reviewer reads it."""
    taken = f"{AMOUNTS[kind]:,.2f}"
    if kind == "short_fill" and slip is not None:
        return f"fill slip {slip[0]} says {slip[1]:,.2f}; the tray got {slip[1] - AMOUNTS[kind]:,.2f}"
    if kind == "missing_credit_slip":
        return f"{taken} in chips went from the tray to the cage with no credit slip, after round {where}"
    if kind == "walked_chips":
        return f"{taken} in chips taken from the tray after round {where}"
    return f"a winning wager of {player} on round {where} paid {taken} more than the pay table"


def empty_labels() -> pl.DataFrame:
    return pl.DataFrame(schema=LABEL_SCHEMA)
