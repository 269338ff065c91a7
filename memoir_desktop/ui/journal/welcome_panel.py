"""First-run welcome, and the slim banner shown while no AI companion is connected.

Both say the same thing about a missing companion in the same words (`no_companion_text`);
the page shows one of them at a time: the welcome on an empty today, else the banner.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from memoir_desktop.core.keys.secrets import keyring_available


def no_companion_text() -> str:
    return QCoreApplication.translate(
        "NoLLMBanner", "No AI companion is connected. Your entries are saved and searchable, and become memories "
                       "once one is connected.")


class WelcomePanel(QFrame):
    open_settings = Signal()
    join_requested = Signal()  # bring the journal kept on another computer here (ui/sync/join_flow.py)

    def __init__(self, llm_configured: bool, journal_empty: bool = False, parent=None):
        """`journal_empty`: no entry and no memory yet, so a journal kept elsewhere may take its place."""
        super().__init__(parent)
        self.setObjectName("welcome")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        title = QLabel(self.tr("Welcome to memoir"))
        title.setObjectName("welcomeTitle")
        layout.addWidget(title)
        intro = QLabel(self.tr(
            "Write about your day below. Everything stays on this computer. An AI companion answers "
            "with what it remembers, and makes memories of each conversation that you can review, edit "
            "or forget in the Memories tab."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        if not llm_configured:
            missing = QLabel(no_companion_text())
            missing.setWordWrap(True)
            layout.addWidget(missing)
            # Where the key goes is said as it is: without a keychain, only until memoir closes.
            how = QLabel(self.tr(
                "<b>Connect an AI companion</b> (optional):<ul>"
                "<li><b>OpenAI</b>: paste an API key in Settings. It is kept in your system keyring.</li>"
                "<li><b>Ollama</b> (free, runs locally): install Ollama, run <code>ollama pull qwen2.5</code>, "
                "then choose the Ollama preset in Settings (http://localhost:11434/v1).</li></ul>")
                if keyring_available() else self.tr(
                "<b>Connect an AI companion</b> (optional):<ul>"
                "<li><b>OpenAI</b>: paste an API key in Settings. This computer has no system keyring, so memoir "
                "keeps the key only until you close it, and asks for it again next time.</li>"
                "<li><b>Ollama</b> (free, runs locally): install Ollama, run <code>ollama pull qwen2.5</code>, "
                "then choose the Ollama preset in Settings (http://localhost:11434/v1).</li></ul>"))
            how.setTextFormat(Qt.RichText)
            how.setWordWrap(True)
            layout.addWidget(how)
            button = QPushButton(self.tr("Connect…"))
            button.setAccessibleName(self.tr("Open settings to connect an AI companion"))
            button.clicked.connect(self.open_settings)
            row = QHBoxLayout()
            row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)
        if journal_empty:
            elsewhere = QLabel(self.tr("Already keep your journal on another computer and sync it? Bring it "
                                       "here, and the two stay in step."))
            elsewhere.setWordWrap(True)
            layout.addWidget(elsewhere)
            self.join_button = QPushButton(self.tr("I already keep my journal on another computer…"))
            self.join_button.clicked.connect(self.join_requested)
            row = QHBoxLayout()
            row.addWidget(self.join_button)
            row.addStretch(1)
            layout.addLayout(row)


class NoLLMBanner(QFrame):
    open_settings = Signal()

    def __init__(self, parent=None, journal_model: str | None = None):
        """`journal_model`: the journal's AI was set on another computer and waits for this one's key."""
        super().__init__(parent)
        self.setObjectName("banner")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 8, 6)
        if journal_model:
            said = self.tr("Your journal uses {model}, set on another of your computers. Type its API key on "
                           "this computer too (keys never travel with the journal) to have memories made here "
                           "as well.").format(model=journal_model)
            label, name = self.tr("Type the key…"), self.tr("Open settings to type the API key")
        else:
            said, label, name = (no_companion_text(), self.tr("Connect…"),
                                 self.tr("Open settings to connect an AI companion"))
        text = QLabel(said)
        text.setWordWrap(True)
        row.addWidget(text, 1)
        button = QPushButton(label)
        button.setAccessibleName(name)
        button.clicked.connect(self.open_settings)
        row.addWidget(button)
