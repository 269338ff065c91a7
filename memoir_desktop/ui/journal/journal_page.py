"""`JournalPage`: past days and the trash on the left; the day's entries and the composer on the right.

The page runs what the user asks of an entry through the backend (AsyncMemoir) and tells the
chat view what came of it: write (with or without a reply, on the day shown), edit in place,
change the date, move to the trash (with Undo), restore or delete forever from the trash, ask
the companion later. Nothing here waits: every call returns at once and reports by callback.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from memoir_desktop.core.inputs import InvalidInput
from memoir_desktop.core.journal.entries import EntryChanged, EntryPurged
from memoir_desktop.core.memories.actions import Added
from memoir_desktop.core.sync import joining
from memoir_desktop.ui.background_writer import SLOW
from memoir_desktop.ui.journal import turns
from memoir_desktop.ui.journal.chat_view import ChatView, PendingExchange
from memoir_desktop.ui.journal.composer import Composer
from memoir_desktop.ui.journal.day_navigator import DayNavigator
from memoir_desktop.ui.journal.entry_dialogs import EntryHistoryDialog, MoveEntryDialog, PurgeConfirmDialog
from memoir_desktop.ui.journal.letter_dialog import open_letter
from memoir_desktop.ui.journal.message_bubble import MessageBubble
from memoir_desktop.ui.journal.reflection_cards import FollowUpCard, LetterCard, OnThisDayCard
from memoir_desktop.ui.journal.trash_view import ActionBar, TrashView
from memoir_desktop.ui.journal.welcome_panel import NoLLMBanner, WelcomePanel
from memoir_desktop.ui.shared import llm_words
from memoir_desktop.ui.shared.a11y import focus_stop
from memoir_desktop.ui.shared.formatting import long_date, parse
from memoir_desktop.ui.shared.qt_compat import listen
from memoir_desktop.ui.shared.reasons import reason as _reason
from memoir_desktop.ui.shared.splitter import KeyboardSplitter
from memoir_desktop.ui.sync.conflict_notice import ConflictNoticeCard
from memoir_desktop.viewmodels.day import DayView, load_day


class JournalPage(QWidget):
    open_settings = Signal()
    join_requested = Signal()  # the welcome panel's "I already keep my journal on another computer…"
    exchange_finished = Signal(dict)  # mem.companion.chat's result, once shown

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.day: date = date.today()
        self._generation = 0
        self._after_load: list[Callable[[], None]] = []
        self._pending: list[PendingExchange] = []
        self._llm_reachable: bool | None = None
        self._empty = False  # the day shown has no entry yet (today: show the welcome panel)
        self.journal_empty = False  # no entry and no memory at all: the welcome panel offers to join
        self.last_dialog = None  # the entry dialog open now (tests and screenshots reach it here)
        # Reflection above the day: On This Day (any day), follow-ups and a new letter (today only).
        self.on_this_day: list[dict] = []
        self.followups: list[dict] = []
        self.new_letters: list[dict] = []  # letters of the last week
        self.answering: dict | None = None  # the follow-up the user chose to write about
        self.sync_notices: list = []  # entries edited on two computers, not seen yet (core/sync Notice)
        # Dismissed here: a status read before the dismiss was saved does not bring them back.
        self._notices_seen: set[str] = set()
        self.cards: list[QWidget] = []
        self._cards_seen = -1  # the page generation whose cards were scrolled into view

        self.navigator = DayNavigator()
        self.navigator.day_selected.connect(self.show_day)
        self.navigator.trash_requested.connect(self.show_trash)
        self.chat = ChatView()
        self.chat.retry_job.connect(
            lambda job_id: self.backend.change(lambda m: m.jobs.retry(job_id), poke=True))
        self.chat.entry_action.connect(self._entry_action)
        self.chat.entry_edited.connect(self.edit_entry)
        self.trash_view = TrashView()
        self.trash_view.back_requested.connect(lambda: self.show_day(self.day))
        self.trash_view.restore_requested.connect(self.restore_from_trash)
        self.trash_view.purge_requested.connect(self.confirm_purge)
        self.bar = ActionBar()
        self.composer = Composer()
        self.composer.send.connect(self.send)
        self.composer.save.connect(self.save)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.chat)
        self.stack.addWidget(self.trash_view)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.stack, 1)
        bar_holder = QVBoxLayout()
        bar_holder.setContentsMargins(12, 4, 12, 0)
        bar_holder.addWidget(self.bar)
        column.addLayout(bar_holder)
        column.addWidget(self.composer)
        self.splitter = KeyboardSplitter(Qt.Horizontal, self.tr("Width of the list of days"))
        self.splitter.setObjectName("journalSplitter")
        # The days scroll when the window is short (a laptop at 200 %): the calendar alone is taller than
        # what is left there, and the window could not be made smaller than the screen.
        days = QScrollArea()
        days.setWidget(self.navigator)
        days.setWidgetResizable(True)
        days.setFrameShape(QFrame.NoFrame)
        days.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        days.setFocusPolicy(Qt.NoFocus)
        days.setMinimumWidth(self.navigator.minimumSizeHint().width())
        self.splitter.addWidget(days)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([260, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

        backend.job_finished.connect(self.chat.show_job)
        listen(backend.changed, self, lambda changes: self.refresh_days() if changes.entries else None)
        listen(backend.changed, self, lambda changes: self._check_empty() if changes.memories and self.journal_empty
                                else None)
        backend.llm_reachable_changed.connect(self._on_llm_state)
        listen(backend.settings_changed, self, lambda _s: self.refresh_banner())
        self.chat.llm_place = llm_words.place(backend.settings)
        listen(backend.settings_changed, self, lambda s: setattr(self.chat, "llm_place", llm_words.place(s)))

    # -- days -----------------------------------------------------------------------------

    def refresh_days(self) -> None:
        self.backend.read(lambda m: m.journal.days(), self.navigator.set_days)
        self.refresh_trash()
        self._check_empty()

    def _check_empty(self) -> None:
        def known(empty: bool) -> None:
            if empty != self.journal_empty:
                self.journal_empty = empty
                self.refresh_banner()

        self.backend.read(lambda m: joining.is_empty(m.engine), known)

    def show_latest_day(self) -> None:
        """The latest day with an entry (a journal just brought here from another computer)."""
        self.backend.read(lambda m: m.journal.days(), lambda days: self.show_day(days[0]) if days else None)

    def show_today(self) -> None:
        self.show_day(date.today())
        self.composer.focus()

    def show_day(self, day: date, then: Callable[[], None] | None = None) -> None:
        self.day = day
        self.stack.setCurrentWidget(self.chat)
        self.composer.show()
        self.navigator.select(day)
        self._generation += 1
        generation = self._generation
        if then is not None:
            self._after_load.append(then)
        self.composer.set_day(day)
        self.backend.read(lambda m: load_day(m, day), lambda view: self._day_loaded(generation, view))

    def show_entry(self, day: date, entry_id: int) -> None:
        self.show_day(day, then=lambda: self.chat.highlight_entry(entry_id))

    def _day_loaded(self, generation: int, view: DayView) -> None:
        if generation != self._generation:
            return  # the user moved on to another day meanwhile
        self.chat.set_llm_missing(not self.backend.llm_configured)
        self.chat.show_day(view, today=view.day == date.today())
        self.composer.write_after(view.latest)
        self._empty = view.empty
        self.refresh_banner()
        self.load_reflection()
        callbacks, self._after_load = self._after_load, []
        for callback in callbacks:
            callback()

    def refresh_banner(self) -> None:
        """One message about a missing companion (the welcome panel on an empty today, else the
        banner), then the reflection cards: a new letter, follow-ups, On This Day."""
        configured, needs_key = self.backend.llm_configured, self.backend.llm_needs_key
        self.chat.set_llm_missing(not configured)
        top: QWidget | None = None
        if self._empty and self.day == date.today() and not needs_key:
            panel = WelcomePanel(configured, self.journal_empty)
            panel.open_settings.connect(self.open_settings)
            panel.join_requested.connect(self.join_requested)
            top = panel
        elif not configured or needs_key:
            banner = NoLLMBanner(journal_model=self.backend.settings.llm_model if needs_key else None)
            banner.open_settings.connect(self.open_settings)
            top = banner
        self.cards = self._reflection_cards()
        if not self.cards:
            self.chat.set_top_widget(top)
            return
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(8)
        for widget in ([top] if top is not None else []) + self.cards:
            column.addWidget(widget)
        self.chat.set_top_widget(holder)
        if self._cards_seen != self._generation:  # the past and the plans come first, the day's entries below
            self._cards_seen = self._generation
            self.chat.show_top()

    # -- reflection ---------------------------------------------------------------------------

    def load_reflection(self) -> None:
        generation, day = self._generation, self.day

        def current() -> bool:
            return generation == self._generation and self.stack.currentWidget() is self.chat

        def past(groups: list[dict]) -> None:
            if current():
                self.on_this_day = groups
                self.refresh_banner()

        def plans(found: list[dict]) -> None:
            if current():
                self.followups = found
                self.refresh_banner()

        def letters(found: list[dict]) -> None:
            if current():
                recent = [e for e in found if parse(e["created_at"]).date() >= date.today() - timedelta(days=7)]
                self.new_letters = recent[:2]
                self.refresh_banner()

        self.on_this_day, self.followups, self.new_letters = [], [], []
        self.backend.read(lambda m: m.reflection.on_this_day(day), past)
        if day == date.today():
            turns.followups(self.backend, plans)
            self.backend.read(lambda m: m.reflection.letters(), letters)

    def _reflection_cards(self) -> list[QWidget]:
        cards: list[QWidget] = []
        if self.sync_notices:
            notice = ConflictNoticeCard(self.sync_notices)
            notice.show_requested.connect(self.show_conflict)
            notice.dismiss_requested.connect(self.dismiss_sync_notices)
            cards.append(notice)
        for letter in self.new_letters:
            card = LetterCard(letter)
            card.open_letter.connect(self.read_letter)
            cards.append(card)
        for followup in self.followups[:2]:
            card = FollowUpCard(followup)
            card.write_requested.connect(self.write_about)
            card.dismiss_requested.connect(self.dismiss_followup)
            cards.append(card)
        if self.on_this_day:
            card = OnThisDayCard(self.on_this_day)
            card.open_day.connect(self.show_day)
            cards.append(card)
        return cards

    # -- an entry edited on two computers (ui/sync/conflict_notice.py) ----------------------------

    def set_sync_notices(self, notices: list) -> None:
        fresh = [n for n in notices if n.id not in self._notices_seen]
        if [n.id for n in fresh] != [n.id for n in self.sync_notices]:
            self.sync_notices = fresh
            self.refresh_banner()

    def dismiss_sync_notices(self, notices: list) -> None:
        ids = [n.id for n in notices]
        self._notices_seen.update(ids)
        self.sync_notices = [n for n in self.sync_notices if n.id not in self._notices_seen]
        self.refresh_banner()

        def work(m) -> None:
            for notice_id in ids:
                m.sync.dismiss(notice_id)

        self.backend.change(work)

    def redraw_quietly(self) -> None:
        """The day shown again (entries came from another computer), unless the user is in the middle of
        something on it: an answer on its way or an entry being edited keeps the page as it is."""
        if self.stack.currentWidget() is not self.chat or self._pending:
            return
        if any(b.editing for b in self.chat.bubbles):
            return
        # The reader stays where they were: the cards above the entries are not brought back into view,
        # and the same scroll position is kept (at the bottom, the bottom).
        place = self.chat.place()
        seen = self._cards_seen == self._generation
        self.show_day(self.day, then=lambda: self.chat.keep_place(place))
        if seen:
            self._cards_seen = self._generation

    def show_conflict(self, notice) -> None:
        """The entry's day, the entry, and its history (where the other version is); the notice is seen."""
        self.dismiss_sync_notices([notice])
        if notice.entry_id is None:
            return
        entry_id = notice.entry_id

        def found(entry: dict) -> None:
            self.show_entry(parse(entry["created_at"]).date(), entry_id)
            self._after_load.append(lambda: self.open_history(entry, entry_id))

        gone = self.tr("That entry is no longer in the journal.")
        self.backend.read(lambda m: m.journal.entry(entry_id), found, lambda _exc: self.bar.show_message(gone))

    def read_letter(self, letter: dict):
        self.last_dialog = open_letter(self, self.backend, letter)
        return self.last_dialog

    def write_about(self, followup: dict) -> None:
        """The next entry answers this follow-up: its question is the composer's prompt."""
        self.answering = followup
        self.composer.set_placeholder(followup["question"])
        self.composer.focus()

    def dismiss_followup(self, followup: dict) -> None:
        self.followups = [f for f in self.followups if f["memory_id"] != followup["memory_id"]]
        if self.answering is followup:
            self.answering = None
            self.composer.set_day(self.day)
        self.backend.change(lambda m: m.reflection.dismiss_followup(followup["memory_id"]))
        self.refresh_banner()

    def _answered_followup(self, entry_id: int | None) -> None:
        followup, self.answering = self.answering, None
        if followup is None or entry_id is None:
            return
        self.followups = [f for f in self.followups if f["memory_id"] != followup["memory_id"]]
        self.composer.set_day(self.day)
        self.backend.change(lambda m: m.reflection.answer_followup(followup["memory_id"], entry_id))
        self.refresh_banner()

    def _redraw_if_shown(self, day: date) -> None:
        """A result arrived for a page no longer drawn; the day shown may need it."""
        if self.day == day and self.stack.currentWidget() is self.chat:
            self.show_day(self.day)

    # -- writing --------------------------------------------------------------------------

    def _start_writing(self) -> datetime | None:
        if self._empty:
            self._empty = False
            self.refresh_banner()
        when = self.composer.timestamp()
        self.composer.write_after(when)
        return when

    def send(self, text: str) -> None:
        """Enter: save on the day shown (now, or that day at the time set), then ask the companion."""
        when = self._start_writing()
        pending = self.chat.begin_exchange(text, when)
        pending.day = self.day
        self._pending.append(pending)
        turns.chat(self.backend, text, lambda out: self._answered(pending, out),
                   lambda exc: self._failed(pending, exc), on_saved=lambda turn: (self.chat.confirm_saved(pending, turn["entry_id"],
                                                                         parse(turn.get("when"))),
                                                 self._answered_followup(turn["entry_id"])),
                          timestamp=when)

    def save(self, text: str) -> None:
        """Ctrl+Enter: save only; the companion can be asked about it later."""
        when = self._start_writing()
        pending = self.chat.begin_saving(text, when)
        pending.day = self.day
        private = self.composer.is_private()
        turns.save_entry(self.backend, text, lambda entry_id: self._saved(pending, entry_id, private),
                         lambda exc: self._failed(pending, exc), timestamp=when, private=private)

    def _saved(self, pending: PendingExchange, entry_id: int, private: bool = False) -> None:
        self._answered_followup(entry_id)
        waiting = not self.backend.llm_configured or self._llm_reachable in (False, SLOW)
        if not self.chat.finish_saving(pending, entry_id, pending.when, waiting, private=private):
            self._redraw_if_shown(pending.day)

    def _answered(self, pending: PendingExchange, out: dict) -> None:
        if pending in self._pending:
            self._pending.remove(pending)
        notice = None
        error = out.get("error") or ""
        unusable = out.get("error_kind") == "bad_reply"
        if unusable:
            notice = self.tr("The AI's answer could not be used. Your entry is saved, and will still "
                             "become memories.")
        elif error and self.backend.llm_configured:  # none connected: the banner says it, once
            notice = self.tr("Not connected to your AI companion. Your entry is saved, and will become "
                             "memories once it connects.")
        self._say_left_out(out)
        if not self.chat.finish_exchange(pending, out, notice):
            self._redraw_if_shown(pending.day)
            return
        if error and not unusable and out.get("job_id") in self.chat.ops_logs:
            log = self.chat.ops_logs[out["job_id"]]
            if log.state != "done":
                log.show_pending(waiting_for_llm=True)
        self.exchange_finished.emit(out)

    def _say_left_out(self, out: dict) -> None:
        """The gate kept private entries out of what the companion read: one quiet line says so."""
        n = int(out.get("left_out") or 0)
        if n:
            self.bar.show_message(self.tr("%n private entry(ies) left out of what the companion read.", None, n))

    def _failed(self, pending: PendingExchange, exc: BaseException) -> None:
        if pending in self._pending:
            self._pending.remove(pending)
        if isinstance(exc, InvalidInput):
            message = str(exc)
        else:
            message = self.tr("Could not save this entry: {error}").format(error=exc)
        if not self.chat.fail_exchange(pending, message):
            self._redraw_if_shown(pending.day)

    # -- an entry's menu ---------------------------------------------------------------------

    def _entry_action(self, name: str, bubble: MessageBubble) -> None:
        {"move": self.move_entry, "trash": self.trash_entry, "history": self.entry_history,
         "ask": self.ask_about, "remember": self.remember, "private": lambda b: self.set_private(b, True),
         "share": lambda b: self.set_private(b, False)}[name](bubble)

    def remember(self, bubble: MessageBubble) -> None:
        """Keep the words selected in an entry (or the whole entry) as the user's own memory, linked
        to the entry: it follows the entry to the trash or into privacy. No AI needed."""
        text = bubble.remember_text or bubble.text.strip()
        if not text or bubble.entry_id is None:
            return

        def done(added: Added) -> None:
            ids = [r["id"] for r in added.results]
            short = text if len(text) <= 60 else text[:57] + "…"
            self.bar.show_message(self.tr("Remembered: “{text}”").format(text=short), self.tr("Undo"),
                                  lambda: [self.backend.change(lambda m, mid=mid: m.memories.delete(mid)) for mid in ids])

        def failed(exc: BaseException) -> None:
            self.bar.show_message(self.tr("Could not remember this: {error}").format(error=exc))

        self.backend.change(lambda m: m.memories.add(text, infer=False, timestamp=bubble.when, entry_id=bubble.entry_id),
                           done, failed)

    def set_private(self, bubble: MessageBubble, private: bool) -> None:
        self.set_entry_private(bubble.entry_id, private)

    def set_entry_private(self, entry_id: int, private: bool) -> None:
        """By id, not bubble: the day is redrawn, and Undo must still find the entry."""
        shown = self.chat.bubble_for(entry_id)
        had_focus = shown is not None and (shown.hasFocus() or shown.isAncestorOf(QApplication.focusWidget()))
        def done(changed: EntryChanged) -> None:
            bubble = self.chat.bubble_for(entry_id)
            if bubble is not None:
                bubble.set_entry(changed.entry)
            if private:
                n = len(changed.memories)
                text = (self.tr("Private now: the companion won't read this entry, and %n memory(ies) made from it "
                                "are set aside. What it already read can't be unsent.", None, n) if n else
                        self.tr("Private now: the companion won't read this entry."))
                self.bar.show_message(text, self.tr("Undo"), lambda: self.set_entry_private(entry_id, False))
                # Its "waiting for the AI" note goes (nothing will read it); the keyboard stays on the entry.
                self.show_day(self.day, then=lambda: self.focus_entry(entry_id) if had_focus else None)
            else:
                self.bar.show_message(self.tr("The companion may read this entry again."))

        def failed(exc: BaseException) -> None:
            self.bar.show_message(self.tr("Could not change this entry: {error}").format(error=exc))

        self.backend.change(lambda m: m.journal.set_private(entry_id, private), done, failed, poke=True)

    def edit_entry(self, bubble: MessageBubble, text: str) -> None:
        if not text.strip():
            bubble.show_edit_error(self.tr("An entry can't be empty. To remove it, choose Move to trash."))
            return

        def done(changed: EntryChanged) -> None:
            if not shiboken6.isValid(bubble):
                return
            bubble.finish_edit(changed.entry)
            if changed.job_id is not None:
                self.chat.show_rereading(bubble, changed.job_id)
                if not self.backend.llm_configured or self._llm_reachable in (False, SLOW):
                    self.chat.mark_waiting_for_llm()

        def failed(exc: BaseException) -> None:
            if shiboken6.isValid(bubble):
                bubble.show_edit_error(self.tr("Could not save this change: {error}").format(error=exc))

        entry_id = bubble.entry_id
        self.backend.change(lambda m: m.journal.edit(entry_id, text), done, failed, poke=True)

    def move_entry(self, bubble: MessageBubble) -> MoveEntryDialog:
        dialog = MoveEntryDialog(bubble.when or datetime.now(), self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        dialog.accepted.connect(lambda: self._move(bubble, bubble.entry_id, dialog.when()))
        dialog.open()
        return dialog

    def _move(self, bubble: MessageBubble, entry_id: int, when: datetime) -> None:
        shown = self.day

        def done(changed: EntryChanged) -> None:
            new_day = parse(changed.entry["created_at"]).date()
            job_id = changed.job_id
            if new_day == shown:
                # Same day, another time: redraw it in order, then show its memories being re-read.
                self.show_day(shown, then=lambda: self._after_same_day_move(entry_id, job_id))
                return
            if shiboken6.isValid(bubble):
                self.chat.remove_entry(bubble)
            self.bar.show_message(self.tr("Entry moved to {date}.").format(date=long_date(new_day)),
                                  self.tr("Go there"), lambda: self.show_entry(new_day, entry_id))

        def failed(exc: BaseException) -> None:
            self.bar.show_message(self.tr("Could not move this entry: {error}").format(error=exc))

        self.backend.change(lambda m: m.journal.move(entry_id, when), done, failed, poke=True)

    def _after_same_day_move(self, entry_id: int, job_id: int | None) -> None:
        bubble = self.chat.bubble_for(entry_id)
        if bubble is None:
            return
        self.chat.highlight_entry(entry_id)
        if job_id is not None:
            self.chat.show_rereading(bubble, job_id)

    def trash_entry(self, bubble: MessageBubble) -> None:
        """Out of the day at once; the bar offers to put it back. The keyboard goes on to the next entry
        (or the one before), never to the top of the window."""
        entry_id = bubble.entry_id
        had_focus = bubble.isAncestorOf(QApplication.focusWidget()) or bubble.hasFocus()
        neighbour = self.chat.neighbour_of(bubble)
        bubble.hide()
        if had_focus:
            self._give_focus(neighbour)

        def done(_changed: EntryChanged) -> None:
            if shiboken6.isValid(bubble):
                self.chat.remove_entry(bubble)
            self.bar.show_message(self.tr("Entry moved to the trash"), self.tr("Put back"),
                                  lambda: self.restore_entry(entry_id, announce=True), shortcut="Ctrl+Z")
            if had_focus and (neighbour is None or not shiboken6.isValid(neighbour)):
                self._give_focus(None)
            self.refresh_trash()

        def failed(exc: BaseException) -> None:
            if shiboken6.isValid(bubble):
                bubble.show()
                if had_focus:
                    focus_stop(bubble)
            self.bar.show_message(self.tr("Could not move this entry to the trash: {error}").format(error=exc))

        self.backend.change(lambda m: m.journal.trash(entry_id), done, failed)

    def _give_focus(self, bubble: MessageBubble | None) -> None:
        """The keyboard on `bubble`, or on the bar's button (Undo) when there is no entry left to go to."""
        if bubble is not None and shiboken6.isValid(bubble) and bubble.isVisible():
            focus_stop(bubble)
        elif self.bar.button.isVisible():
            focus_stop(self.bar.button)
        else:
            self.composer.focus()

    def focus_entry(self, entry_id: int) -> None:
        """The keyboard on an entry drawn again (after a redraw of its day)."""
        bubble = self.chat.bubble_for(entry_id)
        if bubble is not None:
            focus_stop(bubble)

    def restore_entry(self, entry_id: int, announce: bool = False) -> None:
        def done(changed: EntryChanged) -> None:
            self.refresh_trash()
            created = changed.entry.get("created_at")
            day = parse(created).date() if created else None
            if day is not None and day == self.day and self.stack.currentWidget() is self.chat:
                self.show_day(day, then=lambda: (self.chat.highlight_entry(entry_id), self.focus_entry(entry_id)))
            if announce and day is not None:  # said whichever page shows now (a page switch must not drop it)
                self.bar.show_message(self.tr("Entry restored to {date}.").format(date=long_date(day)),
                                      self.tr("Go there"), lambda: self.show_entry(day, entry_id))

        def failed(exc: BaseException) -> None:
            self.bar.show_message(self.tr("Could not restore this entry: {error}").format(error=exc))

        self.backend.change(lambda m: m.journal.restore(entry_id), done, failed)

    def entry_history(self, bubble: MessageBubble) -> EntryHistoryDialog:
        return self.open_history(bubble.entry or {"content": bubble.text}, bubble.entry_id)

    def open_history(self, entry: dict, entry_id: int) -> EntryHistoryDialog:
        dialog = EntryHistoryDialog(entry, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        self.backend.read(lambda m: m.journal.history(entry_id), dialog.set_rows, lambda exc: dialog.show_error(str(exc)))
        dialog.open()
        return dialog

    def ask_about(self, bubble: MessageBubble) -> None:
        """An entry saved without a reply: ask the companion now; the answer comes under it."""
        pending = self.chat.begin_ask(bubble)

        def done(out: dict) -> None:
            notice = None
            if not out.get("reply") and (out.get("error_kind") == "not_configured"
                                         or not self.backend.llm_configured):
                notice = self.tr("No AI companion is connected, so there is no one to ask yet. Connect one in "
                                 "Settings, then ask again from the entry's menu.")
            elif not out.get("reply"):
                notice = self.tr("Your companion couldn't answer just now. You can ask again later from the "
                                 "entry's menu.")
            self.chat.finish_ask(pending, out, notice)
            self._say_left_out(out)

        def failed(exc: BaseException) -> None:
            self.chat.finish_ask(pending, {"reply": None}, self.tr("Could not ask: {error}").format(error=_reason(exc)))

        turns.ask_about(self.backend, bubble.entry_id, done, failed)

    # -- trash ----------------------------------------------------------------------------------

    def show_trash(self) -> None:
        self.stack.setCurrentWidget(self.trash_view)
        self.composer.hide()
        self.navigator.list.clearSelection()
        self.refresh_trash()

    def refresh_trash(self) -> None:
        def loaded(entries: list[dict]) -> None:
            self.navigator.set_trash_count(len(entries))
            self.trash_view.set_entries(entries)

        self.backend.read(lambda m: m.journal.in_trash(), loaded)

    def restore_from_trash(self, entry: dict) -> None:
        row = self.trash_view.row_for(entry["id"])
        if row is not None:
            row.set_busy(True)
        self.restore_entry(entry["id"], announce=True)

    def confirm_purge(self, entry: dict) -> None:
        """Delete forever, after a confirmation that lists what goes (purge_preview)."""
        def failed(exc: BaseException) -> None:
            self.bar.show_message(self.tr("Could not delete this entry: {error}").format(error=exc))

        self.backend.read(lambda m: m.journal.purge_preview(entry["id"]), lambda preview: self._ask_purge(entry, preview), failed)

    def _ask_purge(self, entry: dict, preview: dict) -> PurgeConfirmDialog:
        dialog = PurgeConfirmDialog(preview, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        self.last_dialog = dialog
        dialog.accepted.connect(lambda: self._purge(entry))
        dialog.open()
        return dialog

    def _purge(self, entry: dict) -> None:
        row = self.trash_view.row_for(entry["id"])
        if row is not None:
            row.set_busy(True)

        def done(_purged: EntryPurged) -> None:
            self.refresh_trash()
            self.bar.show_message(self.tr("Deleted forever."))

        def failed(exc: BaseException) -> None:
            self.refresh_trash()
            self.bar.show_message(self.tr("Could not delete this entry: {error}").format(error=exc))

        self.backend.change(lambda m: m.journal.purge(entry["id"]), done, failed)

    # -- companion state ------------------------------------------------------------------------

    def _on_llm_state(self, reachable) -> None:
        self._llm_reachable = reachable
        if reachable in (False, SLOW):
            self.chat.mark_waiting_for_llm()
        self.refresh_banner()
