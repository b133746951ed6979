"""Check a report against its manifest: the file's sha256, and the same bytes made again at its commit."""

from __future__ import annotations

import argparse
from pathlib import Path

from models.code_version import code_digest
from models.reports import export, manifest
from models.settings import Settings
from models.warehouse.store import WarehouseError


def add_arguments(parser: argparse.ArgumentParser, settings: Settings) -> None:
    parser.add_argument("manifest", type=Path, help="a report's NAME.manifest.json (banco report writes it)")
    parser.epilog = (
        "One line says whether the file beside the manifest is the one it names (sha256) and whether the report "
        "made again from the warehouse's tables at the manifest's commit, with its settings, is the same bytes; "
        "the exit status is 0 only when both hold."
    )


def run(args: argparse.Namespace) -> int:
    made = manifest.read(args.manifest)
    (name, digest), *_ = made.files.items()
    file = args.manifest.parent / name
    on_disk = file.is_file() and manifest.sha256(file.read_bytes()) == digest
    disk = f"{name} is the file its manifest names" if on_disk else (
        f"{name} is not the file its manifest names ({'its sha256 differs' if file.is_file() else 'it is missing'})"
    )  # fmt: skip
    try:
        again, where = _again(Path(args.db), made)
    except (WarehouseError, ValueError) as error:
        print(f"NOT verified: {disk}; it cannot be made again: {error}")
        return 1
    same = manifest.sha256(again) == digest
    rebuilt = f"made again at {where} it is the same bytes" if same else f"made again at {where} its bytes differ"
    if not same and made.code_digest != code_digest():
        rebuilt += f" (the code differs from the manifest's: release {made.version}, commit {made.git_commit})"
    print(f"{'verified' if on_disk and same else 'NOT verified'}: {disk}; {rebuilt}")
    return 0 if on_disk and same else 1


def _again(db: Path, made: manifest.Manifest) -> tuple[bytes, str]:
    """The manifest's report made again at its commit with its settings, and that commit described."""
    from models.metrics import as_of
    from models.warehouse import travel

    commit = travel.find(db, str(made.log_snapshot()))
    report = as_of.report_at(db, commit, as_of.config_of(made), made.first_day, made.report_rules, made.property_name)
    return export.to_bytes(report, made.format), commit.describe()
