"""`TrashView`: the entries moved to the trash, each with Restore and Delete forever; and the
`ActionBar` that says what just happened to an entry ("moved to the trash · Undo").

Escape in the trash goes back to the day. After Restore or Delete forever the keyboard goes on to the
entry that took the row's place. The bar's message is said to a screen reader when it appears, and it
stays until it is dismissed (✕, or Escape on it) or the next message replaces it: a message that
vanishes on a timer may vanish before it is read (WCAG 2.2.1, 4.1.3)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.journal.entry_dialogs import first_lines
from memoir_desktop.ui.shared.a11y import announce, focus_stop, put_away, short
from memoir_desktop.ui.shared.formatting import date_time


class TrashRow(QFrame):
    restore_requested = Signal(dict)
    purge_requested = Signal(dict)

    def __init__(self, entry: dict, parent=None):
        super().__init__(parent)
        self.entry = entry
        self.setObjectName("memoryCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 8)
        layout.setSpacing(4)
        meta = QLabel(self.tr("Written {date} · moved to the trash {deleted}").format(
            date=date_time(entry.get("created_at")), deleted=date_time(entry.get("deleted_at"))))
        meta.setObjectName("cardMeta")
        layout.addWidget(meta)
        self.text = QLabel(first_lines(entry.get("content", ""), lines=3, chars=240))
        self.text.setTextFormat(Qt.PlainText)
        self.text.setWordWrap(True)
        self.text.setObjectName("cardText")
        layout.addWidget(self.text)
        actions = QHBoxLayout()
        actions.setSpacing(6)
        words = short(entry.get("content", ""))
        self.restore_button = QPushButton(self.tr("Restore"))
        self.restore_button.setObjectName("cardAction")
        self.restore_button.setAccessibleName(self.tr("Restore to its day: {text}").format(text=words))
        self.restore_button.clicked.connect(lambda: self.restore_requested.emit(self.entry))
        self.purge_button = QPushButton(self.tr("Delete forever"))
        self.purge_button.setObjectName("cardAction")
        self.purge_button.setAccessibleName(self.tr("Delete forever: {text}").format(text=words))
        self.purge_button.clicked.connect(lambda: self.purge_requested.emit(self.entry))
        actions.addWidget(self.restore_button)
        actions.addWidget(self.purge_button)
        actions.addStretch(1)
        layout.addLayout(actions)

    def set_busy(self, busy: bool) -> None:
        self.restore_button.setEnabled(not busy)
        self.purge_button.setEnabled(not busy)


class TrashView(QWidget):
    back_requested = Signal()
    restore_requested = Signal(dict)
    purge_requested = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.entries: list[dict] = []
        self.rows: list[TrashRow] = []
        # (row, "restore" or "purge", entry id): what the keyboard did, until that entry leaves the list
        self._acted: tuple[int, str, int] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 12, 18, 12)
        layout.setSpacing(8)
        top = QHBoxLayout()
        self.back_button = QPushButton(self.tr("‹ Back to the journal"))
        self.back_button.setObjectName("linkButton")
        self.back_button.setCursor(Qt.PointingHandCursor)
        self.back_button.clicked.connect(self.back_requested)
        top.addWidget(self.back_button)
        top.addStretch(1)
        layout.addLayout(top)
        title = QLabel(self.tr("Trash"))
        title.setObjectName("placeholderTitle")
        layout.addWidget(title)
        hint = QLabel(self.tr("Entries here are out of your journal, and their memories are set aside. Restore "
                              "one to bring it back with its memories, or delete it forever."))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setFocusPolicy(Qt.NoFocus)  # the rows' buttons take the keyboard; the area scrolls to them
        self.scroll.setMinimumHeight(40)  # a short window (200 %) scrolls the rows, not the whole page
        canvas = QWidget()
        canvas.setObjectName("cardCanvas")
        self._rows = QVBoxLayout(canvas)
        self._rows.setContentsMargins(4, 4, 4, 4)
        self._rows.setSpacing(8)
        self.empty_label = QLabel(self.tr("The trash is empty."))
        self.empty_label.setObjectName("muted")
        self.empty_label.setAlignment(Qt.AlignCenter)
        self._rows.addWidget(self.empty_label)
        self._rows.addStretch(1)
        self.scroll.setWidget(canvas)
        layout.addWidget(self.scroll, 1)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Escape:  # the trash is a place one visits: Escape goes back
            event.accept()
            self.back_requested.emit()
            return
        super().keyPressEvent(event)

    def set_entries(self, entries: list[dict]) -> None:
        if entries == self.entries and len(self.rows) == len(entries):
            return  # the same list read again (two refreshes after one change): the rows, and the focus, stay
        self.entries = list(entries)
        kept = self._focused_row()
        for row in self.rows:
            row.hide()
            row.deleteLater()
        self.rows = []
        for i, entry in enumerate(self.entries):
            row = TrashRow(entry)
            row.restore_requested.connect(lambda e, r=row: self._act(r, "restore", self.restore_requested, e))
            row.purge_requested.connect(lambda e, r=row: self._act(r, "purge", self.purge_requested, e))
            self._rows.insertWidget(1 + i, row)
            self.rows.append(row)
        self.empty_label.setVisible(not self.entries)
        if self._acted is None and kept is not None:  # drawn again around the keyboard: it stays put
            row = next((r for r in self.rows if r.entry.get("id") == kept[0]), None)
            if row is not None:
                focus_stop(row.restore_button if kept[1] == "restore" else row.purge_button)
        self._focus_after()

    def _focused_row(self) -> tuple[int, str] | None:
        focused = QApplication.focusWidget()
        for row in self.rows:
            if focused is row.restore_button or focused is row.purge_button:
                return row.entry.get("id"), "restore" if focused is row.restore_button else "purge"
        return None

    def _act(self, row: TrashRow, what: str, signal, entry: dict) -> None:
        keyboard = row.isAncestorOf(QApplication.focusWidget())
        self._acted = (self.rows.index(row), what, entry.get("id")) if keyboard and row in self.rows else None
        signal.emit(entry)

    def _focus_after(self) -> None:
        """The row the keyboard acted on is gone: the keyboard goes to the one in its place."""
        if self._acted is None or not self.isVisible():
            return
        index, what, entry_id = self._acted
        if any(e.get("id") == entry_id for e in self.entries):
            return  # still here: not done yet, or not done at all (the deletion was cancelled)
        if self.rows:
            row = self.rows[min(index, len(self.rows) - 1)]
            focus_stop(row.restore_button if what == "restore" else row.purge_button)
        else:
            focus_stop(self.back_button)
        self._acted = None

    def row_for(self, entry_id: int) -> TrashRow | None:
        return next((r for r in self.rows if r.entry.get("id") == entry_id), None)


class ActionBar(QFrame):
    """One short sentence about what just happened, with one button (Undo, Go there), for a while."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("undoBar")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 6, 8, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.PlainText)
        row.addWidget(self.label, 1)
        self.button = QPushButton()
        self.button.clicked.connect(self._act)
        row.addWidget(self.button)
        self.close_button = QPushButton("✕")
        self.close_button.setObjectName("linkButton")
        self.close_button.setAccessibleName(self.tr("Dismiss this message"))
        self.close_button.setToolTip(self.tr("Dismiss this message"))
        self.close_button.clicked.connect(self.dismiss)
        row.addWidget(self.close_button)
        self._action: Callable[[], None] | None = None
        self.hide()

    def show_message(self, text: str, button: str | None = None, action: Callable[[], None] | None = None,
                     shortcut: str | None = None) -> None:
        """Show `text` (with one button) until it is dismissed or replaced, and have it said."""
        self.label.setText(text)
        self._action = action
        self.button.setVisible(bool(button))
        self.button.setText(button or "")
        self.button.setAccessibleName(f"{button}: {short(text)}" if button else "")
        self.button.setShortcut(shortcut or "")
        self.show()
        announce(self, f"{text} ({button}: {shortcut})" if button and shortcut else text)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Escape:
            event.accept()
            self.dismiss()
            return
        super().keyPressEvent(event)

    def dismiss(self) -> None:
        put_away(self)

    def _act(self) -> None:
        action, self._action = self._action, None
        self.hide()
        if action is not None:
            action()
