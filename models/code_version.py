"""A digest of the domain's code: what its compiled kernels and its stored results were made by."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

#: The domain's modules.
ROOT = Path(__file__).resolve().parent


@cache
def code_digest(*parts: str) -> str:
    """A short digest of the modules of `models` under `parts` (folders or files relative to it; all
    of them when none is named): it changes whenever any of them does."""
    return tree_digest(ROOT, parts)


def tree_digest(root: Path, parts: tuple[str, ...] = ()) -> str:
    """A short digest of the Python files under `root`'s `parts` (all when none), by path and content."""
    digest = hashlib.sha256()
    for part in parts or (".",):
        found = [root / part] if part.endswith(".py") else sorted((root / part).rglob("*.py"))
        for path in found:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
