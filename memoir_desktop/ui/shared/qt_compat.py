"""Work-arounds for defects of specific Qt for Python releases, applied once at start-up."""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, QPointF, QTimer


def guard_none_refcount() -> None:
    """PySide6 6.12.0 on CPython < 3.12 returns None from a void method, and True from a signal's
    emit(), without a new reference (6.11.3 does not): every call (setPos, each QPainter call in a
    paint, each emit) takes one of the ~40k references, and a few seconds of animated canvas bring
    one to zero, which aborts the interpreter ("none_dealloc" / "bool_dealloc"). When the leak is
    measured here, None, True and False get references they cannot run out of, as 3.12's immortal
    singletons have anyway. pyproject.toml excludes 6.12.0; this guards installs that have it anyway."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    probe = QPointF()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setX(0.0)
    if before - sys.getrefcount(None) >= 32:
        for singleton in (None, True, False):
            ctypes.c_ssize_t.from_address(id(singleton)).value += 1 << 40



class MainThreadCollector:
    """Python's cycle collector, run on the UI thread only.

    The collector runs in whichever thread happens to allocate. When it frees a widget's wrapper on a
    pool thread, PySide queues the C++ deletion for the UI thread and runs it at the next binding call
    there; once that was inside a `connect` holding Qt's connection lock, and the queued QMenu's
    destructor waited for that same lock forever (a window frozen mid-click; seen twice in the test
    suite, in a stack dump). Collecting on a UI-thread timer instead (the approach of pyqtgraph's
    GarbageCollector) frees wrappers where Qt wants them freed. Reference counting still frees
    everything that is not in a cycle at once, in any thread."""

    def __init__(self, interval_ms: int = 1000):

        self._gc = gc
        self.threshold = gc.get_threshold()
        gc.disable()
        timer = QTimer()
        timer.timeout.connect(self.collect)
        timer.start(interval_ms)
        self.timer: QTimer | None = timer

    def collect(self) -> None:
        gc, (t0, t1, t2) = self._gc, self.threshold
        c0, c1, c2 = gc.get_count()
        if c0 > t0:
            gc.collect(2 if c2 > t2 else 1 if c1 > t1 else 0)

    def stop(self) -> None:
        # The timer's own wrapper is freed while the collector is still off: freeing it disconnects its
        # signal under Qt's connection lock, and a collection started there (it starts on any
        # allocation once enabled) froze the test suite's last teardown the same way (a stack dump).
        # What is left is collected here, with no lock held, before the collector runs on its own again.
        if self.timer is not None:
            self.timer.stop()
            self.timer.timeout.disconnect(self.collect)
            self.timer = None
        self._gc.collect()
        self._gc.enable()


def listen(signal, owner: QObject, slot: Callable) -> None:
    """Connect `slot` to `signal` for as long as `owner` lives. A bound method of a QObject is
    disconnected when its object goes, but a lambda is not: a page closed with its window (a language
    switch rebuilds the window) would go on answering the backend's signals with a deleted widget
    ("Internal C++ object already deleted"). The lambda here closes over the connection, not the owner."""
    connection = signal.connect(slot)
    owner.destroyed.connect(lambda *_: QObject.disconnect(connection))
