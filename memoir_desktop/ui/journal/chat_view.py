"""`ChatView`: one day's entries and replies as bubbles, with the memory log under each exchange.

It draws and redraws only: what the user asks of an entry (edit, move, trash, ask) leaves as
`entry_edited` / `entry_action` for the page to run through the backend; the page then tells
the view what came of it. Each memory log is known by its job ids and by the entries it covers,
so a later job about an entry (the re-reading after an edit, a saved entry's first organizing)
lands under that entry. A notice under an entry ("not connected…") goes once its job is done.
"""

from __future__ import annotations

from datetime import datetime

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog
from memoir_desktop.ui.journal.message_bubble import MessageBubble, NoticeLine
from memoir_desktop.ui.shared.formatting import long_date, parse
from memoir_desktop.viewmodels.day import DayView

BUBBLE_WIDTH_RATIO = 0.72
EARLY_JOBS_KEPT = 50
HOLD_MS = 1500  # how long a redraw keeps the reader's place while the page settles its height


class PendingExchange:
    """Handle for a message sent but not yet answered (its bubbles, until the reply lands)."""

    def __init__(self, user: MessageBubble, thinking: MessageBubble | None, generation: int,
                 when: datetime | None = None):
        self.user, self.thinking = user, thinking
        self.generation = generation  # the ChatView page it was drawn on
        self.when = when  # a back-dated entry's time (None: now)
        self.saved = False  # the entry is on disk (chat's on_saved came)
        self.day = None  # the day it was written on (the page's)


class ChatView(QScrollArea):
    retry_job = Signal(int)
    entry_action = Signal(str, object)  # action ("move", "trash", "history", "ask"), the MessageBubble
    entry_edited = Signal(object, str)  # the MessageBubble, its new text

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        # Not a stop of its own: Tab goes through the entries, which it scrolls into view.
        self.setFocusPolicy(Qt.NoFocus)
        self.canvas = QWidget()
        self.canvas.setObjectName("chatCanvas")
        self._layout = QVBoxLayout(self.canvas)
        self._layout.setContentsMargins(18, 12, 18, 12)
        self._layout.setSpacing(8)
        self.header = QLabel()
        self.header.setObjectName("dayHeader")
        self.header.setAlignment(Qt.AlignCenter)
        self._layout.addWidget(self.header)
        self._top = QVBoxLayout()  # welcome / banners
        self._layout.addLayout(self._top)
        self.empty_hint = QLabel(self.tr("Nothing written on this day yet. What you write below is kept on this "
                                         "day."))
        self.empty_hint.setObjectName("muted")
        self.empty_hint.setAlignment(Qt.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.hide()
        self._layout.addWidget(self.empty_hint)
        self._items = QVBoxLayout()
        self._items.setSpacing(8)
        self._layout.addLayout(self._items)
        self._layout.addStretch(1)
        self.setWidget(self.canvas)
        self.ops_logs: dict[int, MemoryOpsLog] = {}  # by job id
        self.bubbles: list[MessageBubble] = []
        self.notices: dict[int, NoticeLine] = {}  # by the job whose completion makes them moot
        self._log_of_entry: dict[int, MemoryOpsLog] = {}
        self._unclaimed: dict[int, MemoryOpsLog] = {}  # a saved entry's log, before its job is known
        self.day = None
        self.llm_missing = False  # no AI connected: the banner says so once, no strip per entry
        self.llm_place: tuple[str, float | None] = ("", None)  # the server and its time limit (llm_words.place)
        self._early_jobs: dict[int, dict] = {}
        self.generation = 0  # bumped whenever the page is redrawn (pending handles go stale)
        # Keep the newest message in view when content grows.
        self.verticalScrollBar().rangeChanged.connect(self._follow_bottom)
        self._stick_to_bottom = True
        self._held: int | None = None  # a place kept through a redraw (keep_place)

    # -- whole day ----------------------------------------------------------------------

    def clear(self) -> None:
        self.generation += 1
        while self._items.count():
            item = self._items.takeAt(0)
            if item.layout():
                _delete_layout(item.layout())
            elif item.widget():
                item.widget().hide()
                item.widget().deleteLater()
        self.ops_logs.clear()
        self.bubbles.clear()
        self.notices.clear()
        self._log_of_entry.clear()
        self._unclaimed.clear()

    def show_day(self, view: DayView, today: bool = False) -> None:
        self.clear()
        self.day = view.day
        self.header.setText(long_date(view.day))
        for exchange in view.exchanges:
            drawn = []
            for entry in exchange.entries:
                drawn.append(self._add_bubble(entry["role"], entry["content"], parse(entry["created_at"]),
                                              entry["id"], entry=entry))
            replied = any(b.role == "assistant" for b in drawn)
            for bubble in drawn:
                bubble.has_reply = bubble.has_reply or replied
            job = exchange.job
            if job is not None:
                log = self._add_ops_log(job.get("ids") or [job["id"]])
                for entry in exchange.entries:
                    self._log_of_entry[entry["id"]] = log
                log.show_result(job)
        self.empty_hint.setVisible(view.empty and not today)
        self._stick_to_bottom = True

    def set_top_widget(self, widget: QWidget | None) -> None:
        """The welcome panel or a banner above the conversation (None removes it)."""
        while self._top.count():
            old = self._top.takeAt(0).widget()
            if old is not None:
                old.setParent(None)
        if widget is not None:
            self._top.addWidget(widget)

    # -- live exchange ------------------------------------------------------------------

    def begin_exchange(self, text: str, when: datetime | None = None) -> PendingExchange:
        """A sent message and the companion's "thinking…" under it (`when`: a back-dated entry's time)."""
        user = self._add_bubble("user", text, when, None, at=self._place_for(when))
        user.set_pending(True)
        user.has_reply = True  # on its way: not "ask the companion" meanwhile
        thinking = self._add_bubble("assistant", self._thinking_text(), None, None, at=self._index_of(user) + 1)
        thinking.time_label.setText("")
        self._stick_to_bottom = when is None
        if when is not None:
            QTimer.singleShot(0, lambda: _ensure_visible(self, user))
        return PendingExchange(user, thinking, self.generation, when)

    def _thinking_text(self) -> str:
        # Not "_thinking…_": the translation files drop keys that start with "_" (their comments).
        return "*" + self.tr("thinking…") + "*"

    def begin_saving(self, text: str, when: datetime | None = None) -> PendingExchange:
        """An entry saved without a reply."""
        user = self._add_bubble("user", text, when, None, at=self._place_for(when))
        user.set_pending(True)
        self._stick_to_bottom = when is None
        return PendingExchange(user, None, self.generation, when)

    def confirm_saved(self, pending: PendingExchange, entry_id: int, when: datetime | None) -> bool:
        """The entry is on disk: its time shows at once, long before any answer."""
        if pending.generation != self.generation or not shiboken6.isValid(pending.user):
            return False
        pending.saved = True
        pending.user.confirm(entry_id, when)
        return True

    def finish_saving(self, pending: PendingExchange, entry_id: int, when: datetime | None,
                      waiting_for_llm: bool, private: bool = False) -> bool:
        """A saved-only entry: its memory log waits for the job that organizes it. A private entry
        has no such job (it is never sent): it gets its "Private" mark and no log."""
        if not self.confirm_saved(pending, entry_id, when):
            return False
        if private:
            pending.user.set_entry({**pending.user.entry, "private": True})
            return True
        log = self._new_log(None, after=pending.user)
        if waiting_for_llm:
            log.show_pending(waiting_for_llm=True)
        self._log_of_entry[entry_id] = log
        self._unclaimed[entry_id] = log
        return True

    def finish_exchange(self, pending: PendingExchange, out: dict, notice: str | None) -> bool:
        """Fill in a sent message with `mem.companion.chat`'s result (reply, or a calm notice).

        False when the page was redrawn meanwhile (another day shown): nothing is drawn.
        """
        if pending.generation != self.generation:
            return False
        if not shiboken6.isValid(pending.user) or pending.user not in self.bubbles:
            # The entry left the page while the answer was coming (moved, or to the trash).
            if pending.thinking is not None and shiboken6.isValid(pending.thinking):
                self._remove(pending.thinking)
            return True
        if not pending.saved:
            pending.user.confirm(out.get("entry_id"))
        anchor: QWidget = pending.user
        if out.get("reply"):
            pending.thinking.set_text(out["reply"])
            pending.thinking.confirm(out.get("reply_entry_id"), pending.when)
            pending.user.has_reply = True
            anchor = pending.thinking
        else:
            pending.user.has_reply = False
            self._remove(pending.thinking)
        job_id = out.get("job_id")
        early = self._early_jobs.pop(job_id, None) if job_id is not None else None
        if notice and not (early and early.get("state") == "done"):
            line = NoticeLine(notice)
            self._insert_after(anchor, line)
            anchor = line
            if job_id is not None:
                self.notices[job_id] = line
        if job_id is not None:
            log = self._new_log(job_id, after=anchor)
            for entry_id in (out.get("entry_id"), out.get("reply_entry_id")):
                if entry_id is not None:
                    self._log_of_entry[entry_id] = log
            if early is not None:
                log.show_result(early)
        self._stick_to_bottom = self._stick_to_bottom or pending.when is None
        return True

    def fail_exchange(self, pending: PendingExchange, message: str) -> bool:
        if pending.generation != self.generation:
            return False
        if not shiboken6.isValid(pending.user) or pending.user not in self.bubbles:
            return True
        if pending.thinking is not None:
            self._remove(pending.thinking)
        pending.user.has_reply = False
        pending.user.set_pending(False)
        pending.user.time_label.setText("")
        self._insert_after(pending.user, NoticeLine(message))
        return True

    # -- later changes to an entry -----------------------------------------------------------

    def begin_ask(self, bubble: MessageBubble) -> PendingExchange:
        """The companion is asked, later, about a saved entry: its answer comes right under it."""
        thinking = self._add_bubble("assistant", self._thinking_text(), None, None, at=self._index_of(bubble) + 1)
        thinking.time_label.setText("")
        bubble.has_reply = True  # one question at a time
        QTimer.singleShot(0, lambda: _ensure_visible(self, thinking))
        return PendingExchange(bubble, thinking, self.generation)

    def finish_ask(self, pending: PendingExchange, out: dict, notice: str | None) -> bool:
        if pending.generation != self.generation or not shiboken6.isValid(pending.user):
            return False
        if out.get("reply"):
            pending.thinking.set_text(out["reply"])
            pending.thinking.confirm(out.get("reply_entry_id"))
        else:
            pending.user.has_reply = False
            self._remove(pending.thinking)
            if notice:
                self._insert_after(pending.user, NoticeLine(notice))
        return True

    def show_rereading(self, bubble: MessageBubble, job_id: int) -> None:
        """After an edit or a move: the entry's memory log says its memories are read again."""
        log = self._log_of_entry.get(bubble.entry_id)
        if log is None or not shiboken6.isValid(log):
            log = self._new_log(job_id, after=bubble)
            self._log_of_entry[bubble.entry_id] = log
        self.ops_logs[job_id] = log
        log.job_id = job_id
        log.show_rereading()
        early = self._early_jobs.pop(job_id, None)
        if early is not None:
            log.show_result(early)

    def neighbour_of(self, bubble: MessageBubble) -> MessageBubble | None:
        """The entry or reply drawn after `bubble` (or, for the last one, before it): where the keyboard
        goes when `bubble` leaves the page."""
        shown = sorted((b for b in self.bubbles if b is not bubble and shiboken6.isValid(b) and not b.isHidden()),
                       key=self._index_of)
        at = self._index_of(bubble)
        after = [b for b in shown if self._index_of(b) > at]
        return after[0] if after else (shown[-1] if shown else None)

    def bubble_for(self, entry_id: int) -> MessageBubble | None:
        return next((b for b in self.bubbles if b.entry_id == entry_id), None)

    def remove_entry(self, bubble: MessageBubble) -> None:
        """The entry left this day (trash, or moved to another date)."""
        if not shiboken6.isValid(bubble) or bubble not in self.bubbles:
            return
        log = self._log_of_entry.pop(bubble.entry_id, None)
        self._remove(bubble)
        # The log told what the user's words became; with none of them left here, it goes too.
        if log is not None and shiboken6.isValid(log) and not any(
                b.role == "user" and self._log_of_entry.get(b.entry_id) is log for b in self.bubbles):
            for job_id in [j for j, other in self.ops_logs.items() if other is log]:
                del self.ops_logs[job_id]
            self._remove(log)

    # -- jobs ----------------------------------------------------------------------------------

    def show_job(self, job: dict) -> None:
        if job.get("kind") == "graph":  # the people and places, read after the entry's memories
            result = job.get("result") or {}
            log = self.ops_logs.get(result.get("after_job") or (job.get("payload") or {}).get("after"))
            if job.get("state") in ("done", "failed") and log is not None and shiboken6.isValid(log):
                log.add_relations(result.get("relations") or [])  # failed: nothing more is looked for
            return  # waiting for the server: still looking; the entry's memories stand
        log = self.ops_logs.get(job.get("id"))
        if log is None and job.get("state") == "done":
            log = self._claim(job)
        if log is not None and shiboken6.isValid(log):
            log.show_result(job)
        else:
            # The writer can finish a job before the chat answer that queued it is drawn.
            self._early_jobs[job.get("id")] = job
            while len(self._early_jobs) > EARLY_JOBS_KEPT:
                self._early_jobs.pop(next(iter(self._early_jobs)))
        if job.get("state") == "done":
            notice = self.notices.pop(job.get("id"), None)
            if notice is not None and shiboken6.isValid(notice):
                self._remove(notice)

    def _claim(self, job: dict) -> MemoryOpsLog | None:
        """A saved entry's log is claimed by the first finished job that names the entry."""
        for entry_id in ((job.get("result") or {}).get("changes") or {}).get("entries") or []:
            log = self._unclaimed.pop(entry_id, None)
            if log is not None and shiboken6.isValid(log):
                log.job_id = job["id"]
                self.ops_logs[job["id"]] = log
                return log
        return None

    def set_llm_missing(self, missing: bool) -> None:
        self.llm_missing = missing
        for log in set(self.ops_logs.values()) | set(self._unclaimed.values()):
            if shiboken6.isValid(log):
                log.set_quiet(missing)

    def mark_waiting_for_llm(self) -> None:
        for log in set(self.ops_logs.values()) | set(self._unclaimed.values()):
            if shiboken6.isValid(log) and log.state == "pending":
                log.show_pending(waiting_for_llm=True)

    # -- navigation -----------------------------------------------------------------------

    def highlight_entry(self, entry_id: int) -> bool:
        for bubble in self.bubbles:
            if bubble.entry_id == entry_id:
                self._stick_to_bottom = False
                self.ensureWidgetVisible(bubble, 0, 80)
                bubble.set_highlighted(True)
                QTimer.singleShot(2500, lambda b=bubble: _unhighlight(b))
                return True
        return False

    # -- internals ------------------------------------------------------------------------

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        width = self._bubble_width()
        for bubble in self.bubbles:
            bubble.fit_width(width)

    def _add_bubble(self, role: str, text: str, when: datetime | None, entry_id: int | None,
                    entry: dict | None = None, at: int | None = None) -> MessageBubble:
        bubble = MessageBubble(role, text, when, entry_id, entry=entry)
        bubble.fit_width(self._bubble_width())
        bubble.action_requested.connect(lambda name, b=bubble: self.entry_action.emit(name, b))
        bubble.edit_submitted.connect(lambda new, b=bubble: self.entry_edited.emit(b, new))
        self.bubbles.append(bubble)
        row = _row(bubble, role)
        if at is None or at >= self._items.count():
            self._items.addLayout(row)
        else:
            self._items.insertLayout(at, row)
        self.empty_hint.hide()
        return bubble

    def _place_for(self, when: datetime | None) -> int | None:
        """Where a back-dated entry goes: before the first entry written after it (None: at the end)."""
        if when is None:
            return None
        for bubble in self.bubbles:
            if bubble.role == "user" and bubble.when is not None and bubble.entry_id is not None \
                    and bubble.when > when:
                return self._index_of(bubble)
        return None

    def _bubble_width(self) -> int:
        return int(max(self.viewport().width(), 480) * BUBBLE_WIDTH_RATIO)

    def _add_ops_log(self, job_ids: list[int]) -> MemoryOpsLog:
        log = MemoryOpsLog(job_ids[0])
        log.quiet_while_waiting = self.llm_missing
        log.address, log.seconds = self.llm_place
        log.retry_requested.connect(self.retry_job)
        for job_id in job_ids:
            self.ops_logs[job_id] = log
        self._items.addWidget(log)
        return log

    def _new_log(self, job_id: int | None, after: QWidget) -> MemoryOpsLog:
        log = MemoryOpsLog(job_id)
        log.quiet_while_waiting = self.llm_missing
        log.address, log.seconds = self.llm_place
        log.retry_requested.connect(self.retry_job)
        if job_id is not None:
            self.ops_logs[job_id] = log
        self._insert_after(after, log)
        return log

    def _index_of(self, widget: QWidget) -> int:
        for i in range(self._items.count()):
            item = self._items.itemAt(i)
            if item.widget() is widget or (item.layout() and _row_widget(item.layout()) is widget):
                return i
        return self._items.count() - 1

    def _insert_after(self, anchor: QWidget | None, widget: QWidget) -> None:
        index = self._index_of(anchor) + 1 if anchor is not None else self._items.count()
        self._items.insertWidget(index, widget)

    def _remove(self, widget: QWidget) -> None:
        index = self._index_of(widget)
        item = self._items.takeAt(index)
        if item is not None and item.layout():
            _delete_layout(item.layout())
        if widget in self.bubbles:
            self.bubbles.remove(widget)
        widget.hide()
        widget.deleteLater()

    def place(self) -> int | None:
        """Where the reader is: the scroll position, None at the bottom (which follows what is added)."""
        bar = self.verticalScrollBar()
        return None if bar.value() >= bar.maximum() - 4 else bar.value()

    def keep_place(self, place: int | None) -> None:
        """After a redraw, the reader where `place()` said: held while the new page settles its height
        (the range grows as bubbles are laid out), then let go."""
        if place is None:
            self._stick_to_bottom = True
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
            return
        self._stick_to_bottom = False
        self._held = place
        self.verticalScrollBar().setValue(place)
        QTimer.singleShot(HOLD_MS, self._let_go)

    def _let_go(self) -> None:
        self._held = None

    def show_top(self) -> None:
        """Scroll to the top (what is above the day's first entry: the reflection cards) until a new
        message is written."""
        self._stick_to_bottom = False
        self.verticalScrollBar().setValue(0)

    def _follow_bottom(self, _min: int, maximum: int) -> None:
        if self._held is not None:
            self.verticalScrollBar().setValue(min(self._held, maximum))
        elif self._stick_to_bottom:
            self.verticalScrollBar().setValue(maximum)


def _row(bubble: MessageBubble, role: str) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    if role == "user":
        row.addStretch(1)
        row.addWidget(bubble)
    else:
        row.addWidget(bubble)
        row.addStretch(1)
    return row


def _row_widget(layout) -> QWidget | None:
    for i in range(layout.count()):
        widget = layout.itemAt(i).widget()
        if widget is not None:
            return widget
    return None


def _delete_layout(layout) -> None:
    while layout.count():
        child = layout.takeAt(0)
        if child.widget():
            child.widget().hide()
            child.widget().deleteLater()


def _unhighlight(bubble: MessageBubble) -> None:
    if shiboken6.isValid(bubble):
        bubble.set_highlighted(False)


def _ensure_visible(view: ChatView, widget: QWidget) -> None:
    if shiboken6.isValid(widget):
        view.ensureWidgetVisible(widget, 0, 80)
