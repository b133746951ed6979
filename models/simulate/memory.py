"""Keep freed memory in the process for reuse instead of handing it back to the kernel.

Every chunk allocates the same large arrays again. By default glibc serves each from fresh mmap'd
pages and unmaps them when freed, so every chunk pays a page fault per page touched, which on a
virtual machine cost more than dealing the coups. Raised thresholds keep them in the heap.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD_MAX = 32 * 1024 * 1024  # glibc's ceiling on 64-bit machines
TRIM_THRESHOLD = 1 << 30


def keep_freed_memory() -> bool:
    """Tune glibc's allocator (a no-op elsewhere); True when it took effect."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX)) and bool(
            libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
        )
    except (OSError, AttributeError, TypeError):
        return False
