"""One downloadable search model in Settings: download with progress, stop, remove, and why it failed.

The download runs on the reads pool (mem.models.install) and reports through
`model_progress`; what a stopped or cut download fetched is kept, and the next try continues it.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from memoir_desktop.core.search_models.model_catalog import CatalogModel
from memoir_desktop.ui.tasks import call_if_alive


def install_search_model(backend, key: str, on_done=None, on_error=None) -> threading.Event:
    """Download a search model; progress arrives as `model_progress`. Set the returned event to cancel
    (what was fetched is kept: the next try continues it). On the reads pool: minutes of network and
    file writes, no journal write, and the writer must stay free for the user's edits."""
    cancel = threading.Event()

    def work(mem) -> str:
        return mem.models.install(key, progress=lambda done, total: backend.model_progress.emit(key, done, total),
                                        cancelled=cancel.is_set)

    backend.read(work, on_done, on_error)
    return cancel


class ModelDownload(QWidget):
    changed = Signal()  # installed or removed: the offer should be read again

    def __init__(self, backend, model: CatalogModel, download_text: str, here_text: str, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.model = model
        self.here_text = here_text
        self.installed = False
        self._cancel = None  # set while a download runs: the event that stops it
        self._failure = ""
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.download = QPushButton(download_text.format(size=model.size_mb))
        self.download.clicked.connect(self.start)
        self.cancel = QPushButton(self.tr("Stop"))
        self.cancel.clicked.connect(self.stop)
        self.remove = QPushButton(self.tr("Remove it"))
        self.remove.clicked.connect(self.remove_model)
        self.progress = QProgressBar()
        self.progress.setAccessibleName(self.tr("Download progress"))
        for w in (self.download, self.cancel, self.remove, self.progress):
            row.addWidget(w)
        row.addStretch(1)
        column.addLayout(row)
        self.state = QLabel()
        self.state.setWordWrap(True)
        column.addWidget(self.state)
        backend.model_progress.connect(self._progress)
        self.show_state(False)

    @property
    def downloading(self) -> bool:
        return self._cancel is not None

    def show_state(self, installed: bool, problem: str = "", *, in_use: bool = False) -> None:
        """`in_use`: search runs on it (or is being prepared with it), so it cannot be removed now."""
        self.installed = installed
        downloading = self.downloading
        self.download.setVisible(not installed and not downloading)
        self.cancel.setVisible(downloading)
        self.remove.setVisible(installed and not downloading and not in_use)
        self.progress.setVisible(downloading)
        if installed:
            self.state.setText(problem or self.here_text)
        elif self._failure:
            self.state.setText(self._failure)
        elif not downloading:
            self.state.setText(self.tr("Not downloaded yet. It comes once from its public home ({home}), "
                                       "checked before use.").format(home="huggingface.co"))

    def start(self) -> None:
        self._failure = ""
        self.state.setText(self.tr("Connecting…"))
        self.progress.setRange(0, 0)
        self._cancel = install_search_model(
            self.backend, self.model.key, lambda _where: call_if_alive(self._downloaded), lambda exc: call_if_alive(self._failed, exc))
        self.show_state(self.installed)

    def stop(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def _progress(self, key: str, done: int, total: int) -> None:
        if key != self.model.key or self._cancel is None:
            return
        if total:
            self.progress.setRange(0, max(1, total >> 20))
            self.progress.setValue(done >> 20)
        self.state.setText(self.tr("Downloading… {done} of {total} MB").format(done=done >> 20, total=total >> 20)
                           if total else self.tr("Downloading… {done} MB").format(done=done >> 20))

    def _downloaded(self) -> None:
        self._cancel = None
        self.changed.emit()

    def _failed(self, exc: BaseException) -> None:
        self._cancel = None
        self._failure = self.failure_text(exc)
        self.show_state(self.installed)

    def failure_text(self, exc: BaseException) -> str:
        """Why the download stopped, in the diarist's words (ModelUnavailable.kind)."""
        kind, host = getattr(exc, "kind", "other"), getattr(exc, "host", "") or "huggingface.co"
        if kind == "cancelled":
            return self.tr("Stopped. What was fetched is kept: the next download continues it.")
        if kind == "offline":
            return self.tr("{host} could not be reached: this computer may be offline. Try again once it is "
                           "connected.").format(host=host)
        if kind == "cut":
            return self.tr("The connection broke after {mb} MB. That part is kept: the next download continues "
                           "from there.").format(mb=getattr(exc, "kept_mb", 0))
        if kind == "checksum":
            return self.tr("The file that arrived was not the published one, so it was deleted. Please try again.")
        if kind == "missing":
            return self.tr("{host} no longer offers the model memoir needs for this computer.").format(host=host)
        return self.tr("Could not download: {error}").format(error=exc)

    def remove_model(self) -> None:
        self.backend.read(lambda m: m.models.remove(self.model.key), lambda _r=None: call_if_alive(self.changed.emit))
