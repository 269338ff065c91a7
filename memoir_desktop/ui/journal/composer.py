"""`Composer`: the input box. Enter sends (the companion answers), Ctrl+Enter saves without a
reply, Shift+Enter starts a new line. On a past day it writes on that day, at the time shown."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from PySide6.QtCore import QEvent, Qt, QTime, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.shared.formatting import long_date
from memoir_desktop.ui.shared.resources import icon
from memoir_desktop.ui.shared.theme import colour

BACKDATED_DEFAULT = time(12, 0)


class ComposerEdit(QPlainTextEdit):
    submitted = Signal()
    saved = Signal()

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Return, Qt.Key_Enter):
            mods = event.modifiers()
            if mods & Qt.ControlModifier:
                event.accept()
                self.saved.emit()
                return
            if not mods & Qt.ShiftModifier:
                event.accept()
                self.submitted.emit()
                return
        super().keyPressEvent(event)


class Composer(QWidget):
    send = Signal(str)  # Enter: save, and ask the companion
    save = Signal(str)  # Ctrl+Enter: save only

    def __init__(self, parent=None):
        super().__init__(parent)
        self.day: date = date.today()
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 4, 12, 10)
        column.setSpacing(4)

        # Which day a past day's entry goes to, and at what time (hidden for today: now is used).
        self.day_line = QWidget()
        line = QHBoxLayout(self.day_line)
        line.setContentsMargins(4, 0, 0, 0)
        line.setSpacing(6)
        self.day_label = QLabel()
        self.day_label.setObjectName("muted")
        line.addWidget(self.day_label)
        self.time_edit = QTimeEdit(QTime(BACKDATED_DEFAULT.hour, BACKDATED_DEFAULT.minute))
        self.time_edit.setDisplayFormat("HH:mm")
        self.time_edit.setAccessibleName(self.tr("Time of the entry"))
        self.time_edit.setToolTip(self.tr("The time this entry is kept at on that day"))
        line.addWidget(self.time_edit)
        line.addStretch(1)
        self.day_line.hide()
        column.addWidget(self.day_line)

        row = QHBoxLayout()
        row.setSpacing(6)
        self.edit = ComposerEdit()
        self.edit.setObjectName("composer")
        self.edit.setAccessibleName(self.tr("Journal entry"))
        self.edit.setTabChangesFocus(True)
        self.edit.setFixedHeight(78)
        self.edit.submitted.connect(self._submit)
        self.edit.saved.connect(self._save)
        row.addWidget(self.edit, 1)
        # Send and Save side by side, Private under them: two rows, so the composer stays low enough for a
        # laptop screen at 200 % (three rows made it taller than the text box).
        buttons = QGridLayout()
        buttons.setSpacing(4)
        self.button = QPushButton(icon("send", colour("accent")), "")
        self.button.setToolTip(self.tr("Send: save and hear back from your companion (Enter)"))
        self.button.setAccessibleName(self.tr("Send"))
        self.button.setFixedHeight(32)
        self.button.setMinimumWidth(44)
        self.button.clicked.connect(self._submit)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save without a reply (Ctrl+Enter). You can ask your companion "
                                            "about it later."))
        self.save_button.setAccessibleName(self.tr("Save without a reply"))
        self.save_button.setMinimumWidth(44)
        self.save_button.setObjectName("cardAction")
        self.save_button.clicked.connect(self._save)
        buttons.addWidget(self.button, 0, 0)
        buttons.addWidget(self.save_button, 0, 1)
        self.private = QCheckBox(self.tr("Private"))
        self.private.setToolTip(self.tr("Private: the entry is only journaled. It is never sent to the AI "
                                        "(no reply, no memories made from it) and is found by search on this "
                                        "computer."))
        self.private.setAccessibleName(self.tr("Private entry"))
        self.private.toggled.connect(self._private_toggled)
        buttons.addWidget(self.private, 1, 0, 1, 2)
        buttons.setRowStretch(2, 1)
        row.addLayout(buttons)
        column.addLayout(row)
        self.set_day(self.day)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.StyleChange, QEvent.PaletteChange):  # the arrow keeps 3:1 in either theme
            self.button.setIcon(icon("send", colour("accent")))

    def set_day(self, day: date) -> None:
        """The day the next entry is written on."""
        changed = day != self.day
        self.day = day
        past = day != date.today()
        self.day_line.setVisible(past)
        self.edit.setAccessibleDescription(self.tr("Enter sends, Ctrl+Enter saves without a reply, Shift+Enter "
                                                   "starts a new line."))
        if past:
            self.day_label.setText(self.tr("Writing on {date}, at").format(date=long_date(day)))
            if changed:
                self.time_edit.setTime(QTime(BACKDATED_DEFAULT.hour, BACKDATED_DEFAULT.minute))
            self.edit.setPlaceholderText(self.tr("What happened that day? (Enter to send, Ctrl+Enter to save "
                                                 "only, Shift+Enter for a new line)"))
        else:
            self.edit.setPlaceholderText(self.tr("How was your day? (Enter to send, Ctrl+Enter to save only, "
                                                 "Shift+Enter for a new line)"))

    def timestamp(self) -> datetime | None:
        """When the entry is written: None for today (the moment it is saved), else that day at the time set."""
        if self.day == date.today():
            return None
        return datetime.combine(self.day, self.time_edit.time().toPython())

    def write_after(self, when: datetime | None) -> None:
        """On a past day, the next entry goes after `when` (the day's last entry, or the one just
        sent), so a back-dated entry does not land before what was already written that day."""
        if when is None or self.day == date.today() or when.date() != self.day:
            return
        later = min(when + timedelta(minutes=1), datetime.combine(self.day, time(23, 59)))
        current = self.time_edit.time().toPython()
        if later.time() > current:
            self.time_edit.setTime(QTime(later.hour, later.minute))

    def set_placeholder(self, text: str) -> None:
        self.edit.setPlaceholderText(text)

    def focus(self) -> None:
        self.edit.setFocus(Qt.ShortcutFocusReason)

    def _take(self) -> str:
        """The entry as written (its indentation and blank lines kept), or "" when there is nothing."""
        text = self.edit.toPlainText()
        if not text.strip():
            return ""
        self.edit.clear()
        return text

    def _private_toggled(self, private: bool) -> None:
        # A private entry is never sent: Enter saves it without a reply.
        self.button.setEnabled(not private)
        if private:
            self.edit.setPlaceholderText(self.tr("A private entry: only journaled, never sent to the AI (Enter "
                                                 "to save)"))
            self.edit.setAccessibleDescription(self.tr("A private entry: Enter saves it, Shift+Enter starts a "
                                                       "new line."))
        else:
            self.set_day(self.day)

    def is_private(self) -> bool:
        return self.private.isChecked()

    def _submit(self) -> None:
        if self.private.isChecked():
            self._save()
            return
        text = self._take()
        if text:
            self.send.emit(text)

    def _save(self) -> None:
        text = self._take()
        if text:
            self.save.emit(text)  # the page reads is_private() in its slot, before the box is cleared
            # Private is chosen for an entry, not for the ones after it (as Day One's lock is per entry).
            self.private.setChecked(False)
