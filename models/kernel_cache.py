"""Where the numba kernels' compiled code is kept: a folder per version of the domain's code.

numba's own cache (`cache=True`) sits beside each module and checks only that module's file, so a
kernel calling a changed function of another module would go on running its old code. Keyed by a
digest of every module here, the cache is never stale; it lives under the virtual environment (else
the user's cache folder), so every run after the first starts warm. NUMBA_CACHE_DIR, when set,
stands instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from models.code_version import code_digest


def kernel_cache_folder() -> Path:
    """The folder of this version of the code's compiled kernels."""
    return _cache_root() / code_digest()


def use_kernel_cache() -> Path:
    """Point numba at `kernel_cache_folder` (unless NUMBA_CACHE_DIR names a folder of the user's
    choosing); the folder used. Earlier versions' folders stay (checkouts sharing an environment
    each use their own): delete the cache root to reclaim them."""
    # numba's own setting, read here because it must be set before any kernel is declared; one
    # inherited from a process of this project (under the cache root) names that process's code
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen and Path(chosen).parent != _cache_root():
        return Path(chosen)
    folder = kernel_cache_folder()
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported already: its settings were read then
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return folder


def _cache_root() -> Path:
    if sys.prefix != sys.base_prefix:  # a virtual environment: its own folder
        return Path(sys.prefix) / "var" / "cache" / "banco-numba"
    # XDG's setting for a user's cache folder, as every Linux tool reads it
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "banco-numba"


def compiled_twins(module: str, namespace: dict, **plain: Callable) -> Callable[[str], Callable]:
    """A module's `__getattr__` that compiles each of `plain` (its name: the plain function) for the
    kernels, inlined where they call it, when a kernel's module first imports it: what runs no kernel
    (`banco odds` reading odds it kept) needs no numba."""

    def __getattr__(name: str) -> Callable:
        if name not in plain:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        from numba import njit

        compiled = namespace[name] = njit(inline="always", cache=True)(plain[name])
        return compiled

    return __getattr__
