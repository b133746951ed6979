"""The count room: each table-shift's count (drop, fills, credits, opener, closer) beside the win its
wagers say, and each table's gaming day (docs/metrics.md, Count room).

win = drop + credits - fills + (closer - opener), with drop = drop box + markers - marker payments.
The difference from the wagers' house win is attributed (count_attribution.py): what the quarantined
coups' wagers took, mispays, coups missing from the log, and the unexplained rest. A shift is
`explained` when the logs account for its difference, `unreconciled` when a remainder beyond the
tolerance (by default one chip of the smallest denomination its trays held, at most MAX_TOLERANCE)
or a mispay is left.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

import polars as pl

from models.count_status import AGREED, EXPLAINED, NO_CLOSER, NO_OPENER, OVERLAPPING, RECONCILED, UNRECONCILED
from models.gaming_day import GamingDay, gaming_day
from models.logs.denominations import smallest
from models.metrics import count_attribution
from models.money_units import CENTS, MONEY, THEO
from models.ratios import pct, quarantined_pct

#: The count's amounts (the slips' and counts' own decimals).
COUNT = CENTS
SHIFT = ("table_id", "shift_id")
COUP = ("table_id", "shoe_id", "round_no")
#: The tolerance where neither a setting nor the trays' denominations say: one unit.
DEFAULT_TOLERANCE = Decimal(1)
#: The most the trays' chips make the tolerance: a tray listing only large chips (or a slip that lists
#: one) must not excuse a shortfall; a room whose smallest chip is larger sets BANCO_COUNT_TOLERANCE.
MAX_TOLERANCE = Decimal(25)

#: How marts.table_shift is ordered (combine.py sorts the shards' rows alike).
SHIFT_ORDER = ("gaming_day", "table_id", "opened_at", "shift_id")
DAY_ORDER = ("table_id", "gaming_day", "game")
DEFAULT_DAY = GamingDay()

SHIFT_SCHEMA = {
    "table_id": pl.String, "shift_id": pl.String, "gaming_day": pl.Date, "game": pl.String,
    "opened_at": pl.Datetime("us", "UTC"), "closed_at": pl.Datetime("us", "UTC"), "coups": pl.UInt32,
    "opener": COUNT, "closer": COUNT, "fills": COUNT, "credits": COUNT, "drop_box": COUNT, "markers": COUNT,
    "marker_payments": COUNT, "drop": COUNT, "win": COUNT, "hold_pct": pl.Float64, "handle": COUNT,
    "wagers_win": MONEY, "theo": THEO, "theo_hold_pct": pl.Float64, "win_variance": pl.Float64,
    "difference": MONEY, "tolerance": MONEY, "reconciled": pl.Boolean, "status": pl.String,
    "quarantined_coups": pl.UInt32, "quarantined_reasons": pl.String, "quarantined_handle": MONEY,
    "quarantined_win": MONEY, "quarantined_stake": MONEY, "mispaid": MONEY, "mispaid_wagers": pl.UInt32,
    "missing_coups": pl.UInt32, "wagers_not_dealt": pl.UInt32, "unexplained": MONEY, "attribution": pl.String,
}  # fmt: skip
#: The attribution's columns (count_attribution.by_shift), zero where a shift has nothing to attribute.
_ATTRIBUTED = ("quarantined_coups", "quarantined_handle", "quarantined_win", "quarantined_stake", "mispaid",
               "mispaid_wagers", "missing_coups", "wagers_not_dealt")  # fmt: skip
#: The count's sums a day adds up from its shifts.
SUMS = ("fills", "credits", "drop_box", "markers", "marker_payments", "drop", "handle", "wagers_win", "theo")


def shift_wagers(bets: pl.DataFrame, coups: pl.DataFrame, variance: pl.DataFrame) -> pl.DataFrame:
    """Each wager's amount, house_net and theo with the house's variance per unit of its bet (for the
    game and the shoe's decks: `variance` is game, decks, bet -> house_variance), as money.py joins it."""
    decks = coups.select(*COUP, pl.col("decks").cast(pl.Int8))
    return (
        bets.lazy()
        .select(*COUP, "game", "bet", "amount", "house_net", "theo")
        .join(decks.lazy(), on=list(COUP), how="inner")
        .join(variance.lazy().with_columns(pl.col("decks").cast(pl.Int8)), on=["game", "decks", "bet"], how="left")
        .select(*COUP, "amount", "house_net", "theo", "house_variance")
        .collect()
    )


def table_shifts(
    events: pl.DataFrame,
    coups: pl.DataFrame,
    wagers: pl.DataFrame,
    day: GamingDay = DEFAULT_DAY,
    tolerance: Decimal | None = None,
    quarantined: tuple[pl.DataFrame, pl.DataFrame] | None = None,
    days: Sequence[dt.date] | None = None,
) -> pl.DataFrame:
    """marts.table_shift: one row per (table_id, shift_id) of `events` (core.table_events' columns)
    opened on gaming days `days` (all when None), its count, and the wagers of its coups (`coups`:
    table_id, shoe_id, round_no, started_at, game; `wagers`: `shift_wagers`), the difference
    attributed to the quarantined coups and wagers (`quarantined`: count_attribution's `read_coups`
    and `quarantined_wagers`, none when None); `tolerance` overrides the trays' smallest chip."""
    shifts = _counted(events, day)
    located = locate(shifts, coups.select(*COUP, "started_at", "game"), keep=("game",))
    played = located.group_by(SHIFT).agg(
        coups=pl.len().cast(pl.UInt32),
        # the game most of its coups were dealt at (a change of game mid-shift is rare)
        game=pl.col("game").mode().sort().first(),
    )
    staked = (
        wagers.lazy()
        .join(located.lazy().select(*COUP, "shift_id"), on=list(COUP), how="inner")
        .group_by(SHIFT)
        .agg(
            handle=pl.col("amount").sum(),
            wagers_win=pl.col("house_net").sum(),
            theo=pl.col("theo").sum(),
            win_variance=(pl.col("amount").cast(pl.Float64) ** 2 * pl.col("house_variance")).sum(),
        )
        .collect()
    )
    q_coups, q_wagers = quarantined or (
        pl.DataFrame(schema=count_attribution.COUP_SCHEMA),
        pl.DataFrame(schema=count_attribution.WAGER_SCHEMA),
    )
    placed = locate(shifts, count_attribution.placeable(located, q_coups, q_wagers), keep=("reason", "_wager"))
    attributed = count_attribution.by_shift(placed, located)
    complete = pl.col("opened_at").is_not_null() & pl.col("closed_at").is_not_null()
    chips = (
        pl.when(pl.col("smallest_chip") > MAX_TOLERANCE).then(pl.lit(MAX_TOLERANCE, MONEY)).otherwise("smallest_chip")
    )
    allowed = pl.lit(tolerance, MONEY) if tolerance is not None else chips
    difference = pl.col("win").cast(MONEY) - pl.col("wagers_win")
    beyond = pl.col("unexplained").abs() > pl.col("tolerance") + pl.col("quarantined_stake")
    joined = shifts.join(played, on=SHIFT, how="left").join(staked, on=SHIFT, how="left")
    joined = joined.join(attributed, on=SHIFT, how="left")
    if days is not None:  # the shifts around the days placed their coups; only the days' are reckoned
        joined = joined.filter(pl.col("gaming_day").is_in(list(days)))
    return (
        joined.with_columns(
            pl.col("coups").fill_null(0),
            pl.col("handle", "wagers_win", "theo").fill_null(0),
            pl.col("win_variance").fill_null(0.0),
            pl.col(_ATTRIBUTED).fill_null(0),
            win=pl.when(complete).then(
                pl.col("drop") + pl.col("credits") - pl.col("fills") + pl.col("closer") - pl.col("opener")
            ),
            tolerance=allowed.fill_null(pl.lit(DEFAULT_TOLERANCE, MONEY)),
        )
        .with_columns(
            hold_pct=pct("win", "drop"),
            theo_hold_pct=pct("theo", "drop"),
            difference=difference.cast(MONEY),
        )
        .with_columns(
            # a mispay is paid back here, never explained: the count is short of it
            unexplained=(pl.col("difference") - pl.col("quarantined_win") + pl.col("mispaid")).cast(MONEY),
        )
        .with_columns(
            status=pl.when(pl.col("opened_at").is_null())
            .then(pl.lit(NO_OPENER))
            .when(pl.col("closed_at").is_null())
            .then(pl.lit(NO_CLOSER))
            .when(pl.col("overlapping"))
            .then(pl.lit(OVERLAPPING))
            .when(beyond | (pl.col("mispaid") != 0))
            .then(pl.lit(UNRECONCILED))
            .when(pl.col("difference").abs() > pl.col("tolerance"))
            .then(pl.lit(EXPLAINED))
            .otherwise(pl.lit(RECONCILED))
        )
        .with_columns(
            reconciled=pl.col("status").is_in(AGREED),
            attribution=pl.struct(*count_attribution.WORDED).map_elements(
                count_attribution.in_words, return_dtype=pl.String, skip_nulls=False
            ),
        )
        .select(pl.col(name).cast(dtype) for name, dtype in SHIFT_SCHEMA.items())
        .sort(SHIFT_ORDER)
    )


def shift_spans(
    events: pl.DataFrame, day: GamingDay = DEFAULT_DAY, days: Sequence[dt.date] | None = None
) -> pl.DataFrame:
    """When the coups of the shifts of gaming days `days` (all when None) were dealt: table_id,
    since, until (null: open-ended), one row a shift, for reading only those coups."""
    shifts = _counted(events, day)
    if days is not None:
        shifts = shifts.filter(pl.col("gaming_day").is_in(list(days)))
    return shifts.filter(pl.col("since").is_not_null()).select("table_id", "since", "until")


def coups_in_spans(rounds: pl.DataFrame, spans: pl.DataFrame) -> pl.DataFrame:
    """The rows of `rounds` (table_id, started_at, ...) dealt within any of `spans` (table_id,
    since, until: `shift_spans`; a null until is open-ended), each once: a coup is within one when
    the furthest until among its table's spans begun by then lies after it."""
    utc = pl.Datetime("us", "UTC")
    reach = (
        spans.lazy()
        .select(
            "table_id",
            pl.col("since").cast(utc),
            _until=pl.col("until").cast(utc).fill_null(pl.lit(dt.datetime.max).cast(utc)),
        )
        .sort("table_id", "since")
        .select("table_id", "since", _reach=pl.col("_until").cum_max().over("table_id"))
        .sort("since")
    )
    return (
        rounds.lazy()
        .with_columns(_at=pl.col("started_at").cast(utc))
        .sort("_at")
        .join_asof(reach, left_on="_at", right_on="since", by="table_id", strategy="backward", check_sortedness=False)
        .filter(pl.col("_at") < pl.col("_reach"))
        .select(rounds.columns)
        .collect()
    )


def _counted(events: pl.DataFrame, day: GamingDay) -> pl.DataFrame:
    """Each shift's count from its events, its gaming day, and the span its coups are taken from."""
    kind, amount, at = pl.col("event"), pl.col("amount").cast(COUNT), pl.col("recorded_at")

    # summed wide, cast to COUNT as a shift's row is made (table_shifts): a shift read only for its
    # times, around the days built, never fails on its sums
    def total(name: str) -> pl.Expr:
        return amount.filter(kind == name).sum()

    trays = kind.is_in(["opener", "closer"]) & pl.col("denominations").is_not_null()
    shifts = (
        events.lazy()
        .with_columns(at.dt.convert_time_zone("UTC"))
        .sort("recorded_at")
        .group_by(SHIFT)
        .agg(
            opened_at=at.filter(kind == "opener").first(),
            closed_at=at.filter(kind == "closer").last(),
            first_at=at.min(),
            opener=amount.filter(kind == "opener").first(),
            closer=amount.filter(kind == "closer").last(),
            fills=total("fill"),
            credits=total("credit"),
            drop_box=total("drop"),
            markers=total("marker"),
            marker_payments=total("marker_payment"),
            smallest_chip=smallest(pl.col("denominations").filter(trays)).min().cast(MONEY),
        )
        .with_columns(
            drop=pl.col("drop_box") + pl.col("markers") - pl.col("marker_payments"),
            # a shift belongs wholly to the gaming day it opened in (without an opener, its first event's)
            started=pl.coalesce("opened_at", "first_at"),
        )
        .with_columns(gaming_day(pl.col("started"), day))
        .sort("table_id", "started", "shift_id")
        .with_columns(
            # the coups of a shift without an opener run from the previous shift's closer; of one without
            # a closer, to the next shift's start (or on, while it is the table's last)
            since=pl.coalesce("opened_at", pl.col("closed_at").shift(1).over("table_id")),
            until=pl.coalesce("closed_at", pl.col("started").shift(-1).over("table_id")),
        )
        .with_columns(
            # a shift opened while an earlier one of its table was still open: reported, its coups left
            # to the earlier one, so that every coup belongs to one shift
            overlapping=pl.col("opened_at").is_not_null()
            & (pl.col("opened_at") < _reach(pl.col("until")).shift(1).over("table_id")).fill_null(False)
        )
        .collect()
    )
    return shifts


def _reach(until: pl.Expr) -> pl.Expr:
    """The latest until so far (an open end as the latest instant)."""
    utc = pl.Datetime("us", "UTC")
    return until.cast(utc).fill_null(pl.lit(dt.datetime.max).cast(utc)).cum_max()


def locate(shifts: pl.DataFrame, rows: pl.DataFrame, keep: Sequence[str] = ()) -> pl.DataFrame:
    """Each of `rows` (table_id, shoe_id, round_no, started_at, *keep) with the one shift it was dealt in:
    the table's shift with since <= started_at < until (null: open-ended); where two hold it, the one
    opened first (an overlapping shift takes only the coups after the earlier one closed)."""
    dealt = rows.select(*COUP, pl.col("started_at").dt.convert_time_zone("UTC"), *keep).sort("started_at")
    placed = []
    for overlapping in (False, True):
        spans = (
            shifts.filter(pl.col("since").is_not_null() & (pl.col("overlapping") == overlapping))
            .select("table_id", "shift_id", "since", "until")
            .sort("since")
        )
        within = dealt.join_asof(
            spans, left_on="started_at", right_on="since", by="table_id", strategy="backward", check_sortedness=False
        ).filter(
            pl.col("shift_id").is_not_null() & (pl.col("until").is_null() | (pl.col("started_at") < pl.col("until")))
        )
        placed.append(within.select(*COUP, "started_at", "shift_id", *keep))
        if not shifts["overlapping"].any():
            break
        dealt = dealt.join(within.select(COUP), on=list(COUP), how="anti")
    return pl.concat(placed)


def count_room(table_shift: pl.DataFrame) -> pl.DataFrame:
    """marts.count_room: marts.table_shift's rows added up per table, gaming day and game (a shift
    without coups takes its table's game of the shifts around it). A day's win and difference are
    null while one of its shifts has none (no opener or no closer)."""
    known = pl.col("win").null_count() == 0
    return (
        table_shift.lazy()
        .sort("table_id", pl.coalesce("opened_at", "closed_at"), "shift_id")
        .with_columns(pl.col("game").forward_fill().backward_fill().over("table_id"))
        .group_by("table_id", "gaming_day", "game")
        .agg(
            *(pl.col(name).sum() for name in SUMS),
            shifts=pl.len().cast(pl.UInt32),
            coups=pl.col("coups").sum().cast(pl.UInt32),
            opener=pl.col("opener").first(),
            closer=pl.col("closer").last(),
            win=pl.when(known).then(pl.col("win").sum()),
            win_variance=pl.col("win_variance").sum(),
            difference=pl.when(known).then(pl.col("difference").sum()),
            unreconciled_shifts=(~pl.col("reconciled")).sum().cast(pl.UInt32),
            explained_shifts=(pl.col("status") == EXPLAINED).sum().cast(pl.UInt32),
            reconciled=pl.col("reconciled").all(),
            quarantined_coups=pl.col("quarantined_coups").sum().cast(pl.UInt32),
            quarantined_win=pl.col("quarantined_win").sum(),
            quarantined_handle=pl.col("quarantined_handle").sum(),
            mispaid=pl.col("mispaid").sum(),
            unexplained=pl.when(known).then(pl.col("unexplained").sum()),
        )
        .with_columns(
            hold_pct=pct("win", "drop"),
            theo_hold_pct=pct("theo", "drop"),
            quarantined_handle_pct=quarantined_pct("quarantined_handle", "handle"),
        )
        .select(pl.col(name).cast(dtype) for name, dtype in DAY_SCHEMA.items())
        .sort(DAY_ORDER)
        .collect()
    )


DAY_SCHEMA = {
    "table_id": pl.String, "gaming_day": pl.Date, "game": pl.String, "shifts": pl.UInt32, "coups": pl.UInt32,
    "opener": COUNT, "closer": COUNT, "fills": COUNT, "credits": COUNT, "drop_box": COUNT, "markers": COUNT,
    "marker_payments": COUNT, "drop": COUNT, "win": COUNT, "hold_pct": pl.Float64, "handle": COUNT,
    "wagers_win": MONEY, "theo": THEO, "theo_hold_pct": pl.Float64, "win_variance": pl.Float64,
    "difference": MONEY, "unreconciled_shifts": pl.UInt32, "reconciled": pl.Boolean,
    "explained_shifts": pl.UInt32, "quarantined_coups": pl.UInt32, "quarantined_handle_pct": pl.Float64,
    "quarantined_win": MONEY, "mispaid": MONEY, "unexplained": MONEY,
}  # fmt: skip
