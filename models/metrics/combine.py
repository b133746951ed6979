"""The marts of every shard of a day made one: what `compute_marts` over all the coups would give.

Most marts are local to a table, shoe or dealer's stint at a table, and a shard holds whole
tables, so the shards' rows are simply put together. Two marts group dealers, who work tables of
several shards: their sums are totalled again, as are the players' bets; a player's day is taken
again from their ratings (each local to a table). The false-discovery flags compare every table (or
shoe) of a day, so they are taken again over the whole day, as are surveillance's players' days and
flags from the ratings' evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from functools import partial

import polars as pl

from models.metrics.count_room import DAY_ORDER as COUNT_DAY_ORDER
from models.metrics.count_room import SHIFT_ORDER
from models.metrics.decisions import ORDER as DECISIONS_ORDER
from models.metrics.decisions import SUMMARY_ORDER
from models.metrics.money import commission_totals
from models.metrics.pace import ORDER as PACE_ORDER
from models.metrics.pace import dealer_pace_combined
from models.metrics.players import BETS_ORDER, DAY_ORDER, SESSION_ORDER, player_bets_retotalled, player_day
from models.metrics.side_bets import ORDER as SIDE_BETS_ORDER
from models.metrics.surveillance import surveillance_flags, surveillance_player_day
from models.metrics.ties import tie_statistics, with_flags
from models.settings import DEFAULTS
from models.warehouse import schema

DAY = ("gaming_day",)
BY_DEALER = ("dealer_id", "gaming_day")


def concatenated(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """A mart local to a table (or finer): the shards' rows together."""
    return pl.concat(frames, how="vertical")


def commission_retotalled(frames: Sequence[pl.DataFrame], by: Sequence[str]) -> pl.DataFrame:
    """A commission mart of groups across shards: the shards' sums (which pool exactly) totalled per `by`."""
    return commission_totals(pl.concat(frames, how="vertical").lazy(), by)


def ties_resummed(frames: Sequence[pl.DataFrame], by: Sequence[str]) -> pl.DataFrame:
    """A tie mart of groups across shards: the shards' counts summed, the statistics taken again."""
    together = pl.concat(frames, how="vertical")
    counts = together.lazy().group_by(*by, "game", "decks").agg(pl.col("coups", "ties").sum())
    counts = counts.cast({"coups": together.schema["coups"], "ties": together.schema["ties"]})
    return tie_statistics(counts, by, compared_within=DAY)


def ties_reflagged(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """A tie mart local to a table or shoe: the shards' rows together, flagged again over each whole day."""
    return with_flags(pl.concat(frames, how="vertical"), compared_within=DAY)


Combining = Callable[[Sequence[pl.DataFrame]], pl.DataFrame]

#: Per mart: how its shards' frames combine, and the columns `compute_marts` sorts it by.
COMBINED: dict[str, tuple[Combining, tuple[str, ...]]] = {
    schema.MARTS_DECISION_RUNS: (concatenated, ("gaming_day", "table_id", "shoe_id", "run")),
    schema.MARTS_BANKER_STREAKS: (concatenated, ("gaming_day", "table_id", "shoe_id", "tenure")),
    schema.MARTS_COMMISSION: (concatenated, ("table_id", "gaming_day", "game")),
    schema.MARTS_COMMISSION_BY_DEALER: (partial(commission_retotalled, by=BY_DEALER), (*BY_DEALER, "game")),
    schema.MARTS_TABLE_DAY: (concatenated, ("table_id", "gaming_day", "game")),
    schema.MARTS_DEALER_DAY: (concatenated, ("gaming_day", "dealer_id", "table_id", "game")),
    schema.MARTS_SHOE_SUMMARY: (concatenated, ("table_id", "shoe_id")),
    schema.MARTS_TIE_FREQUENCY_BY_SHOE: (ties_reflagged, ("table_id", "shoe_id", "gaming_day", "game", "decks")),
    schema.MARTS_TIE_FREQUENCY: (ties_reflagged, ("table_id", "gaming_day", "game", "decks")),
    schema.MARTS_TIE_FREQUENCY_BY_DEALER: (partial(ties_resummed, by=BY_DEALER), (*BY_DEALER, "game", "decks")),
    schema.MARTS_TIES_BY_TOTAL: (concatenated, ("table_id", "gaming_day", "game", "decks", "tie_total")),
    schema.MARTS_COMMISSION_PER_UNIT: (concatenated, ("table_id", "gaming_day", "game")),
    schema.MARTS_PLAYER_SESSIONS: (concatenated, SESSION_ORDER),
    schema.MARTS_PLAYER_BETS: (player_bets_retotalled, BETS_ORDER),
    schema.MARTS_SIDE_BETS: (concatenated, SIDE_BETS_ORDER),
    # the house median pace is over every table of the day
    schema.MARTS_DEALER_PACE: (dealer_pace_combined, PACE_ORDER),
    schema.MARTS_COUP_EDGES: (concatenated, ("table_id", "shoe_id", "round_no")),
    # a decision, a punter's day at a table and a bank tenure are local to a table
    schema.MARTS_DECISIONS: (concatenated, DECISIONS_ORDER),
    schema.MARTS_DECISION_SUMMARY: (concatenated, SUMMARY_ORDER),
    schema.MARTS_SURVEILLANCE_SESSIONS: (concatenated, ("table_id", "player_id", "session")),
    # the count room's: a shift and a table's day are local to a table
    schema.MARTS_TABLE_SHIFT: (concatenated, SHIFT_ORDER),
    schema.MARTS_COUNT_ROOM: (concatenated, COUNT_DAY_ORDER),
}


def players_days(marts: Mapping[str, pl.DataFrame], comp_rate: Decimal, fdr: float) -> pl.DataFrame:
    return player_day(marts[schema.MARTS_PLAYER_SESSIONS], comp_rate)


def watched_days(marts: Mapping[str, pl.DataFrame], comp_rate: Decimal, fdr: float) -> pl.DataFrame:
    return surveillance_player_day(marts[schema.MARTS_SURVEILLANCE_SESSIONS])


def flags(marts: Mapping[str, pl.DataFrame], comp_rate: Decimal, fdr: float) -> pl.DataFrame:
    sessions, days = marts[schema.MARTS_SURVEILLANCE_SESSIONS], marts[schema.MARTS_SURVEILLANCE_PLAYER_DAY]
    return surveillance_flags(sessions, days, fdr)


Deriving = Callable[[Mapping[str, pl.DataFrame], Decimal, float], pl.DataFrame]

#: Marts taken again from the combined ones (`combine`; given them, the comp rate and the
#: false-discovery rate), in this order: a player's day from their ratings, surveillance's
#: player-days and flags over the whole day (the flags in the order they come).
DERIVED: dict[str, tuple[Deriving, tuple[str, ...]]] = {
    schema.MARTS_PLAYER_DAY: (players_days, DAY_ORDER),
    schema.MARTS_SURVEILLANCE_PLAYER_DAY: (watched_days, ("player_id",)),
    schema.MARTS_SURVEILLANCE_FLAGS: (flags, ()),
}


def combine(
    parts: Sequence[Mapping[str, pl.DataFrame]],
    comp_rate: Decimal = DEFAULTS.comp_rate,
    fdr: float = DEFAULTS.surveillance_fdr,
) -> dict[str, pl.DataFrame]:
    """Each shard's marts (`compute_marts` over its coups alone, of one day or several) made the
    marts of all the coups: in gaming-day order, and within a day as `compute_marts` sorts them
    (`comp_rate` and `fdr`: the players' comp reinvestment rate and surveillance's false-discovery
    rate the shards' marts were built with)."""
    if not parts:
        return {}
    names = set().union(*parts)
    if unknown := sorted(names - COMBINED.keys() - DERIVED.keys()):
        raise ValueError(f"no way to combine the shards' {', '.join(unknown)}")
    if missing := sorted(name for name in names if any(name not in part for part in parts)):
        raise ValueError(f"some shards have no {', '.join(missing)}: every shard's marts are needed")
    combined = {}
    for name, (how, order) in COMBINED.items():
        if name in names:
            combined[name] = how([part[name] for part in parts]).sort(*dict.fromkeys((*DAY, *order)))
    for name, (derive, order) in DERIVED.items():
        if name in names:
            derived = derive(combined, comp_rate, fdr)
            combined[name] = derived.sort(*dict.fromkeys((*DAY, *order)), maintain_order=True) if order else derived
    return combined
