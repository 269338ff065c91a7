"""`BackgroundWriter`: the one writer that drains the durable job queue, in order.

Threading rule: a three-thread QThreadPool runs every memory-changing call: at most one job at a
time through `mem.jobs.process(limit=1)` (the drain holds one thread), one step of long
background work (a new model's index, a sync round: `submit_background`), and the user's own
edits on the third, so a user edit never waits behind a slow LLM call or a sync round waiting on
the network. The core serialises the short transactions of all with its write lock (core/jobs/queue.py).
Results come back by signals on the UI thread. At shut-down a user edit already submitted is
always finished, never dropped.

Jobs are durable SQLite rows: stopping with jobs pending loses nothing; the next start
resumes them. A job left "pending" after a run means the LLM was unreachable: we retry with
a growing delay instead of hammering it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from PySide6.QtCore import QObject, QThread, QTimer, Signal

from memoir_desktop.ui.tasks import TaskRunner

log = logging.getLogger(__name__)
SLOW = "slow"  # the LLM answers, slower than its time limit

BACKOFF_FIRST_MS = 2_000
BACKOFF_MAX_MS = 60_000
THREADS = 3  # the job drain, one background step, the user's edits
USER_WRITE_PRIORITY = 10  # the user's own edits go before the next queued job
USER_WRITE_WAIT_S = 30.0  # at shut-down: a user's edit needs no LLM, only SQLite and the embedder


class BackgroundWriter(QObject):
    job_finished = Signal(dict)  # one process_jobs result: {id, kind, state, result | error}
    pending_changed = Signal(int)
    llm_reachable = Signal(object)  # True | False | SLOW
    busy_changed = Signal(bool)
    error = Signal(object)  # a user write failed and its caller gave no error handler

    def __init__(self, mem, parent: QObject | None = None):
        super().__init__(parent)
        self._mem = mem
        self._runner = TaskRunner(THREADS, self)
        self._user_writes = 0  # submitted and not finished: counted on the pool threads too
        self._count_lock = threading.Lock()
        self._runner.error.connect(self.error)
        self._started = False
        self._stopped = False
        self._draining = False
        self._backoff_ms = 0
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.timeout.connect(self._drain)
        # Just after midnight the writer looks again: the model's idle work is renewed for the new day
        # (Jobs.process), so the first entry of the morning is read as fast as the others.
        self._new_day = QTimer(self)
        self._new_day.setSingleShot(True)
        self._new_day.timeout.connect(self._at_new_day)

    # -- control (UI thread) ----------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._draining or self._runner.in_flight > 0

    def start(self) -> None:
        self._started = True
        self._new_day.start(ms_to_next_day())
        self.poke()

    def _at_new_day(self) -> None:
        if not self._stopped:
            self._new_day.start(ms_to_next_day())
            self.poke()

    def poke(self) -> None:
        """New work was queued (or settings changed): drain now, forgetting any back-off."""
        if not self._started or self._stopped:
            return
        self._backoff_ms = 0
        self._retry.stop()
        QTimer.singleShot(0, self._drain)

    def submit(self, fn: Callable, on_done: Callable | None = None, on_error: Callable | None = None) -> None:
        """Run a user write now, on the thread no job holds."""
        with self._count_lock:
            self._user_writes += 1

        def task():
            try:
                return fn()
            finally:
                with self._count_lock:
                    self._user_writes -= 1

        self._runner.submit(task, on_done, on_error, priority=USER_WRITE_PRIORITY)

    def submit_background(self, fn: Callable, on_done: Callable | None = None,
                          on_error: Callable | None = None) -> None:
        """Run one step of long background work (a new model's index): after any user write waiting,
        and never waited for at shut-down (it continues at the next start)."""
        if not self._stopped:
            self._runner.submit(fn, on_done, on_error, priority=0)

    def stop(self) -> None:
        """Take no new job. A job already running finishes (or is resumed at next start)."""
        self._stopped = True
        self._retry.stop()
        self._new_day.stop()

    def wait(self, msecs: int) -> bool:
        """Wait up to `msecs` for running work, and for the user's submitted edits however long
        they take; then deliver nothing more (shut-down only). A job still running is left to
        resume at the next start."""
        done = self._runner.wait(msecs)
        deadline = time.monotonic() + USER_WRITE_WAIT_S
        while self.user_writes_in_flight and time.monotonic() < deadline:
            QThread.msleep(10)
        self._runner.close()
        return done

    @property
    def user_writes_in_flight(self) -> int:
        with self._count_lock:
            return self._user_writes

    # -- draining -----------------------------------------------------------------------

    def _drain(self) -> None:
        if self._stopped or self._draining:
            return
        if not self._mem.connection.configured:
            # Without an LLM a job can only fail to run; wait for settings to change (poke).
            self._runner.submit(self._count_pending, self.pending_changed.emit)
            return
        self._draining = True
        self.busy_changed.emit(True)
        self._runner.submit(self._run_one, self._drained, self._crashed)

    def _run_one(self) -> tuple[list[dict], int]:
        results = self._mem.jobs.process(limit=1, idle=True)
        return results, self._count_pending()

    def _count_pending(self) -> int:
        return len(self._mem.jobs.all("pending"))

    def _drained(self, outcome: tuple[list[dict], int]) -> None:
        results, pending = outcome
        self._draining = False
        self.busy_changed.emit(False)
        self.pending_changed.emit(pending)
        for result in results:
            self.job_finished.emit(result)
        if not results:
            return  # queue empty: idle until poked
        if results[-1]["state"] == "pending":
            # A server that answers, only slower than the time limit, is not "unreachable": the
            # diarist's fix is the limit (or a smaller model), not the server.
            slow = (results[-1].get("reason") or {}).get("kind") == "timeout"
            self.llm_reachable.emit(SLOW if slow else False)
            self._back_off()
            return
        # "failed" means the LLM answered but unusably: it is reachable; the job stays visible.
        self.llm_reachable.emit(True)
        self._backoff_ms = 0
        if pending and not self._stopped:
            QTimer.singleShot(0, self._drain)

    def _crashed(self, exc: BaseException) -> None:
        self._draining = False
        self.busy_changed.emit(False)
        log.error("background writer: %s", exc, exc_info=exc)
        self._back_off()

    def _back_off(self) -> None:
        if self._stopped:
            return
        self._backoff_ms = min(BACKOFF_MAX_MS, self._backoff_ms * 2 or BACKOFF_FIRST_MS)
        self._retry.start(self._backoff_ms)


def ms_to_next_day(now: datetime | None = None) -> int:
    """Milliseconds to a minute past the next midnight (local time)."""
    now = now or datetime.now()
    after = datetime.combine(now.date() + timedelta(days=1), datetime.min.time()) + timedelta(minutes=1)
    return int((after - now).total_seconds() * 1000)
