"""`AsyncMemoir`: the UI's one way to the core, and the app-wide signals the screens listen to.

Threading rule: every call returns at once. `read(op)` runs `op(mem)` on the reads pool, on
connections that cannot write; `change(op)` runs it on the `BackgroundWriter` and then emits the
Changes its result carries (ui/ops.py). Callbacks and signals arrive on the UI thread. Widgets talk
to this object, never to `Memoir`; an op only calls `Memoir`'s public methods and parts. Work that
takes several steps lives beside the screen that starts it (ui/journal/turns.py, ui/settings/settings_apply.py,
ui/journal/reflection_runs.py, ui/files/file_dialogs.py, ui/settings/model_download.py).

After any write, `changed(Changes)` says what moved (memories, entries, graph, proposals, summary,
settings), so each page refreshes only what it shows.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal

from memoir_desktop.core.changes import Changes
from memoir_desktop.ui.background_writer import BackgroundWriter
from memoir_desktop.ui.ops import CoreOp, QueryOp
from memoir_desktop.ui.settings.settings_apply import build_next_index
from memoir_desktop.ui.tasks import TaskRunner, call_if_alive

if TYPE_CHECKING:
    from memoir_desktop.core.memory import Memoir

log = logging.getLogger(__name__)

R = TypeVar("R")
Callback = Callable | None


class AsyncMemoir(QObject):
    changed = Signal(object)  # Changes: what a job or a user action changed
    job_finished = Signal(dict)
    import_progress = Signal(int, int)  # entries read so far, of how many (an import being read)
    pending_changed = Signal(int)
    llm_reachable_changed = Signal(object)  # True | False | None (not configured)
    status_changed = Signal(dict)
    settings_changed = Signal(object)  # the new Settings
    error = Signal(str)  # a failure no caller handled, as a sentence for the status bar
    index_progress = Signal(int, int)  # the search index rebuilt for a new model: memories done, of total
    switch_failed = Signal(str)  # a newly chosen search model could not be used (the one in use stays)
    model_progress = Signal(str, int, int)  # a search model downloading: catalog key, bytes done, of total

    OUTSIDE_EVERY_MS = 3000  # how soon a memory another app added shows (one small query a tick)

    def __init__(self, mem: Memoir, parent: QObject | None = None, reads: TaskRunner | None = None):
        super().__init__(parent)
        self.mem = mem
        # The app's reads pool, made before the journal opened (start-up used it); a pool of our own otherwise.
        self.reads = reads or TaskRunner(3, self)
        self.writer = BackgroundWriter(mem, self)
        self.building_index = False  # a chunk of a new model's index is queued or running (settings_apply.py)
        self.writer.job_finished.connect(self._on_job_finished)
        self.writer.pending_changed.connect(self.pending_changed)
        self.writer.llm_reachable.connect(lambda ok: self.llm_reachable_changed.emit(ok))
        self.reads.error.connect(lambda exc: self.error.emit(str(exc)))
        self.writer.error.connect(lambda exc: self.error.emit(str(exc)))
        self._outside_busy = False
        self._outside_timer = QTimer(self)
        self._outside_timer.setInterval(self.OUTSIDE_EVERY_MS)
        self._outside_timer.timeout.connect(self.check_outside)

    home = property(lambda self: self.mem.home)
    settings = property(lambda self: self.mem.settings)
    llm_configured = property(lambda self: self.mem.connection.configured)
    llm_needs_key = property(lambda self: self.mem.connection.needs_key)  # the journal's AI, without a key here
    llm_mode = property(lambda self: self.mem.connection.mode, doc="How the server is asked; None before the probe.")
    encrypted = property(lambda self: self.mem.keys.encrypted)
    has_passphrase = property(lambda self: self.mem.keys.has_passphrase)
    keyring_keeps_key = property(lambda self: self.mem.keys.keyring_keeps_key)

    @property
    def idle(self) -> bool:
        """Nothing in flight (used by screenshots and tests to wait for the UI to settle)."""
        return self.reads.in_flight == 0 and not self.writer.busy

    def read(self, op: Callable[[Memoir], R], on_done: Callable[[R], object] | None = None,
              on_error: Callback = None) -> None:
        """`op(mem)` on the reads pool, where nothing can be written."""
        QueryOp(self, op).run(on_done, on_error)

    def change(self, op: Callable[[Memoir], R], on_done: Callable[[R], object] | None = None,
              on_error: Callback = None, *, poke: bool = False) -> None:
        """`op(mem)` on the writer; `changed` follows. `poke`: it queued a job, which runs now."""
        CoreOp(self, op, poke=poke).run(on_done, on_error)

    def start(self) -> None:
        self.writer.start()
        self._outside_timer.start()
        self.refresh_status()
        self.check_llm()
        self.read(lambda m: m.models.warm())
        if self.mem.models.index_switch is not None:  # a new model's index left half built at the last quit
            build_next_index(self)

    def shutdown(self, grace_ms: int) -> bool:
        """Stop taking work; wait up to `grace_ms` for running tasks. True if all finished."""
        self._outside_timer.stop()
        self.writer.stop()
        writer_done = self.writer.wait(grace_ms)
        reads_done = self.reads.wait(grace_ms)
        self.reads.close()
        return writer_done and reads_done

    def check_outside(self) -> None:
        """Another process on this journal (the MCP server, memoir-cli) writes too: its changes reach
        the screens as `changed`, as our own do."""
        if self._outside_busy:
            return
        self._outside_busy = True

        def done(changes: Changes) -> None:
            self._outside_busy = False
            if changes:
                self.changed.emit(changes)

        def failed(exc: BaseException) -> None:
            self._outside_busy = False
            log.warning("could not read what other programs changed: %s", exc.__class__.__name__)

        self.read(lambda m: m.outside_changes(), done, failed)

    def refresh_status(self) -> None:
        self.read(lambda m: m.jobs.status(), self.status_changed.emit)

    def check_llm(self, on_done: Callback = None) -> None:
        """Ping the configured LLM; reports True/False, or None when none is configured."""
        def done(state) -> None:
            self.llm_reachable_changed.emit(state)
            call_if_alive(on_done, state)

        self.read(lambda m: m.connection.check(), done)

    def _on_job_finished(self, result: dict) -> None:
        self.job_finished.emit(result)
        if result.get("state") == "done":
            self.changed.emit(Changes.from_dict((result.get("result") or {}).get("changes")))
