"""The warehouse's Parquet data files: written by one tuned writer for every table, read back by
Arrow, wherever the warehouse lives (a local folder or object storage, through Iceberg's FileIO)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.io import FileIO
from pyiceberg.io.pyarrow import (
    _check_pyarrow_schema_compatible,
    compute_statistics_plan,
    data_file_statistics_from_parquet_metadata,
    parquet_path_to_id_mapping,
)
from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
from pyiceberg.table.metadata import TableMetadata

from models.warehouse.columns import conform, frame_schema, template

#: Columns whose row groups carry min/max statistics: a one-day build's time filter skips the other
#: days' row groups by `started_at`, and a shoe's lookup skips by its key. Statistics elsewhere
#: cost time to write and serve no query (docs/benchmarks.md).
STATISTICS = ("table_id", "shoe_id", "round_no", "started_at", "sha256", "status")
#: Polars' own row group size: a merged file keeps row groups a one-day filter can skip.
ROW_GROUP_ROWS = 262_144
#: Text written plain rather than through a dictionary: the hands and the quarantined rows as read,
#: nearly all distinct, whose dictionary's lookups cost more than they save.
PLAIN_TEXT = ("player_cards", "banker_cards", "player2_cards", "raw", "detail", "sha256", "error")
#: Columns left uncompressed: the instants, all distinct, which LZ4 hardly shrinks for more than
#: the cost of writing them plain.
UNCOMPRESSED = ("started_at",)


@dataclass(frozen=True)
class Written:
    """A data file just written: where, and its footer and size as the writer knew them (a commit
    needs them; reading the footer back costs an open of every file)."""

    location: str
    metadata: pq.FileMetaData
    size: int

    @property
    def rows(self) -> int:
        return self.metadata.num_rows


def write(io: FileIO, location: str, table: str, frame: pl.DataFrame) -> Written:
    """Write rows of `table` to a new data file at `location`.

    Written by Arrow's writer, which Polars' cannot match column by column: text is dictionary
    encoded (ids, games and outcomes repeat), the line numbers, which count up, are delta encoded,
    and statistics are kept only where a query uses them. LZ4 rather than zstd: less work to write
    (and to read) for somewhat larger files. No Arrow schema is stored, so every
    reader takes the columns in the Parquet types the contract names (text as text, times in UTC)."""
    rows = conform(table, frame).to_arrow(compat_level=pl.CompatLevel.newest())
    # NOT NULL columns are written as required, and so is any other column without a null in these
    # rows: no definition levels to encode (a null in a NOT NULL column fails the cast, and the
    # file with it)
    required = template(table).required
    optional = [field.name not in required and rows[field.name].null_count > 0 for field in rows.schema]
    rows = rows.cast(pa.schema([field.with_nullable(null) for field, null in zip(rows.schema, optional, strict=True)]))
    text = [name for name, dtype in frame_schema(table).items() if dtype == pl.String and name not in PLAIN_TEXT]
    footer: list[pq.FileMetaData] = []
    with io.new_output(location).create(overwrite=True) as out:
        pq.write_table(
            rows,
            out,
            metadata_collector=footer,
            row_group_size=ROW_GROUP_ROWS,
            compression={name: "none" if name in UNCOMPRESSED else "lz4" for name in rows.column_names},
            use_dictionary=text,
            column_encoding={"line_no": "DELTA_BINARY_PACKED"} if "line_no" in rows.column_names else None,
            write_statistics=[name for name in STATISTICS if name in rows.column_names],
            store_schema=False,
        )
        size = out.tell()
    return Written(location, footer[0], size)


def data_file(metadata: TableMetadata, written: Written) -> DataFile:
    """The Iceberg entry of a file just written, from its footer in memory: what pyiceberg's
    `parquet_file_to_data_file` makes after reading the footer back."""
    schema = metadata.schema()
    _check_pyarrow_schema_compatible(schema, written.metadata.schema.to_arrow_schema(), metadata.format_version)
    statistics = data_file_statistics_from_parquet_metadata(
        parquet_metadata=written.metadata,
        stats_columns=compute_statistics_plan(schema, metadata.properties),
        parquet_column_mapping=parquet_path_to_id_mapping(schema),
    )
    return DataFile.from_args(
        content=DataFileContent.DATA,
        file_path=written.location,
        file_format=FileFormat.PARQUET,
        partition=statistics.partition(metadata.spec(), schema),
        file_size_in_bytes=written.size,
        sort_order_id=None,
        spec_id=metadata.default_spec_id,
        equality_ids=None,
        key_metadata=None,
        **statistics.to_serialized_dict(),
    )


def read(io: FileIO, locations: list[str], table: str, columns: list[str] | None = None) -> pl.DataFrame:
    """The rows of data files of `table` (`columns` of them), in the table's Polars types."""
    names = columns or frame_schema(table).names()
    parts = []
    for location in locations:
        with io.new_input(location).open() as source:
            parts.append(pl.from_arrow(pq.read_table(source, columns=names)))
    if not parts:
        return pl.DataFrame(schema={name: frame_schema(table)[name] for name in names})
    return pl.concat(parts, how="vertical_relaxed").cast({name: frame_schema(table)[name] for name in names})
