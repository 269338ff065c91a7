"""`SyncStatusLabel`: the sync state in the status bar, kept fresh: "Syncing…" with how far a round has
got, "Synced 2 minutes ago", or why the last round did not work. A click opens Settings → Sync.

A failure is said once as a status-bar message, in a sentence; a round that fails the same way at the
next tick says nothing new (the label keeps the short form, its tooltip the sentence)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QStatusBar

from memoir_desktop.ui.sync import words
from memoir_desktop.ui.sync.address import kind_of
from memoir_desktop.ui.sync.auto_sync import AutoSync

MARK = "⇅ "
FRESH_MS = 30_000  # "Synced 2 minutes ago" stays true
SAY_MS = 15_000


class SyncStatusLabel(QLabel):
    clicked = Signal()

    def __init__(self, sync: AutoSync, bar: QStatusBar, parent=None):
        super().__init__(parent)
        self.sync, self.bar = sync, bar
        self.said: str | None = None  # the failure sentence said in the bar, not to be said again
        self.setContentsMargins(8, 0, 8, 0)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._fresh = QTimer(self)
        self._fresh.setInterval(FRESH_MS)
        self._fresh.timeout.connect(self.render)
        self._fresh.start()
        sync.started.connect(self._started)
        sync.progress.connect(self._progress)
        sync.finished.connect(self._done)
        sync.failed.connect(self._failed)
        # Methods, not lambdas: the window (and this label) may go before AutoSync and the backend.
        sync.status_known.connect(self.render)
        sync.backend.settings_changed.connect(self.render)  # an address set or cleared
        self.render()

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)

    def render(self, _status=None) -> None:
        sync = self.sync
        if sync.running:
            return  # the round's progress is shown
        if not sync.url:
            self.hide()
            return
        self.show()
        if not sync.can_sync:
            self.setText(MARK + self.tr("Not synced: the journal needs a passphrase"))
            self.setToolTip(
                self.tr("Sync needs your journal to have a passphrase. Click to open Settings → Sync."))
        elif sync.last_error is not None:
            self.setText(MARK + words.short_failure(sync.last_error))
            self.setToolTip(words.failure(sync.last_error, kind_of(sync.round_url or sync.url)))
        elif sync.last_report is not None and not sync.last_report.clean:
            # The round went through, but skipped a file or could not verify something: said, not hidden.
            self.setText(MARK + words.trouble(sync.last_report))
            self.setToolTip(words.round_result(sync.last_report))
        else:
            self.setText(MARK + words.synced_ago(sync.last_sync))
            self.setToolTip(self.tr("Your journal is kept in step with your other computers. Click to open "
                                    "Settings → Sync."))

    def _started(self) -> None:
        self.show()
        self.setText(MARK + words.progress("look", 0, 1))

    def _progress(self, stage: str, done: int, total: int) -> None:
        if self.sync.running:
            self.setText(MARK + words.progress(stage, done, total))

    def _done(self, _report) -> None:
        self.said = None
        self.render()

    def _failed(self, exc: BaseException) -> None:
        self.render()
        sentence = words.failure(exc, kind_of(self.sync.round_url or self.sync.url))
        if sentence != self.said:
            self.said = sentence
            self.bar.showMessage(sentence, SAY_MS)
