"""`AddMemoryDialog`: write a memory by hand (no AI needed). Saved as the user's own memory."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from PySide6.QtCore import QDate
from PySide6.QtWidgets import QCheckBox, QDateEdit, QHBoxLayout

from memoir_desktop.ui.memories.edit_dialog import MemoryTextDialog


class AddMemoryDialog(MemoryTextDialog):
    """`save(text, day_or_None, on_done, on_error)` is given by the caller and runs asynchronously."""

    def __init__(self, save: Callable, text: str = "", parent=None):
        self._save = save
        super().__init__(self.tr("Add a memory"),
                         self.tr("Write something to remember, in your own words. It is kept as yours: "
                                 "an AI, if you connect one, will ask before changing it."), text, parent)
        self.resize(480, 240)
        self.editor.setPlaceholderText(self.tr("e.g. My sister's birthday is March 3"))

    def add_fields(self) -> None:
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
        self.layout_.addLayout(row)

    def set_day(self, day: date | None) -> None:
        self.dated.setChecked(day is not None)
        if day is not None:
            self.date_edit.setDate(QDate(day.year, day.month, day.day))

    def day(self) -> date | None:
        return self.date_edit.date().toPython() if self.dated.isChecked() else None

    def empty_message(self) -> str:
        return self.tr("Write what to remember first.")

    def submit(self, on_done: Callable, on_error: Callable) -> bool:
        self._save(self.text(), self.day(), on_done, on_error)
        return True
