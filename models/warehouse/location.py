"""Where the warehouse's tables are, and how DuckDB and Polars reach their files: what readers need,
without the Iceberg library (pyiceberg takes most of a second to import; readers never commit)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from models import settings as project


@dataclass(frozen=True)
class Settings:
    """Where the catalog and the tables' files are."""

    catalog_uri: str
    warehouse_uri: str

    @classmethod
    def of(cls, db: Path) -> Settings:
        """The settings' `catalog_uri` and `warehouse_uri` (BANCO_CATALOG_URI, BANCO_WAREHOUSE_URI), by
        default a SQLite catalog and a folder beside the warehouse's DuckDB file: `banco.catalog.db` and
        `banco.iceberg/`."""
        db, chosen = db.absolute(), project.Settings.from_env()
        catalog = chosen.catalog_uri or f"sqlite:///{db.with_name(db.stem + '.catalog.db')}"
        warehouse = chosen.warehouse_uri or db.with_name(db.stem + ".iceberg").as_uri()
        return cls(catalog, warehouse.rstrip("/"))

    @property
    def local_folder(self) -> Path | None:
        """The warehouse's folder when it is on this machine's filesystem."""
        parsed = urlparse(self.warehouse_uri)
        return Path(parsed.path) if parsed.scheme in ("", "file") else None


def catalog_properties() -> dict[str, str]:
    """pyiceberg's own settings of the `banco` catalog (`PYICEBERG_CATALOG__BANCO__S3__ENDPOINT`
    and the like, or ~/.pyiceberg.yaml): the object store's endpoint, keys and region."""
    from pyiceberg.utils.config import Config  # light: no table code

    return Config().get_catalog_config("banco") or {}


def object_store(settings: Settings):
    """The warehouse's object store as an fsspec filesystem (what DuckDB reads it through), or None
    for a local folder. Keys not set in the catalog's settings come from the usual AWS variables."""
    if settings.local_folder is not None:
        return None
    import fsspec

    props = catalog_properties()
    return fsspec.filesystem(
        urlparse(settings.warehouse_uri).scheme,
        endpoint_url=props.get("s3.endpoint"),
        key=props.get("s3.access-key-id"),
        secret=props.get("s3.secret-access-key"),
        client_kwargs={"region_name": props["s3.region"]} if "s3.region" in props else {},
    )


def polars_options() -> dict[str, str]:
    """Polars' `storage_options` for the object store (its reader ignores pyiceberg's settings)."""
    props = catalog_properties()
    names = {"s3.endpoint": "aws_endpoint_url", "s3.access-key-id": "aws_access_key_id",
             "s3.secret-access-key": "aws_secret_access_key", "s3.region": "aws_region"}  # fmt: skip
    options = {option: props[key] for key, option in names.items() if key in props}
    if options.get("aws_endpoint_url", "").startswith("http://"):
        options["aws_allow_http"] = "true"
    return options


def register(con, db: Path) -> None:
    """Let a DuckDB connection read the warehouse's object store, if it is on one."""
    store = object_store(Settings.of(db))
    if store is not None:
        con.register_filesystem(store)


def is_table_folder(path: Path) -> bool:
    """Whether `path` is a warehouse's folder of Iceberg tables (`banco.iceberg/` beside
    `banco.duckdb`): its Parquet files hold rows already stored, never round logs to ingest."""
    if path.suffix != ".iceberg" or not path.is_dir():
        return False
    return any(table.is_dir() for table in path.glob("*/*/metadata"))


def local_path(location: str) -> str:
    """A data file's location as DuckDB and Polars name it: a plain path for a local file."""
    return location.removeprefix("file://")
