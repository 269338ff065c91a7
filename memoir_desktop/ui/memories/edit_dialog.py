"""Writing a memory's text: `EditMemoryDialog` changes one (saved as a user edit, the AI will then ask
first); `MemoryTextDialog` is what it shares with AddMemoryDialog (add_dialog.py)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout


class MemoryTextDialog(QDialog):
    """A hint, the text, what a subclass adds under it, an error line and Save / Cancel. Stays open
    until the save is done, so a refused text is shown right here. Subclasses give `empty_message`
    and `submit(on_done, on_error)`, which runs the save asynchronously."""

    def __init__(self, title: str, hint: str, text: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(480, 220)
        self.layout_ = QVBoxLayout(self)
        label = QLabel(hint)
        label.setWordWrap(True)
        label.setObjectName("muted")
        self.layout_.addWidget(label)
        self.editor = QPlainTextEdit(text)
        self.editor.setAccessibleName(self.tr("Memory text"))
        self.editor.setTabChangesFocus(True)  # Tab goes on to Save and Cancel; a memory has no tab in it
        self.layout_.addWidget(self.editor, 1)
        self.add_fields()
        self.error = QLabel()
        self.error.setObjectName("opDelete")
        self.error.setWordWrap(True)
        self.error.hide()
        self.layout_.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.layout_.addWidget(self.buttons)

    def add_fields(self) -> None:
        """Widgets between the text and the error line (none here)."""

    def empty_message(self) -> str:
        raise NotImplementedError

    def submit(self, on_done: Callable, on_error: Callable) -> bool:
        """Start the save; False when there is nothing to run (the dialog just closes)."""
        raise NotImplementedError

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(text)

    def accept(self) -> None:
        if not self.text():
            self.show_error(self.empty_message())
            return
        self.buttons.setEnabled(False)
        self.error.hide()
        if not self.submit(self._saved, self._failed):
            super().accept()

    def _saved(self, _result=None) -> None:
        super().accept()

    def _failed(self, exc: BaseException) -> None:
        self.buttons.setEnabled(True)
        self.show_error(str(exc))

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()


class EditMemoryDialog(MemoryTextDialog):
    """`save(text, on_done, on_error)` is given by the caller and runs the edit asynchronously."""

    def __init__(self, memory: dict, save: Callable | None = None, parent=None):
        self.memory = memory
        self._save = save
        super().__init__(self.tr("Edit memory"),
                         self.tr("Your edit is kept as yours: the AI will ask before changing this memory again."),
                         memory.get("memory", ""), parent)

    def empty_message(self) -> str:
        return self.tr("A memory cannot be empty. To remove it, use Forget.")

    def submit(self, on_done: Callable, on_error: Callable) -> bool:
        if self._save is None:
            return False
        self._save(self.text(), on_done, on_error)
        return True
