"""Materialization metadata read back from the serving snapshot: row counts and previews."""

from __future__ import annotations

import dagster as dg
import polars as pl

from models.warehouse.schema import SNAPSHOTS
from models.warehouse.store import read


def preview(frame: pl.DataFrame, rows: int = 5) -> dg.MetadataValue:
    """The first rows of a frame as a Markdown table for the Dagster UI."""
    with pl.Config(
        tbl_formatting="MARKDOWN",
        tbl_hide_column_data_types=True,
        tbl_cols=-1,
        tbl_width_chars=1000,
        tbl_hide_dataframe_shape=True,
    ):
        return dg.MetadataValue.md(str(frame.head(rows)))


def snapshot(con, table: str) -> dict[str, dg.MetadataValue]:
    """The Iceberg snapshot and data files the snapshot's view of `table` reads, if it is one."""
    found = con.sql(f"SELECT snapshot_id, files FROM {SNAPSHOTS} WHERE table_name = ?", params=[table]).fetchall()
    if not found:
        return {}
    return {
        "iceberg_snapshot_id": dg.MetadataValue.text(str(found[0][0])),
        "data_files": dg.MetadataValue.int(found[0][1]),
    }


def table_metadata(db, tables: list[str], count_key: str = "dagster/row_count") -> dict[str, dict]:
    """Per table: its total rows (under `count_key`) and a preview, from the snapshot readers see."""
    con = read(db)
    try:
        out = {}
        for table in tables:
            rows = con.sql(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            out[table] = {
                count_key: dg.MetadataValue.int(rows),
                "preview": preview(con.sql(f"SELECT * FROM {table} LIMIT 5").pl()),
                **snapshot(con, table),
            }
        return out
    finally:
        con.close()
