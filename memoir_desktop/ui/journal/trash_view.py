"""`TrashView`: the entries moved to the trash, each with Restore and Delete forever; and the
`ActionBar` that says what just happened to an entry ("moved to the trash · Undo")."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from memoir_desktop.ui.journal.entry_dialogs import first_lines
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
        self.restore_button = QPushButton(self.tr("Restore"))
        self.restore_button.setObjectName("cardAction")
        self.restore_button.setAccessibleName(self.tr("Restore this entry to its day"))
        self.restore_button.clicked.connect(lambda: self.restore_requested.emit(self.entry))
        self.purge_button = QPushButton(self.tr("Delete forever"))
        self.purge_button.setObjectName("cardAction")
        self.purge_button.setAccessibleName(self.tr("Delete this entry forever"))
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

    def set_entries(self, entries: list[dict]) -> None:
        self.entries = list(entries)
        for row in self.rows:
            row.deleteLater()
        self.rows = []
        for i, entry in enumerate(self.entries):
            row = TrashRow(entry)
            row.restore_requested.connect(self.restore_requested)
            row.purge_requested.connect(self.purge_requested)
            self._rows.insertWidget(1 + i, row)
            self.rows.append(row)
        self.empty_label.setVisible(not self.entries)

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
        self.close_button.setAccessibleName(self.tr("Dismiss"))
        self.close_button.clicked.connect(self.hide)
        row.addWidget(self.close_button)
        self._action: Callable[[], None] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.hide()

    def show_message(self, text: str, button: str | None = None, action: Callable[[], None] | None = None,
                     seconds: int = 10, shortcut: str | None = None) -> None:
        self.label.setText(text)
        self._action = action
        self.button.setVisible(bool(button))
        self.button.setText(button or "")
        self.button.setShortcut(shortcut or "")
        self.show()
        self._timer.start(seconds * 1000)

    def _act(self) -> None:
        action, self._action = self._action, None
        self.hide()
        if action is not None:
            action()
