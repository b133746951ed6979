"""The columns a reader adds to a batch beside the file's own, and the prefix no file's column may use."""

from __future__ import annotations

import polars as pl

#: Beside a line the reader could not make a row of: its text, why (the row's detail) and, where
#: the reader tells one, its reason (`bad_type` when none: `duplicate_key` for a JSON key twice).
UNPARSED = ["_unparsed", "_unparsed_detail", "_unparsed_reason"]
#: Input column names beginning so are the pipeline's (`_line`, `_unparsed`, the checks' working
#: columns): dropped as read, so that no file can spoof them.
RESERVED = "_"


def without_reserved(frame: pl.DataFrame) -> pl.DataFrame:
    """The batch without the file's own columns named with the reserved prefix."""
    reserved = [name for name in frame.columns if name.startswith(RESERVED)]
    return frame.drop(reserved) if reserved else frame
