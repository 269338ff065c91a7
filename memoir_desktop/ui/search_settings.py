"""Settings → Search: how the companion picks what it remembers before answering.

Three choices (core/search/context_rerank.py): the standard way every computer runs, a multilingual
reading model the user downloads once (fetched with progress, resumable, verified; it runs here),
or the connected AI companion itself (off by default: it costs tokens on every question, shown).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
)

from memoir_desktop.core.model_catalog import RERANKER
from memoir_desktop.ui.tasks import call_if_alive


class SearchGroup(QGroupBox):
    def __init__(self, backend, current: str, parent=None):
        super().__init__(self.tr("Search"), parent)
        self.backend = backend
        self._cancel = None  # set while a download runs: the event that stops it
        self._failure = ""
        self._offer: dict = {}
        form = QFormLayout(self)
        self.choice = QComboBox()
        self.choice.setAccessibleName(self.tr("How the companion picks memories"))
        self.choice.addItem(self.tr("Standard (works on every computer)"), "builtin")
        self.choice.addItem(self.tr("Better: a multilingual reading model"), "cross_encoder")
        self.choice.addItem(self.tr("Ask the AI companion to choose"), "llm")
        form.addRow(self.tr("Before answering"), self.choice)
        self.about = QLabel()
        self.about.setWordWrap(True)
        form.addRow(self.about)
        row = QHBoxLayout()
        self.download = QPushButton(self.tr("Download the reading model ({size} MB)").format(size=RERANKER.size_mb))
        self.download.clicked.connect(self.start_download)
        self.cancel = QPushButton(self.tr("Stop"))
        self.cancel.clicked.connect(self.stop_download)
        self.remove = QPushButton(self.tr("Remove it"))
        self.remove.clicked.connect(self.remove_model)
        self.progress = QProgressBar()
        self.progress.setAccessibleName(self.tr("Download progress"))
        for w in (self.download, self.cancel, self.remove, self.progress):
            row.addWidget(w)
        row.addStretch(1)
        form.addRow(row)
        self.state = QLabel()
        self.state.setWordWrap(True)
        form.addRow(self.state)
        self._wanted = current
        self.choice.currentIndexChanged.connect(self._explain)
        backend.model_progress.connect(self._progress)
        self._show_offer({})
        self.reload()

    def value(self) -> str:
        return self.choice.currentData()

    def reload(self) -> None:
        self.backend.search_models(self._show_offer)

    # -- showing -------------------------------------------------------------------------------

    def _installed(self) -> bool:
        return any(m["key"] == RERANKER.key and m["installed"] for m in self._offer.get("models", []))

    def _show_offer(self, offer: dict) -> None:
        self._offer = offer
        installed, downloading = self._installed(), self._cancel is not None
        model_item = self.choice.model().item(1)
        model_item.setEnabled(installed)
        llm_item = self.choice.model().item(2)
        llm_item.setEnabled(bool(offer.get("llm_configured")))
        tokens = offer.get("llm_tokens") or 0
        self.choice.setItemText(2, self.tr("Ask the AI companion to choose (about {n} tokens a question)")
                                .format(n=f"{tokens:,}") if tokens else self.tr("Ask the AI companion to choose"))
        wanted = self._wanted if self.choice.findData(self._wanted) >= 0 else "builtin"
        if (wanted == "cross_encoder" and not installed and offer) or (wanted == "llm" and offer
                                                                     and not offer.get("llm_configured")):
            wanted = "builtin"
        self.choice.setCurrentIndex(self.choice.findData(wanted))
        self.download.setVisible(not installed and not downloading)
        self.cancel.setVisible(downloading)
        self.remove.setVisible(installed and not downloading)
        self.progress.setVisible(downloading)
        if installed:
            self.state.setText(self.tr("The reading model is on this computer and runs here: nothing is sent "
                                       "anywhere."))
        elif self._failure:
            self.state.setText(self._failure)
        elif not downloading:
            self.state.setText(self.tr("Not downloaded yet. It comes once from its public home ({home}), "
                                       "checked before use.").format(home="huggingface.co"))
        problem = (offer.get("reranker") or {}).get("problem") or ""
        if installed and problem and problem != "the reranker model is not downloaded":
            self.state.setText(self.tr("The reading model is here but could not be used: {why}. The standard "
                                       "way is used meanwhile.").format(why=problem))
        self._explain()

    def _explain(self, *_args) -> None:
        mode = self.choice.currentData()
        if mode == "cross_encoder":
            text = self.tr("A reading model looks at your question and each memory together, so it finds what "
                           "shares no word with your question (사랑니 for “이 뽑은 거”). It runs on this "
                           "computer; answers take a little longer.")
        elif mode == "llm":
            text = self.tr("Before each answer, your question and up to 30 of your memories are sent to the AI "
                           "companion, which picks the ones that fit. This costs tokens on every question.")
        else:
            text = self.tr("Memories are picked by meaning, words and dates, on this computer. Download the "
                           "reading model for better matches in Korean and English.")
        self.about.setText(text)
        self._wanted = mode

    # -- actions ---------------------------------------------------------------------------------

    def start_download(self) -> None:
        self._failure = ""
        self.state.setText(self.tr("Connecting…"))
        self.progress.setRange(0, 0)
        self._cancel = self.backend.install_search_model(
            RERANKER.key, lambda _where: call_if_alive(self._downloaded),
            lambda exc: call_if_alive(self._failed, exc))
        self._show_offer(self._offer)

    def stop_download(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def _progress(self, key: str, done: int, total: int) -> None:
        if key != RERANKER.key or self._cancel is None:
            return
        if total:
            self.progress.setRange(0, max(1, total >> 20))
            self.progress.setValue(done >> 20)
        self.state.setText(self.tr("Downloading… {done} of {total} MB").format(done=done >> 20, total=total >> 20)
                           if total else self.tr("Downloading… {done} MB").format(done=done >> 20))

    def _downloaded(self) -> None:
        self._cancel = None
        self._wanted = "cross_encoder"  # what the user downloaded it for; saved with the dialog
        self.reload()

    def _failed(self, exc: BaseException) -> None:
        self._cancel = None
        self._failure = self.failure_text(exc)
        self._show_offer(self._offer)

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
        self._wanted = "builtin"
        self.backend.remove_search_model(RERANKER.key, lambda _r=None: call_if_alive(self.reload))
