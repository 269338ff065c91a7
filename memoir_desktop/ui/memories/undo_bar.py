"""`UndoBar`: "Forgotten: …  [Undo] [✕]" after a Forget.

It is said to a screen reader when it appears, and stays until it is dismissed (✕, or Escape on it),
used, or replaced by the next Forget: a bar that vanished after ten seconds could vanish before it
was read, or before the keyboard reached Undo (WCAG 2.2.1, 4.1.3). Ctrl+Z is Undo while it shows."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from memoir_desktop.ui.shared.a11y import announce, put_away, short


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
        self.close_button = QPushButton("✕")
        self.close_button.setObjectName("linkButton")
        self.close_button.setAccessibleName(self.tr("Dismiss this message"))
        self.close_button.setToolTip(self.tr("Dismiss this message"))
        self.close_button.clicked.connect(self.dismiss)
        row.addWidget(self.close_button)
        self.memory: dict | None = None
        self.hide()

    def show_forgotten(self, memory: dict) -> None:
        self.memory = memory
        text = memory.get("memory", "")
        message = self.tr("Forgotten: “{text}”").format(text=short(text, 60))
        self.label.setText(message)
        self.button.setAccessibleName(self.tr("Undo forget: {text}").format(text=short(text)))
        self.show()
        announce(self, self.tr("Forgotten: “{text}”").format(text=text) + " " + self.tr("(Undo: Ctrl+Z)"))

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Escape:
            event.accept()
            self.dismiss()
            return
        super().keyPressEvent(event)

    def dismiss(self) -> None:
        self.memory = None
        put_away(self)

    def _undo(self) -> None:
        if self.memory is not None:
            self.undo.emit(self.memory)
        self.memory = None
        self.hide()
