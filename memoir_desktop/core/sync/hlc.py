"""Hybrid logical clocks: the order of changes across computers whose clocks disagree.

A stamp is (wall milliseconds, counter, device). A device's clock never goes backwards and always
moves past every stamp it has seen from another device, so a change made after seeing another one
has the larger stamp even when this computer's clock is a day behind (and a computer whose clock
is a day ahead gains nothing over a change made after its own was seen). Wall time only breaks the
ties between changes that did not see each other.

Stamps are written as fixed-width strings, so comparing strings compares stamps.
"""

from __future__ import annotations

import threading
import time

_COUNTER = 10 ** 6


def wall_ms() -> int:
    """This computer's clock (tests move one device's clock by replacing this)."""
    return time.time_ns() // 1_000_000


def stamp(ms: int, counter: int, device: str) -> str:
    return f"{ms:015d}.{counter:06d}.{device}"


def parse(text: str) -> tuple[int, int, str]:
    ms, counter, device = text.split(".", 2)
    return int(ms), int(counter), device


def is_stamp(text) -> bool:
    try:
        ms, counter, device = parse(text)
    except (AttributeError, ValueError):
        return False
    return ms >= 0 and 0 <= counter < _COUNTER and bool(device)


class Clock:
    """One device's hybrid logical clock; `last` is kept by the caller between runs."""

    def __init__(self, device: str, last: str | None = None):
        self.device = device
        self._lock = threading.Lock()
        self._ms, self._counter = (0, 0)
        if last:
            self._ms, self._counter, _ = parse(last)

    def now(self) -> str:
        """A new stamp, larger than every stamp made or seen before."""
        with self._lock:
            wall = wall_ms()
            if wall > self._ms:
                self._ms, self._counter = wall, 0
            else:
                self._counter += 1
                if self._counter >= _COUNTER:  # a million stamps in one millisecond: borrow the next one
                    self._ms, self._counter = self._ms + 1, 0
            return stamp(self._ms, self._counter, self.device)

    def observe(self, seen: str) -> None:
        """A stamp from another device was read: later stamps of this one come after it."""
        ms, counter, _ = parse(seen)
        with self._lock:
            if (ms, counter) > (self._ms, self._counter):
                self._ms, self._counter = ms, counter

    @property
    def last(self) -> str:
        return stamp(self._ms, self._counter, self.device)
