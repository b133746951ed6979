"""A table event's chip breakdown, `DENOMxCOUNT` tokens (`1000x5 100x20 25x40`): read, checked
against the event's amount, and its smallest chip (the count room's default tolerance)."""

from __future__ import annotations

import polars as pl

#: A chip's value: a decimal above zero, at most 12 digits before the point and 2 after it.
DENOMINATION = pl.Decimal(18, 2)
#: One token: a denomination, `x` (or `X`), a whole count of chips (at most 9 digits), in ASCII
#: digits (a regex's `\d` takes any script's: `١٠٠x5` would pass).
TOKEN = r"^([0-9]{1,12}(?:\.[0-9]{1,2})?|\.[0-9]{1,2})[xX]([0-9]{1,9})$"


def tokens(text: pl.Expr) -> pl.Expr:
    """The breakdown's tokens, split at any whitespace (null for no breakdown)."""
    return text.str.extract_all(r"\S+")


def _values(text: pl.Expr) -> pl.Expr:
    return tokens(text).list.eval(pl.element().str.extract(TOKEN, 1).cast(DENOMINATION, strict=False))


def smallest(text: pl.Expr) -> pl.Expr:
    """The smallest denomination a breakdown names (null for none, or one that is no breakdown)."""
    return _values(text).list.min()


def checked(frame: pl.DataFrame, text: str, amount: str) -> pl.DataFrame:
    """`frame` with `{text}_fault`, why the breakdown in `text` is unreadable or does not add up to
    `amount` (null when it is fine or absent), and `{text}_normal`, its tokens single-spaced with a
    lower-case `x`."""
    listed = tokens(pl.col(text))
    parts = frame.select(
        _row=pl.int_range(pl.len(), dtype=pl.UInt32),
        _token=listed,
    ).explode("_token")
    parts = parts.with_columns(
        _value=pl.col("_token").str.extract(TOKEN, 1).cast(DENOMINATION, strict=False),
        _count=pl.col("_token").str.extract(TOKEN, 2).cast(pl.Int64, strict=False),
    )
    token = pl.col("_token")
    per_row = (
        parts.filter(token.is_not_null())
        .group_by("_row")
        .agg(
            _bad_token=token.filter(~token.str.contains(TOKEN)).first(),
            _zero=(pl.col("_value") == 0).any(),
            _repeated=pl.col("_value").filter(pl.col("_value").is_duplicated()).first(),
            _sum=(pl.col("_value").cast(pl.Decimal(38, 2)) * pl.col("_count")).sum(),
        )
    )
    frame = frame.with_columns(_row=pl.int_range(pl.len(), dtype=pl.UInt32)).join(per_row, on="_row", how="left")
    given = pl.col(text).str.strip_chars().str.len_chars().fill_null(0) > 0
    fault = (
        pl.when(~given)
        .then(None)
        .when(pl.col("_bad_token").is_not_null())
        .then(pl.format("denominations token '{}' is not DENOMxCOUNT (such as 25x40)", pl.col("_bad_token")))
        .when(pl.col("_zero"))
        .then(pl.lit("denominations name a chip of 0"))
        .when(pl.col("_repeated").is_not_null())
        .then(pl.format("denominations name {} twice", pl.col("_repeated")))
        .when(pl.col(amount).is_not_null() & (pl.col("_sum") != pl.col(amount).cast(pl.Decimal(38, 2))))
        .then(pl.format("denominations add up to {}, not the amount {}", pl.col("_sum"), pl.col(amount)))
    )
    normal = pl.when(given).then(listed.list.eval(pl.element().str.to_lowercase()).list.join(" "))
    return frame.with_columns(fault.alias(f"{text}_fault"), normal.alias(f"{text}_normal")).drop(
        "_row", "_bad_token", "_zero", "_repeated", "_sum"
    )
