"""Run a callable on a QThreadPool and get its result back on the UI thread.

Threading rule: `submit` is called on the UI thread; the callable runs on a pool thread and
must not touch widgets; `on_done(result)` / `on_error(exc)` run on the UI thread, delivered by
a queued signal. A callback bound to a widget that has since been deleted is skipped.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import TypeGuard

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)


class _Relay(QObject):
    # ticket, result, exception (or None)
    finished = Signal(int, object, object)


class _Task(QRunnable):
    def __init__(self, ticket: int, fn: Callable, relay: _Relay):
        super().__init__()
        self.setAutoDelete(True)
        self._ticket, self._fn, self._relay = ticket, fn, relay

    def run(self) -> None:
        try:
            result, error = self._fn(), None
        except BaseException as exc:  # every failure must reach the UI, never kill the pool
            result, error = None, exc
        self._relay.finished.emit(self._ticket, result, error)


def _owners(callback: Callable) -> list[QObject]:
    """The QObjects a callback belongs to: a bound method's object, or any a closure captured."""
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, QObject):
        return [owner]
    cells = getattr(callback, "__closure__", None) or ()
    return [c.cell_contents for c in cells if isinstance(_cell(c), QObject)]


def _cell(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _alive(callback: Callable | None) -> TypeGuard[Callable]:
    # A result may arrive after the widget that asked for it was closed and deleted; calling
    # into it would raise (or crash), and the result no longer has anyone to show it to.
    return callback is not None and all(shiboken6.isValid(o) for o in _owners(callback))


def call_if_alive(callback: Callable | None, *args) -> None:
    """Call a UI callback unless it belongs to a deleted widget (for wrappers around callbacks)."""
    if _alive(callback):
        callback(*args)


class TaskRunner(QObject):
    """A QThreadPool with callbacks. `in_flight` counts tasks submitted and not yet delivered."""

    error = Signal(object)  # an exception nobody asked to handle
    settled = Signal()  # in_flight dropped to zero

    def __init__(self, max_threads: int, parent: QObject | None = None):
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self._relay = _Relay(self)
        self._relay.finished.connect(self._deliver)
        self._callbacks: dict[int, tuple[Callable | None, Callable | None]] = {}
        self._tickets = itertools.count(1)
        self._closed = False

    @property
    def in_flight(self) -> int:
        return len(self._callbacks)

    def submit(self, fn: Callable, on_done: Callable | None = None, on_error: Callable | None = None,
               priority: int = 0) -> int:
        ticket = next(self._tickets)
        self._callbacks[ticket] = (on_done, on_error)
        self.pool.start(_Task(ticket, fn, self._relay), priority)
        return ticket

    def wait(self, msecs: int) -> bool:
        """Wait for running tasks (used at exit only: it blocks the UI thread)."""
        return self.pool.waitForDone(msecs)

    def close(self) -> None:
        """Deliver nothing more: the UI that asked is going away."""
        self._closed = True
        self.pool.clear()  # queued, not yet started tasks are dropped

    def _deliver(self, ticket: int, result, error) -> None:
        on_done, on_error = self._callbacks.pop(ticket, (None, None))
        if self._closed:
            return
        try:
            if error is None:
                if _alive(on_done):
                    on_done(result)
            elif _alive(on_error):
                on_error(error)
            else:
                log.error("background task failed", exc_info=error)
                self.error.emit(error)
        finally:
            if not self._callbacks:
                self.settled.emit()
