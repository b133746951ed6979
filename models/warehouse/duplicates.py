"""Duplicates by natural key: exact copies are counted, copies with other content quarantined."""

from __future__ import annotations

import polars as pl

from models.warehouse.staging import StoredShoes


def split_duplicates(con, frame: pl.DataFrame, stored_shoes: StoredShoes, key: list[str], content: list[str]):
    """(new rows, duplicate count, conflicting rows): within the frame (first line wins) and
    against rows already stored."""
    frame = frame.with_columns(content_hash=pl.struct(content).hash(seed=20261129))
    # The usual case: no key twice. Distinct hashes prove it (a collision only sends a batch down
    # the exact path below).
    if frame.select(pl.struct(key).hash(seed=7).n_unique()).item() == frame.height:
        frame = frame.with_columns(_first_hash=pl.col("content_hash"), _first_line=pl.col("_line"), _seen=pl.lit(0))
    else:
        frame = frame.sort("_line").with_columns(
            _first_hash=pl.col("content_hash").first().over(key),
            _first_line=pl.col("_line").first().over(key),
            _seen=pl.int_range(pl.len()).over(key),
        )
    repeated = frame.filter(pl.col("_seen") > 0)
    duplicates = repeated.filter(pl.col("content_hash") == pl.col("_first_hash")).height
    conflicts = repeated.filter(pl.col("content_hash") != pl.col("_first_hash")).with_columns(
        reason=pl.lit("conflicting_duplicate"),
        detail=pl.format("logged again with other content (first at line {})", pl.col("_first_line")),
    )
    first = frame.filter(pl.col("_seen") == 0) if repeated.height else frame
    candidates = stored_shoes.known(first).select(*key, "content_hash")
    if candidates.height == 0:  # no shoe of the batch has stored rows: nothing to look up
        return first, duplicates, conflicts
    stored = (
        stored_shoes.rows(con, candidates, [*key, "content_hash", "source_file"])
        .cast({name: candidates.schema[name] for name in key})
        .join(candidates.select(key), on=key, how="semi", nulls_equal=True)
        .rename({"content_hash": "stored_hash", "source_file": "stored_in"})
    )
    first = first.join(stored, on=key, how="left", nulls_equal=True)
    known = first.filter(pl.col("stored_hash").is_not_null())
    duplicates += known.filter(pl.col("stored_hash") == pl.col("content_hash")).height
    conflicts = pl.concat(
        [
            conflicts,
            known.filter(pl.col("stored_hash") != pl.col("content_hash")).with_columns(
                reason=pl.lit("conflicting_duplicate"),
                detail=pl.format("already stored with other content from {}", pl.col("stored_in")),
            ),
        ],
        how="diagonal_relaxed",
    )
    return first.filter(pl.col("stored_hash").is_null()), duplicates, conflicts
