"""Duplicates by natural key: exact copies are counted, copies with other content quarantined."""

from __future__ import annotations

import numpy as np
import polars as pl
from numba import njit, types
from numba.typed import Dict

from models.warehouse.columns import frame_schema
from models.warehouse.staging import StoredShoes


def row_hash(columns: list[str], seed: int, table: str | None = None) -> pl.Expr:
    """A 64-bit hash of each row's `columns`. With `table`, each column is first taken in the
    table's type, so parsed rows and stored rows hash alike."""
    types = frame_schema(table) if table else {}
    return pl.struct(pl.col(name).cast(types[name]) if name in types else pl.col(name) for name in columns).hash(seed)


def _in_round_order(frame: pl.DataFrame) -> bool:
    """Whether each shoe's rows (by `_shoe`) come together, their rounds rising: then no natural
    key is there twice."""
    if frame.height == 0 or "round_no" not in frame.columns or frame["round_no"].null_count():
        return False
    shoes = frame["_shoe"].to_numpy().view(np.int64)
    return bool(_runs_rise(shoes, frame["round_no"].to_numpy().astype(np.int64)))


@njit(cache=True)
def _runs_rise(shoes, rounds) -> bool:
    seen = Dict.empty(key_type=types.int64, value_type=types.boolean)
    seen[shoes[0]] = True
    for i in range(1, shoes.shape[0]):
        if shoes[i] == shoes[i - 1]:
            if rounds[i] <= rounds[i - 1]:
                return False
        elif shoes[i] in seen:  # the shoe came back after another one
            return False
        else:
            seen[shoes[i]] = True
    return True


def split_duplicates(con, frame: pl.DataFrame, stored_shoes: StoredShoes, key: list[str], content: list[str]):
    """(new rows, duplicate count, conflicting rows): within the frame (with `_shoe`; first line wins) and
    against rows already stored. Content is compared by hash, and hashed only where a key is met
    twice: the usual batch has no key twice and shares no shoe with stored rows."""
    content_hash = row_hash(content, 20261129, stored_shoes.table)
    # The usual case: no key twice. A log in shoe and round order proves it in one pass; else
    # distinct hashes do (a collision only sends a batch down the exact path below).
    if _in_round_order(frame) or frame.select(row_hash(key, 7).n_unique()).item() == frame.height:
        first, duplicates, conflicts = frame, 0, frame.head(0)
    else:
        frame = frame.sort("_line").with_columns(
            _first_line=pl.col("_line").first().over(key), _seen=pl.int_range(pl.len()).over(key)
        )
        repeated = (
            frame.filter(pl.len().over(key) > 1)
            .with_columns(_hash=content_hash)
            .with_columns(_first_hash=pl.col("_hash").first().over(key))
            .filter(pl.col("_seen") > 0)
        )
        duplicates = repeated.filter(pl.col("_hash") == pl.col("_first_hash")).height
        conflicts = repeated.filter(pl.col("_hash") != pl.col("_first_hash")).with_columns(
            reason=pl.lit("conflicting_duplicate"),
            detail=pl.format("logged again with other content (first at line {})", pl.col("_first_line")),
        )
        first = frame.filter(pl.col("_seen") == 0).drop("_first_line", "_seen")
    candidates = stored_shoes.known(first)
    if candidates.height == 0:  # no shoe of the batch has stored rows: nothing to look up
        return first, duplicates, conflicts
    candidates = candidates.select(*key, "_shoe", "_line", _hash=content_hash)
    stored = stored_shoes.rows(con, candidates, list(dict.fromkeys([*key, *content, "source_file"])))
    stored = (
        stored.with_columns(stored_hash=content_hash)
        .select(*key, "stored_hash", stored_in="source_file")
        .cast({name: candidates.schema[name] for name in key})
    )
    # Compared on the few rows of shoes with stored rows: the batch's own columns are touched only
    # when some key is stored already.
    known = candidates.join(stored, on=key, how="inner", nulls_equal=True)
    if known.height == 0:
        return first, duplicates, conflicts
    duplicates += known.filter(pl.col("stored_hash") == pl.col("_hash")).height
    clashing = known.filter(pl.col("stored_hash") != pl.col("_hash")).select("_line", "stored_in")
    conflicts = pl.concat(
        [
            conflicts,
            first.join(clashing, on="_line").with_columns(
                reason=pl.lit("conflicting_duplicate"),
                detail=pl.format("already stored with other content from {}", pl.col("stored_in")),
            ),
        ],
        how="diagonal_relaxed",
    )
    return first.join(known.select("_line"), on="_line", how="anti"), duplicates, conflicts
