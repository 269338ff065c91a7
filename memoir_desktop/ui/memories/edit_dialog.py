"""`EditMemoryDialog`: change a memory's text. Saved as a user edit (the AI will then ask first)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout


class EditMemoryDialog(QDialog):
    """Stays open until the save is done, so a refused text (InvalidInput) is shown right here.

    `save(text, on_done, on_error)` is given by the caller and runs the edit asynchronously.
    """

    def __init__(self, memory: dict, save: Callable | None = None, parent=None):
        super().__init__(parent)
        self.memory = memory
        self._save = save
        self.setWindowTitle(self.tr("Edit memory"))
        self.resize(480, 220)
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("Your edit is kept as yours: the AI will ask before changing this memory again."))
        hint.setWordWrap(True)
        hint.setObjectName("muted")
        layout.addWidget(hint)
        self.editor = QPlainTextEdit(memory.get("memory", ""))
        self.editor.setAccessibleName(self.tr("Memory text"))
        layout.addWidget(self.editor, 1)
        self.error = QLabel()
        self.error.setObjectName("opDelete")
        self.error.setWordWrap(True)
        self.error.hide()
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.buttons = buttons

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(text)

    def accept(self) -> None:
        if not self.text():
            self.show_error(self.tr("A memory cannot be empty. To remove it, use Forget."))
            return
        if self._save is None:
            super().accept()
            return
        self.buttons.setEnabled(False)
        self.error.hide()
        self._save(self.text(), self._saved, self._failed)

    def _saved(self, _result=None) -> None:
        super().accept()

    def _failed(self, exc: BaseException) -> None:
        self.buttons.setEnabled(True)
        self.show_error(str(exc))

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
