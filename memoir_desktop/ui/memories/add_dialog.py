"""`AddMemoryDialog`: write a memory by hand (no AI needed). Saved as the user's own memory."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from PySide6.QtCore import QDate
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
)


class AddMemoryDialog(QDialog):
    """Stays open until the save is done, so an error is shown right here.

    `save(text, day_or_None, on_done, on_error)` is given by the caller and runs asynchronously.
    """

    def __init__(self, save: Callable, text: str = "", parent=None):
        super().__init__(parent)
        self._save = save
        self.setWindowTitle(self.tr("Add a memory"))
        self.resize(480, 240)
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("Write something to remember, in your own words. It is kept as yours: "
                              "an AI, if you connect one, will ask before changing it."))
        hint.setWordWrap(True)
        hint.setObjectName("muted")
        layout.addWidget(hint)
        self.editor = QPlainTextEdit(text)
        self.editor.setAccessibleName(self.tr("Memory text"))
        self.editor.setPlaceholderText(self.tr("e.g. My sister's birthday is March 3"))
        layout.addWidget(self.editor, 1)
        row = QHBoxLayout()
        self.dated = QCheckBox(self.tr("On a day:"))
        self.dated.setAccessibleName(self.tr("Give this memory a date"))
        self.date_edit = QDateEdit(QDate.currentDate())
        self.date_edit.setCalendarPopup(True)
        self.date_edit.setDisplayFormat("yyyy-MM-dd")
        self.date_edit.setAccessibleName(self.tr("Date of this memory"))
        self.date_edit.setEnabled(False)
        self.dated.toggled.connect(self.date_edit.setEnabled)
        row.addWidget(self.dated)
        row.addWidget(self.date_edit)
        row.addStretch(1)
        layout.addLayout(row)
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

    def set_day(self, day: date | None) -> None:
        self.dated.setChecked(day is not None)
        if day is not None:
            self.date_edit.setDate(QDate(day.year, day.month, day.day))

    def day(self) -> date | None:
        return self.date_edit.date().toPython() if self.dated.isChecked() else None

    def accept(self) -> None:
        if not self.text():
            self.show_error(self.tr("Write what to remember first."))
            return
        self.buttons.setEnabled(False)
        self.error.hide()
        self._save(self.text(), self.day(), self._saved, self._failed)

    def _saved(self, _result=None) -> None:
        super().accept()

    def _failed(self, exc: BaseException) -> None:
        self.buttons.setEnabled(True)
        self.show_error(str(exc))

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()
