"""One chat message (a bubble with Markdown and its time) and the one-line notices between them."""

from __future__ import annotations

import math
from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout

from memoir_desktop.ui.formatting import short_time


class MessageBubble(QFrame):
    def __init__(self, role: str, text: str, when: datetime | None, entry_id: int | None = None, parent=None):
        super().__init__(parent)
        self.role = role
        self.entry_id = entry_id
        self.setObjectName("userBubble" if role == "user" else "assistantBubble")
        self.setSizePolicy(QSizePolicy.Maximum, QSizePolicy.Preferred)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 6)
        layout.setSpacing(2)
        self.body = QLabel()
        self.body.setTextFormat(Qt.MarkdownText)
        self.body.setWordWrap(True)
        self.body.setOpenExternalLinks(True)
        self.body.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.body.setText(text)
        layout.addWidget(self.body)
        self.time_label = QLabel(short_time(when) if when else "")
        self.time_label.setObjectName("timestamp")
        self.time_label.setAlignment(Qt.AlignRight if role == "user" else Qt.AlignLeft)
        layout.addWidget(self.time_label)
        who = self.tr("You") if role == "user" else self.tr("Companion")
        self.setAccessibleName(who)
        self.setAccessibleDescription(text)

    def fit_width(self, max_width: int) -> None:
        """Let short messages stay narrow and long ones use up to `max_width`.

        A word-wrapped QLabel picks a narrow width on its own; giving the text its ideal width
        (as laid out by the same Markdown engine) keeps a two-line message from wrapping at
        every few words.
        """
        self.setMaximumWidth(max_width)
        margins = self.layout().contentsMargins()
        room = max(80, max_width - margins.left() - margins.right())
        doc = QTextDocument()
        doc.setDefaultFont(self.body.font())
        doc.setMarkdown(self.body.text())
        doc.setTextWidth(room)
        self.body.setMinimumWidth(min(room, math.ceil(doc.idealWidth()) + 4))

    def set_text(self, text: str) -> None:
        self.body.setText(text)
        self.setAccessibleDescription(text)
        if self.maximumWidth() < 10_000:
            self.fit_width(self.maximumWidth())

    def set_pending(self, pending: bool) -> None:
        self.setProperty("pending", pending)
        self.style().unpolish(self)
        self.style().polish(self)
        if pending:
            self.time_label.setText(self.tr("saving…"))

    def confirm(self, entry_id: int | None, when: datetime | None = None) -> None:
        self.entry_id = entry_id
        self.set_pending(False)
        self.time_label.setText(short_time(when or datetime.now()))

    def set_highlighted(self, on: bool) -> None:
        self.setProperty("highlighted", on)
        self.style().unpolish(self)
        self.style().polish(self)


class NoticeLine(QLabel):
    """A calm, centred sentence in the conversation (e.g. the entry is saved, no LLM)."""

    def __init__(self, text: str, parent=None):
        super().__init__(text, parent)
        self.setObjectName("notice")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignCenter)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse)
