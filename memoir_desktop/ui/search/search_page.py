"""`SearchPage`: the one search field. It finds what you wrote and what memoir remembers, in two
groups, the matched words marked; a journal row opens its day, a memory row its card.

It searches as you type (after a pause) and counts the syllable still being composed by a
Korean input method, so "모카" is searched while "카" is not yet committed. Works without an AI
and without the embedding model: the core's word search (Korean morphemes) always answers.
"""

from __future__ import annotations

import html
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.shared.formatting import long_date, parse, short_time
from memoir_desktop.ui.shared.theme import colours

SEARCH_DELAY_MS = 250


def marked_html(text: str, spans, mark: str | None = None) -> str:
    """`text` as rich text, HTML-escaped, the (start, end) spans wrapped in a highlight (the theme's)."""
    mark = mark or colours()["mark_bg"]
    out, at = [], 0
    for start, end in sorted((max(0, int(s)), min(len(text), int(e))) for s, e in spans or ()):
        if end <= start or start < at:
            continue  # empty or overlapping spans: the first one wins
        out.append(html.escape(text[at:start]))
        out.append(f'<span style="background-color:{mark}; font-weight:600">{html.escape(text[start:end])}</span>')
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out).replace("\n", "<br>")


def word_spans(text: str, words) -> list[tuple[int, int]]:
    """Where the matched words occur in a memory's text (a word found only as a stem is not marked)."""
    folded = text.casefold()
    spans = []
    for word in {w for w in words or () if w and len(w.strip()) > 0}:
        needle, at = word.casefold(), 0
        while (at := folded.find(needle, at)) >= 0:
            spans.append((at, at + len(needle)))
            at += len(needle)
    return spans


class SearchBox(QLineEdit):
    """A line edit whose `query()` includes the text an input method is still composing."""

    edited = Signal()
    down = Signal()  # the Down key: on to the first result

    def __init__(self, parent=None):
        super().__init__(parent)
        self.preedit = ""
        self.textChanged.connect(self.edited)

    def asked(self) -> str:
        if not self.preedit:
            return self.text()
        pos = self.cursorPosition()
        return self.text()[:pos] + self.preedit + self.text()[pos:]

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Down and not self.preedit:
            self.down.emit()
            return
        super().keyPressEvent(event)

    def inputMethodEvent(self, event) -> None:
        before = self.preedit
        super().inputMethodEvent(event)
        self.preedit = event.preeditString()
        if self.preedit != before:
            self.edited.emit()


class ResultRow(QFrame):
    """One result: a heading line (the day), the text with its matches marked, a quiet line under
    it; a click, Enter or Space opens it."""

    activated = Signal()

    def __init__(self, heading: str, text_html: str, meta: str = "", accessible: str = "", parent=None):
        super().__init__(parent)
        self.setObjectName("memoryCard")  # the card look of the Memories tab
        self.setCursor(Qt.PointingHandCursor)
        self.setFocusPolicy(Qt.StrongFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        layout.setSpacing(3)
        self.heading = QLabel(heading)
        self.heading.setObjectName("dayHeader")
        self.heading.setVisible(bool(heading))
        self.text = QLabel(text_html)
        self.text.setObjectName("cardText")
        self.text.setTextFormat(Qt.RichText)
        self.text.setWordWrap(True)
        self.meta = QLabel(meta)
        self.meta.setObjectName("cardMeta")
        self.meta.setVisible(bool(meta))
        for label in (self.heading, self.text, self.meta):
            label.setAttribute(Qt.WA_TransparentForMouseEvents)  # the row takes the click
            layout.addWidget(label)
        self.setAccessibleName(" ".join(p for p in (heading, accessible, meta) if p))

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.LeftButton and self.rect().contains(event.position().toPoint()):
            self.activated.emit()
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Space):
            self.activated.emit()
            return
        if event.key() in (Qt.Key_Down, Qt.Key_Up):
            self.focusNextPrevChild(event.key() == Qt.Key_Down)
            return
        super().keyPressEvent(event)


class SearchPage(QWidget):
    open_entry = Signal(object, int)  # (day, entry id): show that day with the entry highlighted
    open_memory = Signal(dict)  # a memory to show in the Memories tab

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.results: dict = {"entries": [], "memories": []}
        self.entry_rows: list[ResultRow] = []
        self.memory_rows: list[ResultRow] = []
        self.searched = ""  # the query the results shown are for
        self._generation = 0
        self._dirty = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 6)
        layout.setSpacing(8)
        self.field = SearchBox()
        self.field.setPlaceholderText(self.tr("Search your journal and memories"))
        self.field.setAccessibleName(self.tr("Search your journal and memories"))
        self.field.setClearButtonEnabled(True)
        self.field.setMinimumHeight(32)
        self.field.edited.connect(self._edited)
        self.field.returnPressed.connect(self.search_now)
        self.field.down.connect(self._focus_first_result)
        layout.addWidget(self.field)

        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setFocusPolicy(Qt.NoFocus)  # the results take the keyboard; the area scrolls to them
        canvas = QWidget()
        canvas.setObjectName("cardCanvas")
        self._rows = QVBoxLayout(canvas)
        self._rows.setContentsMargins(4, 4, 4, 4)
        self._rows.setSpacing(6)
        self.message = QLabel()
        self.message.setObjectName("muted")
        self.message.setAlignment(Qt.AlignCenter)
        self.message.setWordWrap(True)
        self._rows.addWidget(self.message)
        self.journal_header = QLabel()
        self.journal_header.setObjectName("dayHeader")
        self.memory_header = QLabel()
        self.memory_header.setObjectName("dayHeader")
        self.memory_header.setContentsMargins(0, 12, 0, 0)  # a gap between the two groups
        self._rows.addWidget(self.journal_header)
        self._rows.addWidget(self.memory_header)
        self._rows.addStretch(1)
        self.scroll.setWidget(canvas)
        layout.addWidget(self.scroll, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self.search_now)
        backend.changed.connect(self._on_changed)
        self._render()

    # -- searching ------------------------------------------------------------------------------

    def focus_search(self) -> None:
        self.field.setFocus(Qt.ShortcutFocusReason)
        self.field.selectAll()

    def _focus_first_result(self) -> None:
        rows = self.entry_rows + self.memory_rows
        if rows:
            rows[0].setFocus(Qt.TabFocusReason)
            self.scroll.ensureWidgetVisible(rows[0])

    def _edited(self) -> None:
        self._timer.start()

    def search_now(self) -> None:
        self._timer.stop()
        query = self.field.asked().strip()
        self._generation += 1
        generation = self._generation
        if not query:
            self.searched = ""
            self.results = {"entries": [], "memories": []}
            self._render()
            return
        if query != self.searched:
            self.message.setText(self.tr("Searching…"))
            self.message.show()

        def found(results: dict) -> None:
            if generation == self._generation:  # a later query has been typed meanwhile
                self.searched = query
                self.results = results
                self._render()

        self.backend.read(lambda m: m.search_field.find(query, limit=30), found)

    def _on_changed(self, changes) -> None:
        if not (changes.entries or changes.memories) or not self.searched:
            return
        if self.isVisible():
            self._timer.start()  # many jobs finishing in a row search once
        else:
            self._dirty = True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self._dirty = False
            self.search_now()

    # -- showing ----------------------------------------------------------------------------------

    def _render(self) -> None:
        for row in self.entry_rows + self.memory_rows:
            self._rows.removeWidget(row)
            row.deleteLater()
        self.entry_rows, self.memory_rows = [], []
        entries = self.results.get("entries") or []
        memories = self.results.get("memories") or []
        query = self.searched
        if not query:
            self.message.setText(self.tr("Type a word, a name or a place. Search looks through everything "
                                         "you wrote and everything memoir remembers."))
        elif not entries and not memories:
            self.message.setText(self.tr("Nothing in your journal or memories matches ‘{query}’.")
                                 .format(query=query))
        self.message.setVisible(not entries and not memories)
        mark = colours()["mark_bg"]

        self.journal_header.setText(self.tr("In your journal ({count})").format(count=len(entries)))
        self.journal_header.setVisible(bool(entries))
        at = self._rows.indexOf(self.journal_header) + 1
        for entry in entries:
            row = self._entry_row(entry, mark)
            self._rows.insertWidget(at, row)
            at += 1
            self.entry_rows.append(row)

        self.memory_header.setText(self.tr("In your memories ({count})").format(count=len(memories)))
        self.memory_header.setVisible(bool(memories))
        at = self._rows.indexOf(self.memory_header) + 1
        for memory in memories:
            row = self._memory_row(memory, mark)
            self._rows.insertWidget(at, row)
            at += 1
            self.memory_rows.append(row)

    def _entry_row(self, entry: dict, mark: str) -> ResultRow:
        when = parse(entry.get("created_at")) or datetime.now()
        title = f"{long_date(when.date())} · {short_time(when)}"
        snippet = entry.get("snippet") or entry.get("content") or ""
        row = ResultRow(title, marked_html(snippet, entry.get("highlights"), mark), accessible=snippet)
        row.entry = entry
        day, entry_id = when.date(), int(entry["id"])
        row.activated.connect(lambda day=day, entry_id=entry_id: self.open_entry.emit(day, entry_id))
        return row

    def _memory_row(self, memory: dict, mark: str) -> ResultRow:
        text = memory.get("memory") or ""
        matched = ((memory.get("explain") or {}).get("lexical") or {}).get("matched") or []
        recorded = parse(memory.get("created_at"))
        meta = self.tr("Remembered on {date}").format(date=long_date(recorded.date())) if recorded else ""
        row = ResultRow("", marked_html(text, word_spans(text, matched), mark), meta, accessible=text)
        row.memory = memory
        row.activated.connect(lambda memory=memory: self.open_memory.emit(memory))
        return row
