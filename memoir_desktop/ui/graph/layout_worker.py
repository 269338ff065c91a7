"""`LayoutEngine`: runs one `ForceLayout` on a worker thread and streams its positions to the UI.

Threading rule: the public methods are called on the UI thread and only queue a job. Jobs run one
at a time, in order, on a private one-thread pool, so the `ForceLayout` (not thread-safe) is only
ever touched by one thread. Every job applies its change (new graph, pin); only the newest one then
runs the layout, and a newer job stops the running one at its next callback (10 iterations). Positions
arrive by queued signal; the worker never touches a widget.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from memoir_desktop.graphlayout.force import ForceLayout

log = logging.getLogger(__name__)

FRAME_INTERVAL_S = 1 / 60  # a small graph settles in microseconds: pace it so the eye sees it settle


class _Job(QRunnable):
    def __init__(self, engine: LayoutEngine, ticket: int, generation: int, change: Callable[[ForceLayout], None]):
        super().__init__()
        self.setAutoDelete(True)
        self.engine, self.ticket, self.generation, self.change = engine, ticket, generation, change

    def current(self) -> bool:
        return self.engine._latest == self.ticket

    def run(self) -> None:
        engine, layout = self.engine, self.engine.layout
        try:
            self.change(layout)
        except (KeyError, ValueError) as exc:  # a pin on a node the newest graph no longer has
            log.debug("layout change skipped: %s", exc)
        if not self.current() or not self.emit(engine.positions, self.generation, layout.positions_array()[1]):
            return
        last = time.perf_counter()

        def frame(_i, xy) -> bool:
            nonlocal last
            if not self.current():
                return False
            wait = engine.frame_interval - (time.perf_counter() - last)
            if wait > 0:
                time.sleep(wait)
            last = time.perf_counter()
            return self.emit(engine.positions, self.generation, xy) and self.current()

        try:
            layout.run(max_iter=engine.max_iter, callback=frame)
        except Exception:  # noqa: BLE001 - a failed layout leaves the last drawing, never the pool dead
            log.exception("graph layout failed")
        if self.current():
            self.emit(engine.settled, self.generation)

    @staticmethod
    def emit(signal, *args) -> bool:
        try:
            signal.emit(*args)
        except RuntimeError:  # the engine was deleted without stop(): nobody is listening
            return False
        return True


class LayoutEngine(QObject):
    positions = Signal(int, object)  # generation, N x 2 float array (rows in the order of set_graph's ids)
    settled = Signal(int)  # generation: the drawing is at rest

    def __init__(self, parent: QObject | None = None, *, frame_interval: float = FRAME_INTERVAL_S,
                 max_iter: int = 300, seed: int = 0):
        super().__init__(parent)
        self.layout = ForceLayout(seed=seed)
        self.frame_interval = frame_interval
        self.max_iter = max_iter
        self.generation = 0
        self._latest = 0  # ticket of the newest job; read by the worker (an int: atomic)
        self._tickets = 0
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._stopped = False

    def set_graph(self, ids: Sequence[str], edges: Sequence[tuple[str, str]],
                  weights: Sequence[float] | None = None) -> int:
        """Lay out a new (or grown) graph; nodes that remain keep their place. Returns its generation."""
        self.generation += 1
        ids, edges = list(ids), list(edges)
        weights = None if weights is None else list(weights)
        self._submit(lambda layout: layout.set_graph(ids, edges, weights))
        return self.generation

    def pin(self, node_id: str, xy: tuple[float, float] | None) -> None:
        """Hold a node where it was dropped (None releases it); the rest settles around it."""
        self._submit(lambda layout: layout.pin(str(node_id), xy))

    def busy(self) -> bool:
        return self._pool.activeThreadCount() > 0

    def wait(self, msecs: int = 5_000) -> bool:
        return self._pool.waitForDone(msecs)

    def stop(self, msecs: int = 5_000) -> None:
        """Cancel the layout and wait for the worker (before the engine goes away)."""
        self._stopped = True
        self._latest = -1
        self._pool.clear()
        self._pool.waitForDone(msecs)

    def _submit(self, change: Callable[[ForceLayout], None]) -> None:
        if self._stopped:
            return
        self._tickets += 1
        self._latest = self._tickets
        self._pool.start(_Job(self, self._tickets, self.generation, change))
