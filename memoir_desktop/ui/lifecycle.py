"""`AppLifecycle`: start-up (progress window → main window), language switch, shut-down.

Shut-down rule: stop taking jobs, give a running one a few seconds, then leave. A job cut
short stays a durable row in SQLite and resumes at the next start, so nothing is lost by
not waiting for a slow LLM.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QMessageBox

from memoir_desktop.ui import i18n
from memoir_desktop.ui.single_instance import SingleInstance
from memoir_desktop.ui.startup import MemoirOpener, StartupWindow
from memoir_desktop.ui.tasks import TaskRunner

if TYPE_CHECKING:
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.main_window import MainWindow

# The main window and the engine behind it (qdrant-client, openai, the pages) take seconds to
# import; they are imported by the opener's worker while the start-up window is already up.

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_MS = 3_000


class AppLifecycle(QObject):
    def __init__(self, app: QApplication, home: Path, instance: SingleInstance | None = None):
        super().__init__(app)
        self.app = app
        self.home = home
        self.instance = instance
        self.backend: AsyncMemoir | None = None
        self.window: MainWindow | None = None
        self.startup = StartupWindow()
        # One reads pool for the whole run: it opens the journal, then serves the screens.
        self.reads = TaskRunner(3, self)
        self.opener = MemoirOpener(home, self, reads=self.reads)
        self.opener.progress.connect(self.startup.set_step)
        self.opener.downloading.connect(self.startup.skip.setVisible)
        self.startup.skip.clicked.connect(self.opener.skip_download)
        self.opener.ready.connect(self._ready)
        self.opener.failed.connect(self._failed)
        if instance is not None:
            instance.activated.connect(self._raise)

    def start(self) -> None:
        self.startup.show()
        self.opener.start()

    def _ready(self, mem) -> None:
        from memoir_desktop.ui.async_memoir import AsyncMemoir

        self.backend = AsyncMemoir(mem, self, reads=self.reads)
        self.window = self._make_window()
        self.window.show()
        self.startup.close()
        self.window.start()

    def _make_window(self):
        from memoir_desktop.ui.main_window import MainWindow

        window = MainWindow(self.backend)
        window.language_changed.connect(self._switch_language)
        return window

    def _switch_language(self, language: str) -> None:
        """Rebuild the window in the new language (every string is set at construction)."""
        i18n.install(language)
        old = self.window
        old.save_state()
        self.window = self._make_window()
        self.window.show()
        old.rebuilding = True
        old.close()
        old.deleteLater()
        self.window.show_current()
        self.backend.check_llm()

    def _failed(self, message: str) -> None:
        self.startup.close()
        box = QMessageBox(QMessageBox.Critical, "memoir",
                          self.tr("The journal could not be opened.\n\n{error}\n\nData folder: {home}").format(
                              error=message, home=self.home))
        box.exec()
        self.app.exit(1)

    def _raise(self) -> None:
        if self.window is not None:
            self.window.raise_window()
        else:
            self.startup.raise_()
            self.startup.activateWindow()

    def shutdown(self) -> bool:
        """True when everything stopped cleanly; False when a task is still running."""
        if self.instance is not None:
            self.instance.release()
        if self.backend is None:
            return True
        clean = self.backend.shutdown(SHUTDOWN_GRACE_MS)
        if clean:
            self.backend.mem.close()
        else:
            log.info("a background task is still running; its job resumes at the next start")
        return clean
