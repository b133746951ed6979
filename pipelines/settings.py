"""The environment Dagster runs in; the project's settings themselves live in models/settings.py."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def dagster_environment(workdir: Path, env: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment Dagster runs in: the project's dagster.yaml (DAGSTER_HOME is the project root)
    with its storage and logs under `workdir/.dagster/`, unless the caller already chose."""
    return {
        "DAGSTER_HOME": env.get("DAGSTER_HOME", str(PROJECT_ROOT)),
        "BANCO_DAGSTER_DIR": env.get("BANCO_DAGSTER_DIR", str((workdir / ".dagster").resolve())),
    }
