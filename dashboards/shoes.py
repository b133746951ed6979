"""Picking one shoe within the filters, and reading its coups: shared by the shoe explorer and the odds lab; the
patterns' calibration over every shoe, beside the shoe explorer's ask cells."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import streamlit as st

from dashboards import filters, fmt, query
from dashboards.queries import shoe as reads  # "shoe" names a Shoe here
from models.systems import calibration as calibrations


@dataclass(frozen=True)
class Shoe:
    table_id: str
    shoe_id: str
    game: str
    decks: int
    summary: dict


def pick(f: filters.Filters, key: str) -> Shoe:
    """A table, then one of its shoes in the filtered gaming days, chosen in two select boxes."""
    shoes = filters.require(reads.shoes(f))
    left, right = st.columns([1, 2])  # the shoe's label is long: in half a 1024 px window it is cut
    table = left.selectbox("Table", shoes["table_id"].unique(maintain_order=True).to_list(), key=f"{key}_table")
    at_table = shoes.filter(pl.col("table_id") == table)
    labels = {
        row["shoe_id"]: " · ".join(
            (row["shoe_id"], str(row["gaming_day"]), fmt.name(row["game"]), f"{fmt.count(row['coups'])} coups")
        )
        for row in at_table.iter_rows(named=True)
    }
    shoe = right.selectbox("Shoe", list(labels), format_func=labels.get, key=f"{key}_shoe")
    row = at_table.filter(pl.col("shoe_id") == shoe).row(0, named=True)
    return Shoe(table, shoe, row["game"], int(row["decks"]), row)


def coups(shoe: Shoe) -> pl.DataFrame:
    return reads.coups(shoe.table_id, shoe.shoe_id)


@st.cache_data(max_entries=2, show_spinner="Testing the road patterns on every shoe in the warehouse…")
def _calibration(db: str, version: int) -> tuple[pl.DataFrame, int]:
    """`version` (the snapshot's) is only the cache key: computed once per published snapshot."""
    shoes = reads.outcomes()
    return calibrations.pooled(calibrations.calibration(shoes)), shoes.height


def calibration() -> tuple[pl.DataFrame, int]:
    """Each pattern's calls over every shoe in the warehouse, its sides pooled (models/systems/calibration.py),
    and the number of shoes."""
    return _calibration(str(query.warehouse()), query.version())
