"""Table events (models.contract.EVENT_SCHEMA) from a chunk's dealt rounds and bets.

Shifts of `sim.shift_hours` from the gaming day's opening; a table's shift with coups gets an
opener at its start, a drop and a closer at its end. Players buy in on sitting down (cash into the
drop box, or a marker), re-buy when their chips run short and leave with what they hold; the tray
pays and collects the wagers' house net, by the warehouse's settlement. Everything is derived after
the dealing, from hashes of the seed, never from the dealing streams.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import polars as pl
import pyarrow as pa

from models.contract import EVENT_KINDS, EVENT_SCHEMA
from models.money_units import CENT, CENT_SCALE, MONEY_SCALE, MONEY_UNIT, arrow_units, decimal64
from models.simulate import count_faults
from models.simulate.cage import DEFAULT_CAGE, Cage, Purses
from models.simulate.config import Simulation
from models.simulate.count_kernel import (
    CHIP,
    FAULT_AMOUNTS,
    FILL,
    FORCED_FILL,
    HIGH,
    LOW,
    PAR,
    PARAMS,
    STEP,
    count_table_days,
)  # fmt: skip
from models.simulate.entries import coup_entries, coup_order
from models.simulate.frames import day_opening
from models.simulate.house_net import house_net_units

#: Chips a tray holds at most of each denomination before the larger ones take the rest.
TRAY = ((5000, 10), (1000, 40), (500, 40), (100, 100), (25, 200), (5, 200), (1, 100), (Decimal("0.25"), 100))
#: Who counts the drop box.
COUNT_TEAM = "C01"


def denominations(cents: int) -> str:
    """The chips making up an amount, `DENOMxCOUNT` tokens from the largest (`chips`, for one amount)."""
    return chips(np.array([cents], np.int64))[0]


def chips(cents: np.ndarray) -> pl.Series:
    """The chips making up each amount, `DENOMxCOUNT` tokens from the largest: a tray's usual stock of
    each denomination first, the smallest first (a tray keeps change for commissions and side bets),
    the largest then taking the rest; odd cents as 0.01 chips."""
    counts, left = {}, cents
    for value, cap in reversed(TRAY):
        worth = int(Decimal(value) * 100)
        counts[value] = np.minimum(cap, left // worth)
        left = left - counts[value] * worth
    for value, _ in TRAY:
        worth = int(Decimal(value) * 100)
        counts[value] = counts[value] + left // worth
        left = left % worth
    counts[Decimal("0.01")] = left
    tokens = [
        pl.when(pl.col(str(value)) != 0).then(pl.format(f"{value}x{{}}", pl.col(str(value))))
        for value in sorted(counts, reverse=True)
    ]
    frame = pl.DataFrame({str(value): count for value, count in counts.items()})
    return frame.select(pl.concat_str(tokens, separator=" ", ignore_nulls=True).alias("denominations")).to_series()


@dataclass(frozen=True)
class Counted:
    """A chunk's table events and the labels of its count faults."""

    events: pl.DataFrame
    labels: pl.DataFrame
    lowest_tray: Decimal  # the tray's lowest level at any moment of the chunk (never below 0)


def _codes(column: pa.ChunkedArray, dtype: type | None = np.int64) -> np.ndarray:
    """A dictionary-encoded column's indices (the number each label was built from), or its values; as
    `dtype`, or as stored when None."""
    values = [chunk.indices if pa.types.is_dictionary(chunk.type) else chunk for chunk in column.chunks]
    parts = [value.to_numpy(zero_copy_only=False) for value in values]
    codes = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return codes if dtype is None else codes.astype(dtype, copy=False)


def _times(column: pa.ChunkedArray) -> np.ndarray:
    return np.concatenate([np.zeros(0, np.int64)] + [c.cast(pa.int64()).to_numpy() for c in column.chunks])


def _runs(*keys: np.ndarray) -> np.ndarray:
    """Where each run of equal consecutive keys starts."""
    change = np.zeros(len(keys[0]), bool)
    change[:1] = True
    for key in keys:
        change[1:] |= key[1:] != key[:-1]
    return np.flatnonzero(change)


def table_events(
    sim: Simulation,
    rounds: pa.Table,
    bets: pa.Table,
    first_day: int,
    purses: Purses,
    fault_rate: float = 0.0,
    cage: Cage = DEFAULT_CAGE,
) -> Counted:
    """The table events of a chunk of whole table-days, as dealt (`first_day`: its first day's index)."""
    tables = sim.tables
    player_banked = np.array([sim.game_of_table(t).player_banked for t in range(tables)])
    r_table, r_shoe, r_round = _codes(rounds["table_id"]), _codes(rounds["shoe_id"]), _codes(rounds["round_no"])
    r_time = _times(rounds["started_at"])
    r_day = first_day + r_shoe // sim.shoes_per_day
    order = coup_order(r_day * tables + r_table, r_time)
    n_coups = len(order)
    b_table = _codes(bets["table_id"], None)  # the wagers' columns as stored: the compiled pass reads any integers
    net = house_net_units(rounds, bets, b_table, player_banked, sim.paytable)
    # coups in table-day and time order; shifts from the gaming day's opening
    c_time, c_table, c_day = r_time[order], r_table[order], r_day[order]
    table_day = c_day * tables + c_table
    # one entry per (coup, player): what they staked and won on it, and where their sittings begin and end
    entries = coup_entries(
        order, (r_shoe, r_table, r_round), table_day, c_time,
        (_codes(bets["shoe_id"], None), b_table, _codes(bets["round_no"], None), _codes(bets["player_id"], None),
         arrow_units(bets["amount"], CENT_SCALE), arrow_units(bets["payout"], MONEY_SCALE), net),
        tables, round(cage.session_gap_minutes * 60 * 1_000_000),
    )  # fmt: skip
    days = np.arange(first_day, int(r_day.max()) + 2 if n_coups else first_day + 1)
    openings = np.array([day_opening(sim, int(day)) for day in days], np.int64) * 1_000_000
    shift_us = round(sim.shift_hours * 3600 * 1_000_000)
    c_open = openings[c_day - first_day]
    c_k = (c_time - c_open) // shift_us
    shift_first = _runs(table_day, c_k)
    coup_shift = np.repeat(np.arange(len(shift_first)), np.diff(np.r_[shift_first, n_coups]))
    s_table, s_day, s_k = c_table[shift_first], c_day[shift_first], c_k[shift_first]
    s_start = c_open[shift_first] + s_k * shift_us
    s_end = np.minimum(s_start + shift_us, openings[s_day - first_day + 1])
    dates = np.array([f"{sim.start + dt.timedelta(days=int(day)):%Y%m%d}" for day in days])
    shift_parts = {"_table": s_table + 1, "_date": dates[s_day - first_day], "_k": s_k + 1}
    shifts = pl.DataFrame({**shift_parts, "player_banked": player_banked[s_table]}).select(
        table_id=pl.format("T{}", pl.col("_table").cast(pl.String).str.zfill(2)),
        shift_id=pl.format("{}-{}", "_date", "_k"),
        player_banked=pl.col("player_banked").cast(pl.Boolean),
    )
    fault = count_faults.pick(shifts, fault_rate, sim.seed)
    (ev_shift, ev_kind, ev_time, ev_amount, ev_player, f_amount, f_coup, f_player, f_event, lowest) = count_table_days(
        coup_shift, c_time, entries.coup_net, entries.coup_entries,
        entries.player, entries.wager, entries.payout, entries.first, entries.last,
        purses.buy_in_cents, purses.credit, purses.repays,
        s_day * tables + s_table, s_start, s_end, fault, _params(cage),
    )  # fmt: skip
    dealers = _dealers(sim, s_table, s_day, s_k)
    events = _frame(shifts, dealers, ev_shift, ev_kind, ev_time, ev_amount, ev_player)
    labels = _labels(shifts, events, fault, f_amount, f_coup, f_player, f_event, rounds, order)
    return Counted(events, labels, Decimal(int(lowest.min()) if len(lowest) else 0) / MONEY_UNIT)


def _params(cage: Cage) -> np.ndarray:
    params = np.zeros(PARAMS, np.int64)
    par = int(cage.par * MONEY_UNIT)
    params[PAR], params[LOW], params[HIGH] = par, int(par * cage.low_share), int(par * cage.high_share)
    params[STEP], params[CHIP] = int(cage.slip_step * MONEY_UNIT), int(cage.chip * MONEY_UNIT)
    params[FORCED_FILL] = int(count_faults.FORCED_FILL * MONEY_UNIT)
    for code, kind in enumerate(count_faults.KINDS, start=1):
        params[FAULT_AMOUNTS + code] = int(count_faults.AMOUNTS[kind] * MONEY_UNIT)
    return params


def _dealers(sim: Simulation, table: np.ndarray, day: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The dealer of each table-shift, as frames.rounds_table rotates them."""
    shifts_per_day = int(np.ceil(24 / sim.shift_hours))
    return (table * sim.dealers_per_table + day * shifts_per_day + k) % (sim.tables * sim.dealers_per_table)


def _frame(shifts, dealers, ev_shift, ev_kind, ev_time, ev_amount, ev_player) -> pl.DataFrame:
    """The events in the contract's columns; event ids number each shift's slips and counts in order."""
    first = np.searchsorted(ev_shift, ev_shift)  # the kernel writes each shift's events together
    kinds = np.array(EVENT_KINDS)[ev_kind]
    cents = ev_amount // CENT
    counted = np.isin(ev_kind, [0, 1, FILL, FILL + 1])  # opener, closer, fill, credit carry chips
    breakdown = pl.select(pl.when(pl.lit(counted)).then(pl.lit(chips(cents)))).to_series()
    frame = pl.DataFrame(
        {
            "_shift": ev_shift,
            "_seq": np.arange(len(ev_shift)) - first + 1,
            "event": kinds,
            "recorded_at": ev_time,
            "amount": pl.from_arrow(decimal64(cents, CENT_SCALE).cast(pa.decimal128(18, CENT_SCALE))),
            "denominations": breakdown,
            "_player": ev_player,
            "_dealer": dealers[ev_shift] if len(ev_shift) else np.zeros(0, np.int64),
        }
    )
    ids = shifts.with_row_index("_shift").with_columns(pl.col("_shift").cast(pl.Int64))
    return (
        frame.join(ids, on="_shift", how="left", maintain_order="left")
        .select(
            "table_id",
            "shift_id",
            event_id=pl.format("{}-{}", pl.col("shift_id"), pl.col("_seq").cast(pl.String).str.zfill(4)),
            event="event",
            recorded_at=pl.from_epoch("recorded_at", time_unit="us").dt.replace_time_zone("UTC"),
            amount="amount",
            denominations="denominations",
            player_id=pl.when(pl.col("_player") >= 0).then(
                pl.format("PL{}", pl.col("_player").cast(pl.String).str.zfill(5))
            ),
            employee_id=pl.when(pl.col("event") == "drop")
            .then(pl.lit(COUNT_TEAM))
            .otherwise(pl.format("D{}", (pl.col("_dealer") + 1).cast(pl.String).str.zfill(3))),
        )
        .cast(EVENT_SCHEMA)
    )


def _labels(shifts, events, fault, f_amount, f_coup, f_player, f_event, rounds: pa.Table, order) -> pl.DataFrame:
    """One label per fault the kernel played (a fault with no coup to play at is not labelled)."""
    played = np.flatnonzero(f_amount != 0)
    if not len(played):
        return count_faults.empty_labels()
    shoe_ids = rounds["shoe_id"].take(pa.array(order[f_coup[played]])).cast(pa.string()).to_pylist()
    round_nos = rounds["round_no"].take(pa.array(order[f_coup[played]])).to_pylist()
    rows = []
    for i, s in enumerate(played):
        kind = count_faults.KINDS[fault[s] - 1]
        slip = None
        if f_event[s] >= 0:
            slip = (events["event_id"][int(f_event[s])], events["amount"][int(f_event[s])])
        player = f"PL{f_player[s]:05d}" if f_player[s] >= 0 else None
        where = f"{shoe_ids[i]}/{round_nos[i]}"
        rows.append(
            (
                shifts["table_id"][int(s)],
                shifts["shift_id"][int(s)],
                kind,
                Decimal(int(f_amount[s])) / MONEY_UNIT,
                count_faults.detail(kind, slip, where, player),
            )
        )
    return pl.DataFrame(rows, schema=count_faults.LABEL_SCHEMA, orient="row")
