"""A table-shift's own rule, checked after duplicates: one opener and one closer, the closer not
recorded before the opener, and every slip signed at the table (SLIPS) between them. The rows already
stored (and accepted from the file's earlier batches) come first, then the new ones in line order,
the openers and closers before the slips; a row that breaks the rule is a `shift_conflict`. Only the
events of the batch's shifts are looked up: a few rows a shift."""

from __future__ import annotations

import polars as pl

from models.warehouse.schema import CORE_TABLE_EVENTS

SHIFT = ["table_id", "shift_id"]
MARKS = ("opener", "closer")
#: Slips signed at the table while the shift runs: a fill or credit, a marker or its payment. (A
#: drop is counted in the count room after the close, and may be recorded at any time.)
SLIPS = ("fill", "credit", "marker", "marker_payment")
#: An instant in a detail, as ISO 8601 in UTC.
INSTANT = "%Y-%m-%dT%H:%M:%S%.fZ"
#: The columns of an opener or closer the rule reads.
MARK_COLUMNS = [*SHIFT, "event", "recorded_at", "source_file", "line_no"]
STORED_MARKS = (
    f"SELECT {', '.join(MARK_COLUMNS)} FROM {CORE_TABLE_EVENTS} SEMI JOIN wanted_shifts USING (table_id, shift_id) "
    f"WHERE event IN {(*MARKS, *SLIPS)}"
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
    """The openers, closers and slips among rows accepted (with provenance), as `stored_marks` takes them."""
    return accepted.filter(pl.col("event").is_in((*MARKS, *SLIPS))).select(MARK_COLUMNS)


def check_shifts(con, new: pl.DataFrame, in_file: list[pl.DataFrame], source: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the new events that keep their shift's rule, those that break it with `reason` and `detail`);
    `in_file`: the openers and closers the file's earlier batches had accepted."""
    ruled = new.filter(pl.col("event").is_in((*MARKS, *SLIPS)))
    if ruled.height == 0:
        return new, new.head(0).with_columns(reason=pl.lit(None, pl.String), detail=pl.lit(None, pl.String))
    everything = stored_marks(con, ruled.select(SHIFT).unique(), in_file)
    earlier, earlier_slips = (
        everything.filter(pl.col("event").is_in(MARKS)),
        everything.filter(pl.col("event").is_in(SLIPS)),
    )
    marks, slips = ruled.filter(pl.col("event").is_in(MARKS)), ruled.filter(pl.col("event").is_in(SLIPS))
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
    crossed = _window(firsts).filter(pl.col("_closed") < pl.col("_opened"))  # a shift with both
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
    marked = pl.concat([seconds, backwards])
    kept = firsts.filter(~(pl.col("_new") & pl.col("_line").is_in(marked["_line"].implode())))
    window = _window(kept)
    faults = pl.concat([marked, _slips_outside(slips, window), _marks_past(window, earlier_slips)])
    faults = faults.with_columns(reason=pl.lit("shift_conflict"))
    conflicting = new.drop("reason", "detail", strict=False).join(faults, on="_line")
    return new.join(faults, on="_line", how="anti"), conflicting


def _window(firsts: pl.DataFrame) -> pl.DataFrame:
    """Each shift's opener and closer as kept: their times, whether new, their lines (null: none yet)."""
    opener = firsts.filter(pl.col("event") == "opener").select(
        *SHIFT, _opened=pl.col("recorded_at"), _opener_new=pl.col("_new"), _opener_line=pl.col("_line")
    )
    closer = firsts.filter(pl.col("event") == "closer").select(
        *SHIFT, _closed=pl.col("recorded_at"), _closer_new=pl.col("_new"), _closer_line=pl.col("_line")
    )
    return opener.join(closer, on=SHIFT, how="full", coalesce=True)


def _slips_outside(slips: pl.DataFrame, window: pl.DataFrame) -> pl.DataFrame:
    """New slips recorded before their shift's opener or after its closer: counting one in the
    shift would move money across shifts without a word."""
    at = pl.col("recorded_at").dt.to_string(INSTANT)
    opened, closed = (pl.col(name).dt.to_string(INSTANT) for name in ("_opened", "_closed"))
    joined = slips.select(*SHIFT, "event", "recorded_at", "_line").join(window, on=SHIFT)
    return pl.concat(
        [
            joined.filter(pl.col("recorded_at") < pl.col("_opened")).select(
                "_line", detail=pl.format("{} at {} recorded before its shift's opener at {}", "event", at, opened)
            ),
            joined.filter(pl.col("recorded_at") > pl.col("_closed")).select(
                "_line", detail=pl.format("{} at {} recorded after its shift's closer at {}", "event", at, closed)
            ),
        ]
    ).unique("_line", keep="first", maintain_order=True)


def _marks_past(window: pl.DataFrame, stored_slips: pl.DataFrame) -> pl.DataFrame:
    """A new opener recorded after a slip already stored for its shift, or a new closer before one:
    a stored row is never taken back, so the opener or closer is the one refused."""
    if stored_slips.height == 0:
        return pl.DataFrame(schema={"_line": pl.Int64, "detail": pl.String})
    span = stored_slips.group_by(SHIFT).agg(_first=pl.col("recorded_at").min(), _last=pl.col("recorded_at").max())
    joined = window.join(span, on=SHIFT)
    first, last = (pl.col(name).dt.to_string(INSTANT) for name in ("_first", "_last"))
    opened, closed = (pl.col(name).dt.to_string(INSTANT) for name in ("_opened", "_closed"))
    return pl.concat(
        [
            joined.filter(pl.col("_opener_new") & (pl.col("_opened") > pl.col("_first"))).select(
                _line=pl.col("_opener_line"),
                detail=pl.format("opener at {} recorded after a slip of its shift at {}", opened, first),
            ),
            joined.filter(pl.col("_closer_new") & (pl.col("_closed") < pl.col("_last"))).select(
                _line=pl.col("_closer_line"),
                detail=pl.format("closer at {} recorded before a slip of its shift at {}", closed, last),
            ),
        ]
    ).with_columns(pl.col("_line").cast(pl.Int64))
