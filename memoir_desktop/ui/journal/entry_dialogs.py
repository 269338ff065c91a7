"""Small dialogs about one journal entry: change its date and time, see its history, and the
confirmation before deleting it forever (which says exactly what goes, from purge_preview)."""

from __future__ import annotations

import html
from datetime import date, datetime

from PySide6.QtCore import QDate, Qt, QTime
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QTextBrowser,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.shared.formatting import date_time
from memoir_desktop.ui.shared.theme import colour

PREVIEW_LINES = 4
PREVIEW_CHARS = 280
SHORT_LIST = 6  # memories listed as they are; a longer list scrolls


def first_lines(text: str, lines: int = PREVIEW_LINES, chars: int = PREVIEW_CHARS) -> str:
    """The opening of an entry, for a list or a confirmation (a "…" says there is more)."""
    kept = (text or "").strip().split("\n")
    short = "\n".join(kept[:lines])
    if len(short) > chars:
        short = short[:chars].rstrip()
    return short + ("…" if short != (text or "").strip() else "")


def fit_height(dialog: QDialog) -> None:
    """Give a dialog the height its wrapped labels need at its width. Sized with `resize(w, 0)`,
    a dialog is first laid out without height-for-width, which squeezes the rows below a wrapped
    label to slivers; called from showEvent, once the width is real."""
    layout = dialog.layout()
    if layout is not None and layout.hasHeightForWidth():
        dialog.resize(dialog.width(), max(dialog.height(), layout.totalHeightForWidth(dialog.width())))


class MoveEntryDialog(QDialog):
    """Pick another date and time for an entry."""

    def __init__(self, when: datetime, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Change date and time"))
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("The entry moves to this day. Its memories are organized again from there."))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        layout.addWidget(hint)
        form = QFormLayout()
        self.date_edit = QDateEdit(QDate(when.year, when.month, when.day))
        self.date_edit.setCalendarPopup(True)
        self.date_edit.setDisplayFormat("yyyy-MM-dd")
        self.date_edit.setMaximumDate(QDate.currentDate())
        self.date_edit.setAccessibleName(self.tr("Date"))
        self.time_edit = QTimeEdit(QTime(when.hour, when.minute))
        self.time_edit.setDisplayFormat("HH:mm")
        self.time_edit.setAccessibleName(self.tr("Time"))
        form.addRow(self.tr("Date"), self.date_edit)
        form.addRow(self.tr("Time"), self.time_edit)
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.button(QDialogButtonBox.Ok).setText(self.tr("Move"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(360, 0)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        fit_height(self)

    def set_when(self, when: datetime) -> None:
        self.date_edit.setDate(QDate(when.year, when.month, when.day))
        self.time_edit.setTime(QTime(when.hour, when.minute))

    def when(self) -> datetime:
        day: date = self.date_edit.date().toPython()
        return datetime.combine(day, self.time_edit.time().toPython())


class EntryHistoryDialog(QDialog):
    """What happened to an entry: its earlier texts, its moves, trash and restore, with dates."""

    def __init__(self, entry: dict, parent=None):
        super().__init__(parent)
        self.entry = entry
        self.rows: list[dict] = []
        self.setWindowTitle(self.tr("Entry history"))
        self.resize(560, 440)
        layout = QVBoxLayout(self)
        title = QLabel(first_lines(entry.get("content", ""), lines=2, chars=120))
        title.setTextFormat(Qt.PlainText)
        title.setObjectName("welcomeTitle")
        title.setWordWrap(True)
        layout.addWidget(title)
        self.timeline = QTextBrowser()
        self.timeline.setOpenLinks(False)
        self.timeline.setOpenExternalLinks(False)
        self.timeline.setAccessibleName(self.tr("Entry history"))
        self.timeline.setPlainText(self.tr("Loading…"))
        layout.addWidget(self.timeline, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _event_label(self, event: str) -> str:
        return {"EDIT": self.tr("Edited"), "MOVE": self.tr("Moved to another date"),
                "DELETE": self.tr("Moved to the trash"), "RESTORE": self.tr("Restored from the trash"),
                "PRIVATE": self.tr("Made private"), "SHARED": self.tr("Shared with the companion again"),
                "CONFLICT": self.tr("Changed on two computers: both versions kept")}.get(event, event)

    def set_rows(self, rows: list[dict]) -> None:
        self.rows = rows
        muted = colour("muted").name()  # the theme's: 4.5:1 on the timeline in both themes
        parts = []
        for row in rows:
            event = row.get("event", "")
            head = (f"<b>{_esc(self._event_label(event))}</b> &nbsp;"
                    f"<span style='color:{muted}'>{_esc(date_time(row.get('created_at')))}</span>")
            body = ""
            if event == "EDIT":
                body = (f"<span style='color:{muted}'><s>{_esc(row.get('old_content') or '')}</s></span>"
                        f"<br>→ {_esc(row.get('new_content') or '')}")
            elif event == "MOVE":
                body = f"{_esc(date_time(row.get('old_time')))} → {_esc(date_time(row.get('new_time')))}"
            elif event == "CONFLICT":  # core/sync: the version not shown is kept here, whole
                body = (f"<span style='color:{muted}'>{_esc(self.tr('The other version:'))}</span>"
                        f"<br>{_esc(row.get('old_content') or '')}")
            parts.append(f"<p style='margin-bottom:10px'>{head}" + (f"<br>{body}" if body else "") + "</p>")
        self.timeline.setHtml("".join(parts) or _esc(self.tr("No changes yet.")))

    def show_error(self, message: str) -> None:
        self.timeline.setPlainText(message)


class PurgeConfirmDialog(QDialog):
    """"Delete forever?" with what goes: the entry, the memories made only from it (and their
    history), its graph relations and index entries; backups made before still hold it.
    Cancel is the default button; the destructive one must be chosen."""

    # Long: the dialog built in reading order.
    def __init__(self, preview: dict, parent=None):
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle(self.tr("Delete forever?"))
        self.resize(520, 0)
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        lead = QLabel(self.tr("This entry will be deleted forever, with what was made only from it. "
                              "This can't be undone."))
        lead.setObjectName("welcomeTitle")
        lead.setWordWrap(True)
        layout.addWidget(lead)

        self.entry_text = QLabel(first_lines(preview.get("text", "")))
        self.entry_text.setTextFormat(Qt.PlainText)
        self.entry_text.setWordWrap(True)
        self.entry_text.setObjectName("quote")
        self.entry_text.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(self.entry_text)

        memories = [m for m in preview.get("memories") or [] if m]
        if memories:
            heading = QLabel(self.tr("Memories made only from this entry, with their history ({count}):").format(
                count=len(memories)))
        else:
            heading = QLabel(self.tr("No memory was made only from this entry."))
        heading.setWordWrap(True)
        layout.addWidget(heading)
        self.memory_list = QLabel("\n".join(f"• {m}" for m in memories))
        self.memory_list.setTextFormat(Qt.PlainText)
        self.memory_list.setWordWrap(True)
        self.memory_list.setTextInteractionFlags(Qt.TextSelectableByMouse)
        if 0 < len(memories) <= SHORT_LIST:
            inset = QVBoxLayout()
            inset.setContentsMargins(8, 0, 8, 0)
            inset.addWidget(self.memory_list)
            layout.addLayout(inset)
        elif memories:
            holder = QWidget()
            inner = QVBoxLayout(holder)
            inner.setContentsMargins(8, 0, 8, 0)
            inner.addWidget(self.memory_list)
            inner.addStretch(1)
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.NoFrame)
            scroll.setWidget(holder)
            # The list is text to read: a stop of its own, said by name, scrolled with the arrow keys.
            scroll.setAccessibleName(heading.text())
            scroll.setMaximumHeight(180)
            scroll.setMinimumHeight(180)
            layout.addWidget(scroll)

        details = []
        kept = int(preview.get("memories_kept") or 0)
        if kept:
            details.append(self.tr("{count} memories also come from other entries: they stay, without this one.")
                           .format(count=kept))
        relations = int(preview.get("graph_relations") or 0)
        if relations:
            details.append(self.tr("Also removed: {relations} relations in your memory graph.").format(
                relations=relations))
        details.append(self.tr("Its words are also removed from search."))
        details.append(self.tr("Backups made before now still hold this entry."))
        self.details = QLabel("\n".join(details))
        self.details.setTextFormat(Qt.PlainText)
        self.details.setWordWrap(True)
        self.details.setObjectName("muted")
        layout.addWidget(self.details)

        self.buttons = QDialogButtonBox()
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.Cancel)
        self.delete_button = QPushButton(self.tr("Delete forever"))
        self.buttons.addButton(self.delete_button, QDialogButtonBox.DestructiveRole)
        self.delete_button.setAutoDefault(False)
        self.delete_button.setDefault(False)
        self.cancel_button.setDefault(True)
        self.cancel_button.setFocus(Qt.OtherFocusReason)
        self.delete_button.clicked.connect(self.accept)
        self.cancel_button.clicked.connect(self.reject)
        layout.addWidget(self.buttons)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        fit_height(self)

    def shown_text(self) -> str:
        """Everything the confirmation says, as text (for tests and screen readers)."""
        return "\n".join(w.text() for w in self.findChildren(QLabel))


def _esc(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")
