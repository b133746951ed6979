"""Repeated failed sign-ins slowed down: a few are free, then each waits twice as long as the last."""

from __future__ import annotations

import threading


class Throttle:
    """Failures per key (a session, a user name); `wait` is how long the key must wait before it may try again."""

    def __init__(self, free: int = 3, longest: float = 30.0, keys: int = 10_000) -> None:
        self.free, self.longest, self.keys = free, longest, keys
        self._failures: dict[str, tuple[int, float]] = {}  # key -> (failures, time of the last)
        self._lock = threading.Lock()

    def wait(self, key: str, now: float) -> float:
        with self._lock:
            failures, last = self._failures.get(key, (0, now))
        if failures == 0 or failures < self.free:
            return 0.0
        return max(0.0, last + min(2.0 ** (failures - self.free), self.longest) - now)

    def failed(self, key: str, now: float) -> None:
        with self._lock:
            failures, _ = self._failures.pop(key, (0, now))
            self._failures[key] = (failures + 1, now)  # re-inserted last: the dict stays oldest first
            while len(self._failures) > self.keys:  # names sprayed at the form cannot fill the memory
                del self._failures[next(iter(self._failures))]

    def cleared(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)
