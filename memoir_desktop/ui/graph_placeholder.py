"""The Graph tab until graph memory lands (another issue builds the real canvas)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class GraphPlaceholder(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        title = QLabel(self.tr("Graph memory: coming"))
        title.setObjectName("placeholderTitle")
        title.setAlignment(Qt.AlignCenter)
        layout.addWidget(title)
        text = QLabel(self.tr("People, places and things from your memories, and how they connect, "
                              "will be drawn here."))
        text.setObjectName("muted")
        text.setAlignment(Qt.AlignCenter)
        text.setWordWrap(True)
        layout.addWidget(text)
        layout.addStretch(1)
