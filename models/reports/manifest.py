"""A report's manifest, `NAME.manifest.json` beside the file NAME: what it takes to make the same bytes
again (the warehouse's commit the marts were built from, every setting that shaped the figures, the
release and git commit of the code) and the file's sha256."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from models.code_version import code_digest
from models.reports.rules import month_end, parse_month

SUFFIX = ".manifest.json"
#: The project's folder: its git commit, when it is a checkout.
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Manifest:
    """What one report file was made from. `commit`: the log's snapshot (`log_snapshot`), its time
    (`committed_at`) and every table's snapshot (`snapshots`), None when the marts were built before
    builds noted it; `settings`: the marts' (`marts`, models/metrics/config.py) and the report's
    (`report`); `files`: each file's name (beside the manifest) and sha256."""

    month: str
    format: str
    commit: dict[str, Any] | None
    settings: dict[str, Any]
    files: dict[str, str]
    version: str | None
    code_digest: str
    git_commit: str | None = None
    git_dirty: bool | None = None
    #: What the marts lacked when the report was made (models/metrics/staleness.py), None when nothing.
    stale: str | None = None

    @property
    def first_day(self) -> dt.date:
        return parse_month(self.month)

    def log_snapshot(self) -> int:
        """The log's snapshot of the commit the report was made from; a one-line ValueError for none."""
        if self.commit is None or self.settings.get("marts") is None:
            raise ValueError(
                "the manifest names no commit of the warehouse: its marts were built before builds noted theirs "
                "(run `banco build`, then `banco report`)"
            )
        return int(self.commit["log_snapshot"])

    @property
    def report_rules(self) -> tuple[str, ...]:
        return tuple(self.settings["report"]["report_rules"])

    @property
    def property_name(self) -> str:
        return self.settings["report"]["property_name"]

    def to_json(self) -> str:
        kept = {name: value for name, value in asdict(self).items() if value is not None or name == "commit"}
        return json.dumps(kept, indent=2) + "\n"


def path_of(file: Path) -> Path:
    """Where the manifest of `file` goes: beside it."""
    return file.with_name(file.name + SUFFIX)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def made(file: Path, month: dt.date, fmt: str, commit: dict[str, Any] | None, settings: dict[str, Any]) -> Manifest:
    """The manifest of the report just written to `file`, with this code's release and git commit."""
    git = _git()
    return Manifest(
        month=f"{month:%Y-%m}",
        format=fmt,
        commit=commit,
        settings=settings,
        files={file.name: sha256(file.read_bytes())},
        version=_version(),
        code_digest=code_digest(),
        git_commit=git[0] if git else None,
        git_dirty=git[1] if git else None,
    )


def write(manifest: Manifest, file: Path) -> Path:
    """Write `manifest` beside `file` (whole: a temporary file renamed over it)."""
    path = path_of(file)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(manifest.to_json())
    partial.replace(path)
    return path


def read(path: Path) -> Manifest:
    """The manifest at `path`; a one-line ValueError when it is not one."""
    try:
        data = json.loads(path.read_text())
        manifest = Manifest(**data)
        manifest.first_day, manifest.report_rules, manifest.property_name  # noqa: B018 - checked now
        if not manifest.files or manifest.format not in ("csv", "xlsx", "pdf"):
            raise ValueError
        return manifest
    except FileNotFoundError:
        raise ValueError(f"no manifest at {path}") from None
    except (ValueError, TypeError, AttributeError, KeyError):
        raise ValueError(f"{path} is not a report's manifest (banco report writes NAME{SUFFIX})") from None


def _version() -> str | None:
    try:
        return importlib.metadata.version("banco-analytics")
    except importlib.metadata.PackageNotFoundError:
        return None


def _git() -> tuple[str, bool] | None:
    """The checkout's commit and whether it has changes not committed; None without git or a checkout."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        status = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return head.stdout.strip(), bool(status.stdout.strip())


def figures_time(commit, month: dt.date) -> dt.datetime:
    """The time a report's figures stand at: their commit's (models/warehouse/travel.py `Commit`), else
    the month's end (never the clock's: the same marts make the same bytes)."""
    return commit.committed_at if commit else dt.datetime.combine(month_end(month), dt.time.max, dt.UTC)


def report_settings(rules: tuple[str, ...], property_name: str) -> dict:
    """The report's own settings, as a manifest records them."""
    return {"report_rules": list(rules), "property_name": property_name}
