"""`AutoSync`: the sync rounds the app runs by itself, and the one way any round runs.

When a sync address is set (and the journal has the passphrase sync needs): a round at start, a few
seconds after the journal changed (debounced: a burst of writes is one round), every few minutes (what
the other computers wrote), and a short one at quit when something is still unsent. Settings → Sync's
"Sync now" asks the same object, so there are never two rounds at once: one asked for during a round
runs after it.

Threading rule: a round runs on the writer's pool as background work (`submit_background`): after any
user write waiting, on a thread of its own (ui/background_writer.py), so the user's edits never wait for
the network. The core takes its write lock only for each short step of a round. Results and progress
arrive on the UI thread by signals. A round that fails changes nothing it did not finish (core/sync):
the failure is said once and the next tick tries again.

There is one per AsyncMemoir (`AutoSync.of`), not per window: a window rebuilt in another language
must not start a second round beside the first.
"""

from __future__ import annotations

import logging
from datetime import datetime

from PySide6.QtCore import QObject, QTimer, Signal

from memoir_desktop.core.changes import Changes
from memoir_desktop.ui.sync.address import WEBDAV, kind_of, with_login

log = logging.getLogger(__name__)


class AutoSync(QObject):
    started = Signal()
    progress = Signal(str, int, int)  # stage, done, total (core/sync/report.py)
    finished = Signal(object)  # the SyncReport of a round that went through
    status_known = Signal(object)  # SyncStatus (last sync's time, notices not seen): at start, after a round
    failed = Signal(object)  # the exception (ui/sync/words.py says it)
    received = Signal(object)  # a SyncReport that brought changes from another computer

    AFTER_WRITE_MS = 5_000  # after the last change of a burst
    EVERY_MS = 5 * 60_000  # what the other computers wrote reaches this one within minutes
    SOON_MS = 1_000  # after the address changed in Settings
    AT_QUIT_MS = 5_000  # the longest the quit waits for its round; the next start takes up the rest

    def __init__(self, backend):
        super().__init__(backend)
        self.backend = backend
        self.running = False
        self.last_sync: datetime | None = None
        self.last_report = None
        self.last_error: BaseException | None = None
        self.unsent = False  # the journal changed since the last round began: the quit round has work
        # A WebDAV login kept only until memoir closes, where no keyring can (address -> user, password).
        self.session_logins: dict[str, tuple[str, str]] = {}
        self.round_url = ""  # the address of the round running or last run
        self._again: str | None = None  # the address of a round asked for while one ran
        self._announcing = False  # our own `changed` after a round is no local change to send
        self._url = backend.settings.sync_url
        self._after_write = self._timer(self.AFTER_WRITE_MS, single=True)
        self._every = self._timer(self.EVERY_MS, single=False)
        self._soon = self._timer(self.SOON_MS, single=True)
        backend.changed.connect(self._journal_changed)
        backend.settings_changed.connect(self._settings_changed)

    @classmethod
    def of(cls, backend) -> AutoSync:
        """The one of this backend (made on first use)."""
        found = getattr(backend, "_auto_sync", None)
        if found is None:
            found = backend._auto_sync = cls(backend)
        return found

    @staticmethod
    def find(backend) -> AutoSync | None:
        """The one of this backend, if it was made."""
        return getattr(backend, "_auto_sync", None)

    def _timer(self, ms: int, single: bool) -> QTimer:
        timer = QTimer(self)
        timer.setInterval(ms)
        timer.setSingleShot(single)
        timer.timeout.connect(self._tick)
        return timer

    # -- state ------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.backend.settings.sync_url or ""

    @property
    def can_sync(self) -> bool:
        """Sync needs an encrypted journal with a passphrase: it opens the lock box kept in the sync place."""
        return bool(self.backend.encrypted and self.backend.has_passphrase)

    @property
    def on(self) -> bool:
        return bool(self.url) and self.can_sync

    # -- when ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """At start: a round, then one every few minutes; the last sync's time and notices meanwhile."""
        self._every.start()
        self.backend.read(lambda m: m.sync.status(), self._status_read, lambda _exc: None)
        if self.on:
            self.sync_now()

    def _tick(self) -> None:
        if self.on:
            self.sync_now()

    def _journal_changed(self, changes: Changes) -> None:
        if self._announcing or not (changes.entries or changes.memories or changes.graph):
            return
        self.unsent = True
        if self.on:
            self._after_write.start()  # restarted by each change of a burst

    def _settings_changed(self, settings) -> None:
        if settings.sync_url != self._url:
            self._url = settings.sync_url
            if self.on:
                self._soon.start()

    def at_quit(self) -> bool:
        """A last round for what is still unsent; True while one runs (the quit waits up to AT_QUIT_MS)."""
        for timer in (self._after_write, self._every, self._soon):
            timer.stop()
        if not self.running and self.on and self.unsent:
            self.sync_now()
        return self.running

    # -- a round -------------------------------------------------------------------------------------

    def sync_now(self, url: str | None = None, passphrase: str | None = None) -> None:
        """A round with `url` (Settings → Sync, not saved yet) or the address in the settings; `passphrase`:
        the new one, typed after it was changed on another computer (used for this round, never kept)."""
        url = url or self.url
        if not url or not self.can_sync:
            return
        if self.running:
            self._again = url
            return
        self.running = True
        self.round_url = url
        self.unsent = False
        self._after_write.stop()
        self.started.emit()
        mem, target = self.backend.mem, self._login_url(url)

        def work():
            # A queued signal: safe from the pool.
            report = (mem.sync.use_new_passphrase(passphrase, target, progress=self.progress.emit) if passphrase
                      else mem.sync.run(target, progress=self.progress.emit))
            return report, mem.sync.status()

        self.backend.writer.submit_background(work, self._done, self._failed)

    def _login_url(self, url: str) -> str:
        login = self.session_logins.get(url) if kind_of(url) == WEBDAV else None
        return with_login(url, *login) if login else url

    def _done(self, outcome) -> None:
        report, status = outcome
        self.running = False
        self.last_report, self.last_error, self.last_sync = report, None, status.last_sync
        self.status_known.emit(status)
        self.finished.emit(report)
        if report.pulled or report.purged:
            self._announce(report)
        self._next()

    def _failed(self, exc: BaseException) -> None:
        self.running = False
        self.last_error = exc
        self.unsent = True  # what this round was sending may not have got there
        log.info("sync round did not finish: %s", getattr(exc, "code", "unexpected"))
        self.failed.emit(exc)
        url, self._again = self._again, None
        if url and url != self.round_url:  # another place asked for meanwhile (Settings → Sync): tried now
            self.sync_now(url)
        # The same place is not tried again at once: the next tick tries.

    def _next(self) -> None:
        url, self._again = self._again, None
        if url:
            self.sync_now(url)

    def _announce(self, report) -> None:
        """What came from another computer reaches the screens. A round does not say which rows it
        changed, so the pages that list them reload (`received`), and the flags go out as Changes."""
        self._announcing = True
        try:
            self.backend.changed.emit(Changes(graph=True, proposals=True, summary=True))
            self.received.emit(report)
        finally:
            self._announcing = False

    def _status_read(self, status) -> None:
        if self.running:
            return  # the round's own status comes after it
        self.last_sync = status.last_sync
        self.status_known.emit(status)
