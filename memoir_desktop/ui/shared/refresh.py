"""`RefreshWhenShown`: a page reloads its data when it is shown after a change, or shortly after a
change while it is on screen — never for a change nobody is looking at.

Changes arrive in bursts (a job that adds ten memories sends one notice, an import sends many):
the short delay folds a burst into one reload. The page keeps its own `reload()`; this object only
decides when it runs, and watches the page's Show events itself (no showEvent override needed).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class RefreshWhenShown(QObject):
    def __init__(self, page: QWidget, reload: Callable[[], None], delay_ms: int):
        super().__init__(page)
        self.page = page
        self.stale = True  # nothing loaded yet
        self._reload = reload
        self.timer = QTimer(page)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.run)
        page.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.page and event.type() == QEvent.Type.Show:
            self.shown()
        return False

    def changed(self, *_args) -> None:
        self.stale = True
        if self.page.isVisible():
            self.timer.start()

    def shown(self) -> None:
        if self.stale:
            self.run()

    def run(self) -> None:
        self.stale = False
        self._reload()
