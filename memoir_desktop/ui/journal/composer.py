"""`Composer`: the input box. Enter sends, Shift+Enter starts a new line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QWidget

from memoir_desktop.ui.resources import icon


class ComposerEdit(QPlainTextEdit):
    submitted = Signal()

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Return, Qt.Key_Enter) and not (event.modifiers() & Qt.ShiftModifier):
            event.accept()
            self.submitted.emit()
            return
        super().keyPressEvent(event)


class Composer(QWidget):
    send = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 12, 10)
        self.edit = ComposerEdit()
        self.edit.setObjectName("composer")
        self.edit.setPlaceholderText(self.tr("How was your day? (Enter to send, Shift+Enter for a new line)"))
        self.edit.setAccessibleName(self.tr("Journal entry"))
        self.edit.setTabChangesFocus(True)
        self.edit.setFixedHeight(78)
        self.edit.submitted.connect(self._submit)
        layout.addWidget(self.edit, 1)
        self.button = QPushButton(icon("send"), "")
        self.button.setToolTip(self.tr("Send (Enter)"))
        self.button.setAccessibleName(self.tr("Send"))
        self.button.setFixedSize(44, 44)
        self.button.clicked.connect(self._submit)
        layout.addWidget(self.button, 0, Qt.AlignBottom)

    def set_placeholder(self, text: str) -> None:
        self.edit.setPlaceholderText(text)

    def focus(self) -> None:
        self.edit.setFocus(Qt.ShortcutFocusReason)

    def _submit(self) -> None:
        text = self.edit.toPlainText().strip()
        if not text:
            return
        self.edit.clear()
        self.send.emit(text)
