"""`MemoirStatusBar`: pending writes, whether the LLM is reachable, the embedding model's state."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar


class MemoirStatusBar(QStatusBar):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.pending = QLabel()
        self.llm = QLabel()
        self.embedder = QLabel()
        for label in (self.pending, self.llm, self.embedder):
            label.setContentsMargins(8, 0, 8, 0)
        self.addPermanentWidget(self.progress)
        self.addPermanentWidget(self.pending)
        self.addPermanentWidget(self.llm)
        self.addPermanentWidget(self.embedder)
        self.pending_count = 0
        self.llm_state: bool | None = None
        self.set_pending(0)
        self.set_llm(None, configured=False)

    def set_pending(self, count: int) -> None:
        self.pending_count = count
        if count:
            self.pending.setText(self.tr("✎ %n entry(ies) waiting to be organized", None, count))
        else:
            self.pending.setText(self.tr("✓ All entries organized"))

    def set_llm(self, reachable: bool | None, configured: bool, model: str = "") -> None:
        self.llm_state = reachable
        if not configured:
            self.llm.setText(self.tr("○ No AI connected"))
            self.llm.setToolTip(self.tr("Connect OpenAI or a local Ollama in Settings (Ctrl+,)"))
        elif reachable is False:
            self.llm.setText(self.tr("○ AI unreachable"))
            self.llm.setToolTip(self.tr("Entries are saved and organized when the AI is back."))
        else:
            self.llm.setText(self.tr("● AI: {model}").format(model=model) if reachable
                             else self.tr("◌ AI: checking…"))
            self.llm.setToolTip("")

    def set_embedder(self, status: dict) -> None:
        state = status.get("state", "")
        text = {"ready": self.tr("Search model ready"), "fallback": self.tr("Search model: fallback in use"),
                "loading": self.tr("Loading search model…"), "not-loaded": self.tr("Search model not loaded"),
                "failed": self.tr("Search model failed to load")}.get(state, state)
        self.embedder.setText(text)
        self.embedder.setToolTip(status.get("message") or status.get("active") or "")

    def show_progress(self, done: int, total: int, text: str = "") -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        self.progress.setVisible(done < total)
        if text:
            self.showMessage(text, 3000)
