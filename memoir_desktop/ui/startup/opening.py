"""Opening the journal off the UI thread, with a small progress window.

The first run loads the embedding model and may build the vector index; the Korean analyser
(Kiwi) takes a few seconds to load and holds Python's GIL meanwhile, so it is loaded here,
behind the progress window, rather than on the first search with the main window up.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.ui.shared.resources import icon
from memoir_desktop.ui.tasks import TaskRunner

log = logging.getLogger(__name__)


class StartupWindow(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent, Qt.Window | Qt.WindowTitleHint | Qt.CustomizeWindowHint)
        self.setWindowTitle("memoir")
        self.setWindowIcon(icon("memoir"))
        self.setFixedWidth(380)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 20)
        title = QLabel(self.tr("Opening your journal"))
        title.setObjectName("welcomeTitle")
        layout.addWidget(title)
        self.message = QLabel(self.tr("Starting…"))
        self.message.setObjectName("muted")
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # busy until a step reports a count
        self.bar.setAccessibleName(self.tr("Startup progress"))
        layout.addWidget(self.bar)
        # Only while the model downloads: on a slow line nobody should have to wait for it.
        self.skip = QPushButton(self.tr("Skip for now"))
        self.skip.setToolTip(self.tr("Open the journal now with a simpler search model; "
                                     "the download is tried again later"))
        self.skip.hide()
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.skip)
        layout.addLayout(row)

    def set_step(self, text: str, done: int = 0, total: int = 0) -> None:
        self.message.setText(text)
        self.bar.setRange(0, total)
        self.bar.setValue(done)


class MemoirOpener(QObject):
    """Opens `Memoir` on a worker; `progress`, then `ready(mem)` or `failed(message)`."""

    progress = Signal(str, int, int)
    downloading = Signal(bool)
    ready = Signal(object)
    failed = Signal(str)
    locked = Signal(str, bool)  # why a passphrase is needed (a crypto code), and whether the journal is new

    def __init__(self, home: Path, parent: QObject | None = None, reads: TaskRunner | None = None):
        """`reads`: the pool that opens the journal (its own: opening writes; the screens read elsewhere)."""
        super().__init__(parent)
        self.home = home
        self.model_problem = ""
        self._skip = threading.Event()
        self._runner = reads or TaskRunner(1, self)
        self.passphrase: str | None = None  # typed by the user; forgotten once the journal is open

    def start(self) -> None:
        self._runner.submit(self._open, self._opened, self._not_opened)

    def _opened(self, mem) -> None:
        self.passphrase = None
        self.ready.emit(mem)

    def _not_opened(self, exc: BaseException) -> None:
        from memoir_desktop.core.keys import crypto

        if isinstance(exc, crypto.KeyError_) and not isinstance(exc, crypto.KeyFileDamaged):
            creating = not crypto.is_encrypted(self.home) and not (self.home / "memoir.db").exists()
            self.locked.emit(exc.code, creating)
            return
        log.error("the journal could not be opened: %s", exc.__class__.__name__)
        from memoir_desktop.ui.shared.reasons import reason as _reason

        self.failed.emit(_reason(exc))

    def skip_download(self) -> None:
        self._skip.set()

    def _downloading(self, done: int, total: int) -> None:
        if done == 0:
            self.downloading.emit(True)
        # Kilobytes: the bar's int range must hold the 70 MB total.
        self.progress.emit(self.tr("Downloading the multilingual search model (first run only): "
                                   "{done} / {total} MB").format(done=done // 1_000_000,
                                                                  total=total // 1_000_000 or "?"),
                           done // 1000, total // 1000)

    def _open(self):
        # Heavy imports (SQL, vector store, LLM client) happen here, off the UI thread.
        from memoir_desktop.core import Memoir, config, lexical
        from memoir_desktop.core.search_models import model_files

        try:
            self.model_problem = model_files.ensure(config.load_settings(self.home).embed_model,
                                                    progress=self._downloading, cancelled=self._skip.is_set)
        finally:
            self.downloading.emit(False)
        if self.model_problem:
            # The journal opens anyway, with an installed fallback model; the status bar
            # says which; a later start tries again (core/search_models/model_files.py RETRY_AFTER_S).
            self.progress.emit(self.tr("The multilingual search model could not be downloaded ({reason}). "
                                       "memoir opens with a simpler search model and tries again later.")
                               .format(reason=self.model_problem), 0, 0)
        self.progress.emit(self.tr("Opening the journal…"), 0, 0)
        mem = Memoir.open(self.home, reconcile=False, passphrase=self.passphrase)
        if mem.resumed_jobs:
            self.progress.emit(self.tr("Finishing %n entry(s) left half-organized…", None, mem.resumed_jobs), 0, 0)
        self.progress.emit(self.tr("Loading the search model (first run can take a while)…"), 0, 0)

        def indexing(done: int, total: int) -> None:
            self.progress.emit(self.tr("Indexing memories…"), done, total)

        try:
            mem.reconcile(indexing)
        except Exception:
            mem.close()
            raise
        try:
            mem.models.embedder.load()  # what the step above announced; a journal with nothing to index never loaded it
        except RuntimeError:
            pass  # no model at all: the status bar says search by meaning is off; words still work
        self.progress.emit(self.tr("Preparing Korean search…"), 0, 0)
        lexical.warm_up()
        # Module imports only (no widgets are made off the UI thread): the UI thread then
        # builds the main window without waiting for imports.
        import memoir_desktop.ui.async_memoir  # noqa: F401
        import memoir_desktop.ui.main_window  # noqa: F401

        return mem
