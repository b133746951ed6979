"""A table-shift's own rule, checked after duplicates: one opener and one closer, the closer not
recorded before the opener. The rows already stored (and accepted from the file's earlier batches)
come first, then the new ones in line order; a row that breaks the rule is a `shift_conflict`.
Only the openers and closers of the batch's shifts are looked up: a few rows a shift."""

from __future__ import annotations

import polars as pl

from models.warehouse.schema import CORE_TABLE_EVENTS

SHIFT = ["table_id", "shift_id"]
MARKS = ("opener", "closer")
#: An instant in a detail, as ISO 8601 in UTC.
INSTANT = "%Y-%m-%dT%H:%M:%S%.fZ"
#: The columns of an opener or closer the rule reads.
MARK_COLUMNS = [*SHIFT, "event", "recorded_at", "source_file", "line_no"]
STORED_MARKS = (
    f"SELECT {', '.join(MARK_COLUMNS)} FROM {CORE_TABLE_EVENTS} SEMI JOIN wanted_shifts USING (table_id, shift_id) "
    f"WHERE event IN {MARKS}"
)


def _where(source: pl.Expr, line: pl.Expr) -> pl.Expr:
    return pl.format("{} line {}", source, line)


def stored_marks(con, shifts: pl.DataFrame, in_file: list[pl.DataFrame]) -> pl.DataFrame:
    """The openers and closers of `shifts` in the warehouse's last commit (read through `con`'s
    views) and among the file's rows accepted so far (`in_file`, each with MARK_COLUMNS)."""
    con.register("wanted_shifts", shifts.select(SHIFT).unique())
    try:
        stored = con.sql(STORED_MARKS).pl()
    finally:
        con.unregister("wanted_shifts")
    stored = stored.with_columns(pl.col("recorded_at").dt.convert_time_zone("UTC"))  # DuckDB says Etc/UTC
    earlier = [part.join(shifts, on=SHIFT, how="semi") for part in in_file]
    return pl.concat([stored, *earlier], how="vertical_relaxed")


def accepted_marks(accepted: pl.DataFrame) -> pl.DataFrame:
    """The openers and closers among rows accepted (with provenance), as `stored_marks` takes them."""
    return accepted.filter(pl.col("event").is_in(MARKS)).select(MARK_COLUMNS)


def check_shifts(con, new: pl.DataFrame, in_file: list[pl.DataFrame], source: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the new events that keep their shift's rule, those that break it with `reason` and `detail`);
    `in_file`: the openers and closers the file's earlier batches had accepted."""
    marks = new.filter(pl.col("event").is_in(MARKS))
    if marks.height == 0:
        return new, new.head(0).with_columns(reason=pl.lit(None, pl.String), detail=pl.lit(None, pl.String))
    earlier = stored_marks(con, marks.select(SHIFT).unique(), in_file)
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
