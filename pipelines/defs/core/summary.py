"""What an ingest did, as Dagster metadata: each shard's, and the run's over every shard."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg
from pydantic import Field

if TYPE_CHECKING:
    from models.warehouse.ingest import Summary


class IngestConfig(dg.Config):
    """Files or folders to ingest; none means the whole landing folder (files already in are skipped)."""

    paths: list[str] = Field(default_factory=list)

    def landing(self, warehouse) -> list[Path]:
        return [Path(path) for path in self.paths] or [warehouse.landing_path]


def summary_metadata(done: Summary) -> dict:
    """The counts of one writer's ingest, and its quarantine reasons and failed files."""
    return {
        "summary": dg.MetadataValue.text(done.headline()),
        "files_new": done.new,
        "files_skipped": done.skipped,
        "files_failed": len(done.failed),
        "rows_read": done.rows_read,
        "rows_accepted": done.accepted,
        "rows_quarantined": sum(done.quarantined.values()),
        "rows_duplicate": done.duplicates,
        "quarantined_by_reason": dg.MetadataValue.json(dict(sorted(done.quarantined.items()))),
        "failed_files": dg.MetadataValue.json({str(r.path): r.error for r in done.failed}),
    }


def combined(parts: list[dict]) -> dict:
    """Several writers' metadata (as `summary_metadata` gives it) added up into the run's."""
    from models.warehouse.ingest import FileResult, Summary

    def total(name: str) -> int:
        return sum(_value(part[name]) for part in parts)

    failed = [
        FileResult(Path(path), status="failed", error=error)
        for part in parts
        for path, error in _value(part["failed_files"]).items()
    ]
    done = Summary(
        files=total("files_new") + total("files_skipped") + len(failed),
        new=total("files_new"),
        skipped=total("files_skipped"),
        failed=failed,
        rows_read=total("rows_read"),
        accepted=total("rows_accepted"),
        duplicates=total("rows_duplicate"),
        quarantined=sum((Counter(_value(part["quarantined_by_reason"])) for part in parts), Counter()),
    )
    return summary_metadata(done)


def _value(entry):
    return entry.value if isinstance(entry, dg.MetadataValue) else entry
