"""`MemoryCardList`: the Memories tab. Search and filter memory cards; add one by hand, edit,
forget, restore, see history; answer the AI's held proposals and other apps' suggestions.

The keyboard is never dropped when the cards are drawn again: after Forget or Restore it goes to the
same button of the memory that took the card's place (or to Undo when none is left), after an edit to
the edited card's Edit button. The filter row wraps on a narrow window."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from PySide6.QtCore import QDate, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDateEdit,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from memoir_desktop.ui.memories.add_dialog import AddMemoryDialog
from memoir_desktop.ui.memories.edit_dialog import EditMemoryDialog
from memoir_desktop.ui.memories.history_dialog import HistoryDialog
from memoir_desktop.ui.memories.memory_card import MemoryCard
from memoir_desktop.ui.memories.proposal_panel import ProposalPanel
from memoir_desktop.ui.memories.suggestion_panel import SuggestionPanel
from memoir_desktop.ui.memories.tidy_dialog import TidyDialog
from memoir_desktop.ui.memories.tidy_hint import TidyHint
from memoir_desktop.ui.memories.undo_bar import UndoBar
from memoir_desktop.ui.shared.a11y import announce, focus_stop, short
from memoir_desktop.ui.shared.flow_layout import FlowLayout
from memoir_desktop.viewmodels.memory_filters import MemoryFilter, apply_filter

PAGE_SIZE = 100
SEARCH_DELAY_MS = 250
RENDER_DELAY_MS = 80


class MemoryCardList(QWidget):
    open_source = Signal(dict)  # a memory whose source entry should be shown in the journal
    open_settings = Signal()  # "Connect…" under the empty page without an AI

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.memories: list[dict] = []
        self.shown: list[dict] = []
        self.cards: list[MemoryCard] = []
        self._card_of: dict[str, MemoryCard] = {}  # cards kept between renders, by memory id
        self.cards_built = 0  # how many cards were (re)built: a one-memory edit rebuilds one
        self.last_dialog = None
        self._ranked: list[str] | None = None
        self._search_generation = 0
        self._limit = PAGE_SIZE
        self._dirty = True
        self._reveal: str | None = None  # a memory to scroll to once its card is shown (show_memory)
        # Where the keyboard was among the cards before they are drawn again: (memory id, which button,
        # the card's place); and the memory whose card must keep it (an edit just saved).
        self._keyboard: tuple[str, str, int] | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 6)
        layout.addLayout(self._filter_bar())
        self.proposals = ProposalPanel()
        self.proposals.resolve.connect(self._resolve)
        layout.addWidget(self.proposals)
        self.suggestions = SuggestionPanel()
        self.suggestions.decide.connect(self._decide_suggestion)
        layout.addWidget(self.suggestions)
        self.undo_bar = UndoBar()
        self.undo_bar.undo.connect(self.restore)
        layout.addWidget(self.undo_bar)
        self.tidy_hint = TidyHint()
        self.tidy_hint.tidy.connect(lambda: self.tidy())
        layout.addWidget(self.tidy_hint)

        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setFocusPolicy(Qt.NoFocus)  # the cards take the keyboard; the area scrolls to them
        canvas = QWidget()
        canvas.setObjectName("cardCanvas")
        self._cards_layout = QVBoxLayout(canvas)
        self._cards_layout.setContentsMargins(4, 4, 4, 4)
        self._cards_layout.setSpacing(8)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("muted")
        self.empty_label.setAlignment(Qt.AlignCenter)
        self.empty_label.setWordWrap(True)
        self._cards_layout.addWidget(self.empty_label)
        self.empty_actions = QWidget()
        empty_row = QHBoxLayout(self.empty_actions)
        empty_row.setContentsMargins(0, 0, 0, 0)
        empty_row.addStretch(1)
        self.empty_add_button = QPushButton(self.tr("Add a memory…"))
        self.empty_add_button.clicked.connect(lambda: self.add())
        empty_row.addWidget(self.empty_add_button)
        self.connect_button = QPushButton(self.tr("Connect…"))
        self.connect_button.setAccessibleName(self.tr("Open settings to connect an AI companion"))
        self.connect_button.clicked.connect(self.open_settings)
        empty_row.addWidget(self.connect_button)
        empty_row.addStretch(1)
        self.empty_actions.hide()
        self._cards_layout.addWidget(self.empty_actions)
        self.more_button = QPushButton(self.tr("Show more"))
        self.more_button.clicked.connect(self._show_more)
        self._cards_layout.addWidget(self.more_button)
        self._cards_layout.addStretch(1)
        self.scroll.setWidget(canvas)
        layout.addWidget(self.scroll, 1)

        # Typing (and Korean IME composition) fires on every key: redraw once typing pauses.
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_DELAY_MS)
        self._render_timer.timeout.connect(self.render)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._run_search)
        backend.changed.connect(self._on_changed)

    # -- filter bar ---------------------------------------------------------------------------

    def _filter_bar(self) -> FlowLayout:
        bar = FlowLayout()
        self.search_box = QLineEdit()
        # Ctrl+F is the one search over the journal and the memories (the Search tab): not promised here.
        self.search_box.setPlaceholderText(self.tr("Search memories"))
        self.search_box.setAccessibleName(self.tr("Search memories"))
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setMinimumWidth(200)
        self.search_box.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.search_box.textChanged.connect(self._text_changed)
        bar.addWidget(self.search_box)

        self.state_box = QComboBox()
        self.state_box.setAccessibleName(self.tr("Show"))
        for label, value in ((self.tr("Remembered"), "active"), (self.tr("Forgotten"), "forgotten"),
                             (self.tr("All"), "all")):
            self.state_box.addItem(label, value)
        self.source_box = QComboBox()
        self.source_box.setAccessibleName(self.tr("Source"))
        for label, value in ((self.tr("Any source"), "all"), (self.tr("From the journal"), "journal"),
                             (self.tr("Added directly"), "manual"), (self.tr("Protected (yours)"), "edited")):
            self.source_box.addItem(label, value)
        self.period_box = QComboBox()
        self.period_box.setAccessibleName(self.tr("Period"))
        for label, value in ((self.tr("Any time"), None), (self.tr("Last 7 days"), 7),
                             (self.tr("Last 30 days"), 30), (self.tr("Last year"), 365),
                             (self.tr("Between…"), "custom")):
            self.period_box.addItem(label, value)
        self.since_edit = QDateEdit(QDate.currentDate().addMonths(-1))
        self.until_edit = QDateEdit(QDate.currentDate())
        for edit, name in ((self.since_edit, self.tr("From date")), (self.until_edit, self.tr("To date"))):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setAccessibleName(name)
            edit.setVisible(False)
            edit.dateChanged.connect(self.render)
        for box in (self.state_box, self.source_box, self.period_box):
            box.currentIndexChanged.connect(self._filters_changed)
            bar.addWidget(box)
        bar.addWidget(self.since_edit)
        bar.addWidget(self.until_edit)
        self.count_label = QLabel()
        self.count_label.setObjectName("muted")
        bar.addWidget(self.count_label)
        self.add_button = QPushButton(self.tr("Add a memory…"))
        self.add_button.setToolTip(self.tr("Write a memory yourself; no AI needed"))
        self.add_button.clicked.connect(lambda: self.add())
        bar.addWidget(self.add_button)
        self.tidy_button = QPushButton(self.tr("Tidy up similar memories…"))
        self.tidy_button.setToolTip(self.tr("Merge memories that say the same thing, one by one, with Undo"))
        self.tidy_button.clicked.connect(lambda: self.tidy())
        bar.addWidget(self.tidy_button)
        return bar

    def current_filter(self) -> MemoryFilter:
        period = self.period_box.currentData()
        since = until = None
        if period == "custom":
            since, until = self.since_edit.date().toPython(), self.until_edit.date().toPython()
        elif period:
            since = date.today() - timedelta(days=period - 1)
        return MemoryFilter(text=self.search_box.text(), state=self.state_box.currentData(),
                            source=self.source_box.currentData(), since=since, until=until)

    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.ShortcutFocusReason)
        self.search_box.selectAll()

    def show_memory(self, memory: dict) -> None:
        """Show one memory (a search result): filters cleared, its text searched, its card scrolled to."""
        self._reveal = memory["id"]
        state = "active" if memory.get("state", "active") == "active" else "all"
        self.state_box.setCurrentIndex(self.state_box.findData(state))
        self.source_box.setCurrentIndex(0)  # any source
        self.period_box.setCurrentIndex(0)  # any time
        self.search_box.setText(memory.get("memory", ""))

    # -- loading ------------------------------------------------------------------------------

    def mark_dirty(self) -> None:
        self._dirty = True
        if self.isVisible():
            self.reload()

    def _on_changed(self, changes) -> None:
        """Fetch only the memories that changed; their cards alone are rebuilt."""
        if changes.proposals:
            self.backend.read(lambda m: m.memories.proposals(), self.proposals.set_proposals)
            self.backend.read(lambda m: m.apps.memory_suggestions(), self.suggestions.set_suggestions)
        if not changes.memories:
            return
        if self._dirty:
            return  # a full reload is due anyway when the page is shown
        if not self.isVisible():
            self._dirty = True
            return
        self.backend.read(lambda m, ids=list(changes.memories): m.memories.get_many(ids), self._merge)

    def _merge(self, fresh: dict[str, dict]) -> None:
        by_id = {m["id"]: m for m in self.memories}
        by_id.update(fresh)
        self.memories = list(by_id.values())
        if self.search_box.text().strip():
            self._run_search()
        self.render()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self.reload()
        else:
            # Apps suggest from their own process, which sends this window no notice: look each time.
            self.backend.read(lambda m: m.apps.memory_suggestions(), self.suggestions.set_suggestions)

    def reload(self) -> None:
        self._dirty = False
        self.backend.read(lambda m: m.get_all(include_invalid=True)["results"], self._loaded)
        self.backend.read(lambda m: m.memories.proposals(), self.proposals.set_proposals)
        self.backend.read(lambda m: m.apps.memory_suggestions(), self.suggestions.set_suggestions)
        if self.tidy_hint.wants_check():  # once a session, in the background: never on every refresh
            self.backend.read(lambda m: m.memories.tidy_proposals(), self.tidy_hint.set_proposals, lambda _exc: None)

    def _loaded(self, memories: list[dict]) -> None:
        self.memories = memories
        if self.search_box.text().strip():
            self._run_search()
        self.render()

    def _filters_changed(self) -> None:
        custom = self.period_box.currentData() == "custom"
        self.since_edit.setVisible(custom)
        self.until_edit.setVisible(custom)
        self._limit = PAGE_SIZE
        self.render()

    def _text_changed(self) -> None:
        self._ranked = None
        self._limit = PAGE_SIZE
        self._render_timer.start()  # the substring match shows at once; the ranked search follows
        self._search_timer.start()

    def _run_search(self) -> None:
        query = self.search_box.text().strip()
        self._search_generation += 1
        generation = self._search_generation
        if not query:
            return

        def found(results: list[dict]) -> None:
            if generation == self._search_generation:
                self._ranked = [r["id"] for r in results]
                self.render()

        self.backend.read(lambda m: m.search(query, limit=50)["results"], found)

    # -- rendering ------------------------------------------------------------------------------

    def _where_keyboard_is(self) -> None:
        """Before the cards are drawn again: which card and which of its buttons has the keyboard."""
        focused = QApplication.focusWidget()
        for i, card in enumerate(self.cards):
            if focused is not None and (card is focused or card.isAncestorOf(focused)):
                self._keyboard = (card.memory["id"], card.role_of(focused), i)
                return

    def _give_keyboard_back(self) -> None:
        """After: the same button of the same memory, else of the memory now in its place, else Undo."""
        if self._keyboard is None:
            return
        memory_id, role, index = self._keyboard
        self._keyboard = None
        card = self._card_of.get(memory_id)
        if card is None or card not in self.cards:
            card = self.cards[min(index, len(self.cards) - 1)] if self.cards else None
        if card is not None:
            focus_stop(card.widget_for(role))
        elif self.undo_bar.isVisible():
            focus_stop(self.undo_bar.button)
        else:
            focus_stop(self.search_box)

    def render(self) -> None:
        if self._keyboard is None:
            self._where_keyboard_is()
        f = self.current_filter()
        matches = apply_filter(self.memories, f, self._ranked)
        self.shown = matches[: self._limit]
        # A card whose memory is unchanged is kept (moved, not rebuilt): an edit or a finished job
        # rebuilds the cards of the memories it changed, not the whole list.
        wanted = {m["id"] for m in self.shown}
        for mid in [mid for mid in self._card_of if mid not in wanted]:
            self._card_of.pop(mid).deleteLater()
        for card in self.cards:
            self._cards_layout.removeWidget(card)
        self.cards = []
        for i, memory in enumerate(self.shown):
            card = self._card_of.get(memory["id"])
            if card is None or card.memory != memory:
                if card is not None:
                    card.deleteLater()
                card = self._card_of[memory["id"]] = self._make_card(memory)
            self._cards_layout.insertWidget(2 + i, card)
            self.cards.append(card)
        self.more_button.setVisible(len(matches) > len(self.shown))
        active = sum(1 for m in self.memories if m.get("state") == "active")
        self.count_label.setText(self.tr("%n shown", None, len(matches)) + " · "
                                 + self.tr("%n remembered", None, active))
        self._give_keyboard_back()
        reveal = self._card_of.get(self._reveal or "")
        if reveal is not None:
            self._reveal = None
            QTimer.singleShot(0, lambda: self.scroll.ensureWidgetVisible(reveal))  # once laid out
        if matches:
            self.empty_label.hide()
            self.empty_actions.hide()
        else:
            self.empty_label.setText(self._empty_text(f))
            self.empty_label.show()
            self.empty_actions.setVisible(not self.memories)
            self.connect_button.setVisible(not self.backend.llm_configured)

    def _make_card(self, memory: dict) -> MemoryCard:
        self.cards_built += 1
        card = MemoryCard(memory)
        card.edit_requested.connect(self.edit)
        card.forget_requested.connect(self.forget)
        card.restore_requested.connect(self.restore)
        card.history_requested.connect(self.show_history)
        card.source_requested.connect(self.open_source)
        return card

    def _empty_text(self, f: MemoryFilter) -> str:
        if not self.memories:
            if not self.backend.llm_configured:
                return self.tr("No memories yet. Memories are made from your entries by an AI companion, once "
                               "one is connected (Settings). Meanwhile you can add a memory yourself.")
            return self.tr("No memories yet. Write in the journal: memories appear here as the AI "
                           "organizes your entries. You can also add a memory yourself.")
        if f.text.strip():
            return self.tr("No memory matches “{query}”.").format(query=f.text.strip())
        return self.tr("No memory matches these filters.")

    def _show_more(self) -> None:
        self._limit += PAGE_SIZE
        self.render()

    # -- actions ----------------------------------------------------------------------------------

    def add(self, text: str = "") -> AddMemoryDialog:
        """Write a memory by hand: saved as the user's own (no AI needed); Forget removes it again."""
        def save(text: str, day: date | None, ok, err) -> None:
            when = datetime(day.year, day.month, day.day, 12) if day is not None else None
            self.backend.change(lambda m: m.memories.add(text, infer=False, timestamp=when), ok, err)

        dialog = AddMemoryDialog(save, text, parent=self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        dialog.open()
        return dialog

    def edit(self, memory: dict) -> EditMemoryDialog:
        card = self._card_of.get(memory["id"])
        from_card = card is not None and card.isAncestorOf(QApplication.focusWidget())

        def save(text: str, ok, err) -> None:
            def saved(result) -> None:
                if from_card:  # its card is drawn again: the keyboard goes back to its Edit button
                    self._keyboard = (memory["id"], "edit", self.cards.index(card) if card in self.cards else 0)
                ok(result)

            self.backend.change(lambda m: m.memories.update(memory["id"], text), saved, err)

        dialog = EditMemoryDialog(memory, save=save, parent=self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        dialog.open()
        return dialog

    def forget(self, memory: dict) -> None:
        self._where_keyboard_is()
        self.backend.change(lambda m: m.memories.delete(memory["id"]), lambda done: self.undo_bar.show_forgotten(done.memory),
                           self._write_failed)

    def restore(self, memory: dict) -> None:
        self._where_keyboard_is()
        if self.undo_bar.isAncestorOf(QApplication.focusWidget()):  # Undo from the keyboard: on to the memory
            self._keyboard = (memory["id"], "state", 0)
        self.backend.change(lambda m: m.memories.restore(memory["id"]),
                            lambda done: announce(self, self.tr("Restored: {text}").format(
                                text=short(done.memory.get("memory", ""), 80))), self._write_failed)

    def show_history(self, memory: dict) -> HistoryDialog:
        dialog = HistoryDialog(memory, parent=self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        self.backend.read(lambda m: m.history(memory["id"]), dialog.set_rows, lambda exc: dialog.show_error(str(exc)))
        dialog.open()
        return dialog

    def tidy(self) -> TidyDialog:
        self.tidy_hint.dismiss()
        dialog = TidyDialog(self.backend, parent=self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        dialog.open()
        return dialog

    def _resolve(self, proposal_id: int, accept: bool) -> None:
        self.backend.change(lambda m: m.memories.resolve_proposal(proposal_id, accept), None, self._write_failed)

    def _decide_suggestion(self, suggestion_id: int, accept: bool) -> None:
        self.backend.change(lambda m: m.memories.decide_suggestion(suggestion_id, accept), None, self._write_failed)

    def _write_failed(self, exc: BaseException) -> None:
        self.count_label.setText(self.tr("Could not save: {error}").format(error=exc))
        self.mark_dirty()
