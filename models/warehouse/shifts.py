"""A table-shift's own rule, checked after duplicates: one opener and one closer, the closer not
recorded before the opener. The rows already stored (and staged from the file's earlier batches)
come first, then the new ones in line order; a row that breaks the rule is a `shift_conflict`."""

from __future__ import annotations

import polars as pl

from models.warehouse.staging import StoredShoes

SHIFT = ["table_id", "shift_id"]
MARKS = ("opener", "closer")
#: An instant in a detail, as ISO 8601 in UTC.
INSTANT = "%Y-%m-%dT%H:%M:%S%.fZ"


def _where(source: pl.Expr, line: pl.Expr) -> pl.Expr:
    return pl.format("{} line {}", source, line)


def check_shifts(con, new: pl.DataFrame, stored: StoredShoes, source: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the new events that keep their shift's rule, those that break it with `reason` and `detail`)."""
    marks = new.filter(pl.col("event").is_in(MARKS))
    if marks.height == 0:
        return new, new.head(0).with_columns(reason=pl.lit(None, pl.String), detail=pl.lit(None, pl.String))
    columns = [*SHIFT, "event", "recorded_at", "source_file", "line_no"]
    earlier = (
        stored.rows(con, marks, columns)
        .filter(pl.col("event").is_in(MARKS))
        .join(marks.select(SHIFT).unique(), on=SHIFT, how="semi")
    )
    pool = pl.concat(
        [
            earlier.select(
                *SHIFT,
                "event",
                "recorded_at",
                _new=pl.lit(False),
                _line=pl.col("line_no"),
                _where=_where(pl.col("source_file"), pl.col("line_no")),
            ),
            marks.select(
                *SHIFT,
                "event",
                "recorded_at",
                _new=pl.lit(True),
                _line=pl.col("_line"),
                _where=_where(pl.lit(source), pl.col("_line")),
            ),
        ],
        how="vertical_relaxed",
    ).sort("_new", "_line")  # the stored ones first, then the file's in line order
    pool = pool.with_columns(_nth=pl.int_range(pl.len()).over([*SHIFT, "event"]))
    firsts = pool.filter(pl.col("_nth") == 0)
    first_where = firsts.select(*SHIFT, "event", _first=pl.col("_where"))
    seconds = (
        pool.filter((pl.col("_nth") > 0) & pl.col("_new"))
        .join(first_where, on=[*SHIFT, "event"])
        .select(
            "_line",
            detail=pl.format("a second {} of shift {} / {} (the first: {})", "event", "table_id", "shift_id", "_first"),
        )
    )
    opener = firsts.filter(pl.col("event") == "opener").select(
        *SHIFT, _opened=pl.col("recorded_at"), _opener_new=pl.col("_new"), _opener_line=pl.col("_line")
    )
    closer = firsts.filter(pl.col("event") == "closer").select(
        *SHIFT, _closed=pl.col("recorded_at"), _closer_new=pl.col("_new"), _closer_line=pl.col("_line")
    )
    crossed = opener.join(closer, on=SHIFT).filter(pl.col("_closed") < pl.col("_opened"))
    opened, closed = (pl.col(name).dt.to_string(INSTANT) for name in ("_opened", "_closed"))
    backwards = pl.concat(
        [
            # the closer is the one at fault when both are new; a stored row stays as it is
            crossed.filter(pl.col("_closer_new")).select(
                _line=pl.col("_closer_line"),
                detail=pl.format("closer at {} recorded before its shift's opener at {}", closed, opened),
            ),
            crossed.filter(~pl.col("_closer_new") & pl.col("_opener_new")).select(
                _line=pl.col("_opener_line"),
                detail=pl.format("opener at {} recorded after its shift's closer at {}", opened, closed),
            ),
        ]
    )
    faults = pl.concat([seconds, backwards]).with_columns(reason=pl.lit("shift_conflict"))
    conflicting = new.drop("reason", "detail", strict=False).join(faults, on="_line")
    return new.join(faults, on="_line", how="anti"), conflicting
