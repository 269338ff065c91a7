"""One journal entry or companion reply (a bubble with its time), and the one-line notices between them.

The user's words are shown exactly as typed (plain text: no HTML, no Markdown, line breaks kept).
The companion's reply is a safe Markdown subset (viewmodels/markdown.py) that loads and links
nothing. An entry of the user's has a menu (right click, or the "⋯" button, reachable with Tab):
copy, remember this (the words selected in it, or the whole entry), edit in place, change its
date, ask the companion, history, move to trash. The bubble
edits itself in place; everything else it asks of the page through `action_requested`.

For the keyboard and a screen reader a bubble is one item: Tab lands on it, its accessible name is its
words and its description who wrote it and when (with "Private", "edited"); Enter, Space or the menu
key open its menu. The "⋯" button says which entry it is for.
"""

from __future__ import annotations

import math
from datetime import datetime

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
)

from memoir_desktop.ui.shared.a11y import readable, short
from memoir_desktop.ui.shared.formatting import date_time, parse, short_time
from memoir_desktop.ui.shared.glyphs import lock
from memoir_desktop.viewmodels.markdown import to_safe_html

EDITOR_MIN_HEIGHT = 72
EDITOR_MAX_HEIGHT = 320


class EntryEditor(QPlainTextEdit):
    """The text box an entry turns into: Ctrl+Enter saves, Esc cancels, Enter is a new line."""

    save = Signal()
    cancel = Signal()

    def keyPressEvent(self, event) -> None:
        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key_Return, Qt.Key_Enter) and mods & Qt.ControlModifier:
            event.accept()
            self.save.emit()
            return
        if key == Qt.Key_Escape:
            event.accept()
            self.cancel.emit()
            return
        super().keyPressEvent(event)


class MessageBubble(QFrame):
    action_requested = Signal(str)  # "move", "trash", "history", "ask", "remember" (the page does these)
    edit_submitted = Signal(str)  # the new text of an edit (the page saves it, then finish_edit)

    def __init__(self, role: str, text: str, when: datetime | None, entry_id: int | None = None,
                 entry: dict | None = None, parent=None):
        super().__init__(parent)
        self.role = role
        self.entry_id = entry_id
        self.entry: dict = dict(entry or {})
        self.text = text
        self.when = when
        self.has_reply = role != "user"  # an entry saved without a reply can ask for one later
        self.editing = False
        self.editor: EntryEditor | None = None
        self.remember_text = ""  # what "Remember this" keeps: the selection when the menu opened, or all
        self._rich = role != "user"
        self.setObjectName("userBubble" if role == "user" else "assistantBubble")
        self.setSizePolicy(QSizePolicy.Maximum, QSizePolicy.Preferred)
        self.setFocusPolicy(Qt.TabFocus)  # an item to read: Tab, not a click, puts the focus ring on it
        self.setContextMenuPolicy(Qt.CustomContextMenu)
        self.customContextMenuRequested.connect(lambda pos: self.context_menu().popup(self.mapToGlobal(pos)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 6)
        layout.setSpacing(2)
        self.body = QLabel()
        # Plain for the user's own words; the reply's rich text is built by to_safe_html only.
        self.body.setTextFormat(Qt.RichText if self._rich else Qt.PlainText)
        self.body.setWordWrap(True)
        self.body.setOpenExternalLinks(False)
        self.body.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.body.setContextMenuPolicy(Qt.NoContextMenu)  # the bubble's own menu, also over the text
        layout.addWidget(self.body)
        self._edit_box = QVBoxLayout()
        self._edit_box.setSpacing(4)
        layout.addLayout(self._edit_box)

        meta = QHBoxLayout()
        meta.setContentsMargins(0, 0, 0, 0)
        meta.setSpacing(6)
        self.tags_label = QLabel()
        self.tags_label.setObjectName("timestamp")
        self.tags_label.setTextFormat(Qt.PlainText)
        self.tags_label.hide()
        self.edited_label = QLabel(self.tr("edited"))
        self.edited_label.setObjectName("timestamp")
        self.edited_label.hide()
        self.private_label = QLabel(" ".join(filter(None, (lock(), self.tr("Private")))))
        self.private_label.setObjectName("timestamp")
        self.private_label.setToolTip(self.tr("A private entry: never sent to the AI; found by search on this "
                                              "computer."))
        self.private_label.hide()
        self.time_label = QLabel(short_time(when) if when else "")
        self.time_label.setObjectName("timestamp")
        self.menu_button = QToolButton()
        self.menu_button.setObjectName("entryMenuButton")
        self.menu_button.setText("⋯")
        self.menu_button.setAutoRaise(True)
        self.menu_button.setCursor(Qt.PointingHandCursor)
        self.menu_button.setFocusPolicy(Qt.TabFocus)
        self.menu_button.setPopupMode(QToolButton.InstantPopup)
        # The "⋯" says "more" already; the style's menu arrow would crowd it.
        self.menu_button.setToolTip(self.tr("Edit, change the date, move to trash…"))
        self._button_menu = QMenu(self)
        self._button_menu.aboutToShow.connect(lambda: self._fill(self._button_menu))
        self.menu_button.setMenu(self._button_menu)
        self.menu_button.hide()
        if role == "user":
            meta.addWidget(self.tags_label)
            meta.addStretch(1)
            meta.addWidget(self.private_label)
            meta.addWidget(self.edited_label)
            meta.addWidget(self.time_label)
            meta.addWidget(self.menu_button)
        else:
            meta.addWidget(self.time_label)
            meta.addStretch(1)
        layout.addLayout(meta)
        self._show_text(text)
        self._show_entry_marks()

    # -- text -------------------------------------------------------------------------------

    def _show_text(self, text: str) -> None:
        self.text = text
        self.body.setText(to_safe_html(text) if self._rich else text)
        words = self._words()
        self.setAccessibleName(words)
        self.menu_button.setAccessibleName(self.tr("Actions for the entry: {text}").format(text=short(words)))

    def _words(self) -> str:
        """The text as it reads (a reply's Markdown as rendered)."""
        if not self._rich:
            return self.text
        doc = QTextDocument()
        doc.setHtml(self.body.text())
        return doc.toPlainText()

    def _describe(self) -> None:
        """Who wrote it, when, and its marks: the bubble's accessible description."""
        parts = [self.tr("You") if self.role == "user" else self.tr("Companion")]
        for label in (self.time_label, self.private_label, self.edited_label, self.tags_label):
            if label.text() and not label.isHidden():
                parts.append(label.text())
        self.setAccessibleDescription(" · ".join(parts))

    def set_text(self, text: str) -> None:
        self._show_text(text)
        self._refit()

    def fit_width(self, max_width: int) -> None:
        """Let short messages stay narrow and long ones use up to `max_width`.

        A word-wrapped QLabel picks a narrow width on its own; giving the text its ideal width
        (laid out by a QTextDocument the way the label lays it out: plain, or the safe HTML)
        keeps a two-line message from wrapping at every few words.
        """
        self.setMaximumWidth(max_width)
        room = self._room(max_width)
        if self.editing and self.editor is not None:
            self.editor.setMinimumWidth(room)
            return
        doc = QTextDocument()
        doc.setDefaultFont(self.body.font())
        if self._rich:
            doc.setHtml(self.body.text())
        else:
            doc.setPlainText(self.body.text())
        doc.setTextWidth(room)
        self.body.setMinimumWidth(min(room, math.ceil(doc.idealWidth()) + 4))

    def _room(self, max_width: int) -> int:
        margins = self.layout().contentsMargins()
        return max(80, max_width - margins.left() - margins.right())

    def _refit(self) -> None:
        if self.maximumWidth() < 10_000:
            self.fit_width(self.maximumWidth())

    # -- state ------------------------------------------------------------------------------

    def set_pending(self, pending: bool) -> None:
        self.setProperty("pending", pending)
        self.style().unpolish(self)
        self.style().polish(self)
        if pending:
            self.time_label.setText(self.tr("saving…"))
        self._describe()

    def confirm(self, entry_id: int | None, when: datetime | None = None) -> None:
        """Saved: the entry's id and time are known (the bubble's menu opens up)."""
        self.entry_id = entry_id
        self.when = when or self.when or datetime.now()
        self.set_pending(False)
        self.time_label.setText(short_time(self.when))
        if entry_id is not None:
            self.entry = {"id": entry_id, "role": self.role, "content": self.text, "edited": False, "tags": [],
                          **self.entry, "created_at": self.when.isoformat()}
        self._show_entry_marks()

    def set_entry(self, entry: dict) -> None:
        """The entry as the core now has it (after an edit or a move)."""
        self.entry = dict(entry)
        self.entry_id = entry.get("id", self.entry_id)
        self.when = parse(entry.get("created_at")) or self.when
        self.time_label.setText(short_time(self.when))
        if entry.get("content") is not None and entry["content"] != self.text:
            self.set_text(entry["content"])
        self._show_entry_marks()

    def _show_entry_marks(self) -> None:
        tags = [t for t in self.entry.get("tags") or [] if t]
        self.tags_label.setText(" ".join(f"#{t}" for t in tags))
        self.tags_label.setVisible(bool(tags))
        edited = bool(self.entry.get("edited"))
        self.edited_label.setVisible(edited and self.role == "user")
        self.private_label.setVisible(bool(self.entry.get("private")) and self.role == "user")
        if edited and self.entry.get("updated_at"):
            self.edited_label.setToolTip(self.tr("Last changed {date}").format(
                date=date_time(self.entry.get("updated_at"))))
        self.menu_button.setVisible(self.role == "user" and self.entry_id is not None and not self.editing)
        self._describe()

    def set_highlighted(self, on: bool) -> None:
        self.setProperty("highlighted", on)
        self.style().unpolish(self)
        self.style().polish(self)

    # -- menu -------------------------------------------------------------------------------

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Space) and not self.editing:
            event.accept()
            self.context_menu().popup(self.mapToGlobal(QPoint(16, min(24, self.height() // 2))))
            return
        super().keyPressEvent(event)

    def context_menu(self) -> QMenu:
        menu = QMenu(self)
        self._fill(menu)
        return menu

    def _fill(self, menu: QMenu) -> None:
        menu.clear()
        self._add(menu, "copy", self.tr("Copy"))
        if self.role != "user" or self.entry_id is None or self.editing:
            return
        # Read now: the selection is what the user pointed at when opening the menu.
        self.remember_text = self.body.selectedText().strip() or self.text.strip()
        self._add(menu, "remember", self.tr("Remember this") if self.body.hasSelectedText()
                  else self.tr("Remember this entry"))
        self._add(menu, "edit", self.tr("Edit"))
        self._add(menu, "move", self.tr("Change date and time…"))
        if not self.has_reply and not self.entry.get("private"):  # a private entry is never sent
            self._add(menu, "ask", self.tr("Ask the companion about this"))
        if self.entry.get("private"):
            self._add(menu, "share", self.tr("Let the companion read it"))
        else:
            self._add(menu, "private", self.tr("Make private"))
        # Every entry: its history holds moves and privacy changes too, which do not mark it "edited".
        self._add(menu, "history", self.tr("History…"))
        menu.addSeparator()
        self._add(menu, "trash", self.tr("Move to trash"))

    def _add(self, menu: QMenu, name: str, text: str) -> None:
        action = menu.addAction(text)
        action.setData(name)
        action.triggered.connect(lambda _checked=False, n=name: self.request(n))

    def request(self, name: str) -> None:
        if name == "copy":
            QGuiApplication.clipboard().setText(self.text)
        elif name == "edit":
            self.start_edit()
        else:
            self.action_requested.emit(name)

    # -- editing in place -------------------------------------------------------------------------

    def start_edit(self) -> None:
        if self.editing or self.role != "user" or self.entry_id is None:
            return
        self.editing = True
        self.body.hide()
        self.menu_button.hide()
        self.editor = EntryEditor(self.text)
        self.editor.setObjectName("composer")
        self.editor.setAccessibleName(self.tr("Edit entry"))
        self.editor.setTabChangesFocus(True)
        self.editor.save.connect(self.submit_edit)
        self.editor.cancel.connect(self.cancel_edit)
        self.editor.textChanged.connect(self._fit_editor)
        self.edit_error = QLabel()
        self.edit_error.setObjectName("opDelete")
        self.edit_error.setWordWrap(True)
        self.edit_error.hide()
        row = QHBoxLayout()
        row.setSpacing(6)
        hint = QLabel(self.tr("Ctrl+Enter to save · Esc to cancel"))
        hint.setObjectName("timestamp")
        row.addWidget(hint, 1)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setObjectName("cardAction")
        self.cancel_button.setAutoDefault(False)
        self.cancel_button.clicked.connect(self.cancel_edit)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("cardAction")
        self.save_button.setAutoDefault(False)
        self.save_button.clicked.connect(self.submit_edit)
        row.addWidget(self.cancel_button)
        row.addWidget(self.save_button)
        self._edit_box.addWidget(self.editor)
        self._edit_box.addWidget(self.edit_error)
        self._edit_box.addLayout(row)
        self._refit()
        self._fit_editor()
        QTimer.singleShot(0, self, self._fit_editor)  # again once the bubble has its final width
        self.editor.setFocus(Qt.OtherFocusReason)
        self.editor.moveCursor(self.editor.textCursor().MoveOperation.End)

    def _fit_editor(self) -> None:
        if self.editor is None:
            return
        # Lines as laid out at the editor's width (wrapped lines count), plus one empty line of
        # room: the whole entry is visible while editing, with no scroll bar for a short one.
        lines = max(1, int(self.editor.document().size().height())) + 1
        m = self.editor.contentsMargins()
        height = lines * self.editor.fontMetrics().lineSpacing() + m.top() + m.bottom() + 24
        self.editor.setFixedHeight(max(EDITOR_MIN_HEIGHT, min(EDITOR_MAX_HEIGHT, height)))

    def submit_edit(self) -> None:
        if self.editor is None:
            return
        text = self.editor.toPlainText()
        if not text.strip():
            self.show_edit_error(self.tr("An entry can't be empty. To remove it, choose Move to trash."))
            return
        if text.strip() == self.text.strip():
            self.cancel_edit()
            return
        self.edit_error.hide()
        self.save_button.setEnabled(False)
        self.cancel_button.setEnabled(False)
        self.editor.setReadOnly(True)
        self.edit_submitted.emit(text)

    def show_edit_error(self, message: str) -> None:
        if self.editor is None:
            return
        self.editor.setReadOnly(False)
        self.save_button.setEnabled(True)
        self.cancel_button.setEnabled(True)
        self.edit_error.setText(message)
        self.edit_error.show()
        self.editor.setFocus(Qt.OtherFocusReason)

    def finish_edit(self, entry: dict) -> None:
        """The edit is saved: show the new text with its "edited" mark."""
        self._close_editor()
        self.set_entry(entry)

    def cancel_edit(self) -> None:
        self._close_editor()

    def _close_editor(self) -> None:
        if not self.editing:
            return
        self.editing = False
        self.editor = None
        while self._edit_box.count():
            item = self._edit_box.takeAt(0)
            if item.widget():
                _discard(item.widget())
            elif item.layout():
                while item.layout().count():
                    child = item.layout().takeAt(0)
                    if child.widget():
                        _discard(child.widget())
        self.body.show()
        self._show_entry_marks()
        self._refit()
        if self.menu_button.isVisible():
            self.menu_button.setFocus(Qt.OtherFocusReason)


def _discard(widget) -> None:
    widget.hide()  # out of sight now; deleted when the event loop next runs
    widget.deleteLater()


class NoticeLine(QLabel):
    """A calm, centred sentence in the conversation (e.g. the entry is saved, no LLM)."""

    def __init__(self, text: str, parent=None):
        super().__init__(text, parent)
        self.setObjectName("notice")
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignCenter)
        self.setTextFormat(Qt.PlainText)
        readable(self)  # what happened to an entry: reached and read from the keyboard
