"""Coups numbered shoe by shoe: the order the shoe walks need, and each wager's coup found by that
number rather than by joining ten million rows on their text keys.

Rows arrive with each shoe's coups mostly together (a shoe is cut only where a file ends), so a
shoe is found where its table or shoe id changes from the row before: the few hundred thousand such
stretches are matched to shoes by name, and everything else is arithmetic on their numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from numba import njit

from models.gaming_day import GamingDay, gaming_day
from models.logs.arrow_text import buffers, length, offset_of

SHOE = ["table_id", "shoe_id"]


@dataclass(frozen=True)
class Coups:
    """The coups as given plus `gaming_day` and `shoe_day` (`rows`), each one's number `key` (shoe by
    shoe in shoe order, round by round: ascending keys are the shoe walks' order), `at` (the row of
    each number, -1 for a round no coup has) and `shoes` (per shoe in shoe order: its ids, `shoe_day`,
    `base`, the number of its round 0, and its first and last round, `lo` and `hi`)."""

    rows: pl.DataFrame
    key: np.ndarray  # int64, one per row
    at: np.ndarray  # int32, one per number
    shoes: pl.DataFrame

    def order(self) -> pl.Series:
        """The rows' positions sorted by shoe day, table, shoe and round."""
        return pl.Series(self.key).arg_sort()


def number(rounds: pl.DataFrame, day: GamingDay) -> Coups | None:
    """The coups numbered by shoe (shoes in order of gaming day, table and shoe, as the marts store
    them); None when two rows share a coup's key, or past 2**31 rows (the callers then join as before)."""
    rounds = rounds.rechunk()  # every pass below reads whole columns: a chunked one costs several times more
    starts = changes(rounds["table_id"], rounds["shoe_id"])
    heads = np.flatnonzero(starts)
    segment = np.cumsum(starts) - 1
    days = rounds.select(gaming_day(pl.col("started_at"), day)).to_series()
    round_no = rounds["round_no"].to_numpy().astype(np.int64)
    stretches = rounds[heads].select(
        *SHOE,
        day=pl.Series(np.minimum.reduceat(days.to_physical().to_numpy(), heads), dtype=pl.Int32).cast(pl.Date),
        lo=pl.Series(np.minimum.reduceat(round_no, heads)),
        hi=pl.Series(np.maximum.reduceat(round_no, heads)),
    )
    span = pl.col("hi") - pl.col("lo") + 1
    shoes = (
        stretches.group_by(SHOE)
        .agg(shoe_day=pl.col("day").min(), lo=pl.col("lo").min(), hi=pl.col("hi").max())
        .sort("shoe_day", *SHOE)
        .with_columns(base=span.cum_sum() - span - pl.col("lo"))
    )
    placed = stretches.join(shoes, on=SHOE, how="left", maintain_order="left")
    key = placed["base"].to_numpy()[segment] + round_no
    size = int((shoes["hi"] - shoes["lo"] + 1).sum())
    if len(key) >= 2**31:
        return None
    at = np.full(size, -1, np.int32)
    at[key] = np.arange(len(key), dtype=np.int32)
    if np.count_nonzero(at >= 0) != len(key):
        return None
    rows = rounds.with_columns(days, shoe_day=placed["shoe_day"].gather(pl.Series(segment)))
    return Coups(rows=rows, key=key, at=at, shoes=shoes)


def changes(*columns: pl.Series) -> np.ndarray:
    """Per row: whether any column differs from the row before (the first row: True). Text is
    compared by its Arrow view, and by its bytes where two views of long text differ."""
    out = np.zeros(len(columns[0]), np.bool_)
    for column in columns:
        if column.dtype == pl.String:
            _mark_text_changes(*buffers(column), out)
        else:
            values = column.to_physical().fill_null(0).to_numpy().astype(np.int64)
            _mark_changes(values.view(np.uint64).reshape(-1, 1), out)
        if column.null_count():
            _mark_changes(column.is_null().to_numpy().astype(np.uint64).reshape(-1, 1), out)
    if len(out):
        out[0] = True
    return out


@njit(cache=True, nogil=True)
def _mark_changes(words, out):
    """words: uint64 (n, k), a row's value; out: bool (n,), set where row i differs from row i - 1."""
    for i in range(1, words.shape[0]):
        for j in range(words.shape[1]):
            if words[i, j] != words[i - 1, j]:
                out[i] = True
                break


@njit(cache=True, nogil=True)
def _mark_text_changes(view, data, starts, out):
    """view: uint8 (n, 16), Arrow string views; data: uint8, their buffers end to end, each from
    `starts`; out: bool (n,), set where row i's text differs from row i - 1's."""
    words = view.view(np.uint64)
    for i in range(1, view.shape[0]):
        if words[i, 0] == words[i - 1, 0] and words[i, 1] == words[i - 1, 1]:
            continue
        size = length(view[i])
        # views that differ hold different text, unless the text is long (past 12 bytes: in the
        # views only its length and first 4 bytes, which agree) and sits at two places
        if size <= 12 or words[i, 0] != words[i - 1, 0]:
            out[i] = True
            continue
        at, before = offset_of(view[i], starts), offset_of(view[i - 1], starts)
        for k in range(size):
            if data[at + k] != data[before + k]:
                out[i] = True
                break
