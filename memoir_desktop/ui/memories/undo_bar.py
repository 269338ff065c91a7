"""`UndoBar`: "Forgotten: …  [Undo]" for a few seconds after a Forget."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton


class UndoBar(QFrame):
    undo = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("undoBar")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 8, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        row.addWidget(self.label, 1)
        self.button = QPushButton(self.tr("Undo"))
        self.button.setAccessibleName(self.tr("Undo forget"))
        self.button.setShortcut("Ctrl+Z")
        self.button.clicked.connect(self._undo)
        row.addWidget(self.button)
        self.memory: dict | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.hide()

    def show_forgotten(self, memory: dict, seconds: int = 10) -> None:
        self.memory = memory
        text = memory.get("memory", "")
        short = text if len(text) <= 60 else text[:57] + "…"
        self.label.setText(self.tr("Forgotten: “{text}”").format(text=short))
        self.show()
        self._timer.start(seconds * 1000)

    def _undo(self) -> None:
        if self.memory is not None:
            self.undo.emit(self.memory)
        self.memory = None
        self.hide()
