"""`ChatView`: one day's conversation as bubbles, with the memory log under each exchange."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from memoir_desktop.ui.formatting import long_date, parse
from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog
from memoir_desktop.ui.journal.message_bubble import MessageBubble, NoticeLine
from memoir_desktop.viewmodels.day import DayView

BUBBLE_WIDTH_RATIO = 0.72
EARLY_JOBS_KEPT = 50


class PendingExchange:
    """Handle for a message sent but not yet answered (its bubbles, until the reply lands)."""

    def __init__(self, user: MessageBubble, thinking: MessageBubble, generation: int):
        self.user, self.thinking = user, thinking
        self.generation = generation  # the ChatView page it was drawn on


class ChatView(QScrollArea):
    retry_job = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
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
        self._items = QVBoxLayout()
        self._items.setSpacing(8)
        self._layout.addLayout(self._items)
        self._layout.addStretch(1)
        self.setWidget(self.canvas)
        self.ops_logs: dict[int, MemoryOpsLog] = {}
        self.bubbles: list[MessageBubble] = []
        self.day = None
        self._early_jobs: dict[int, dict] = {}
        self.generation = 0  # bumped whenever the page is redrawn (pending handles go stale)
        # Keep the newest message in view when content grows.
        self.verticalScrollBar().rangeChanged.connect(self._follow_bottom)
        self._stick_to_bottom = True

    # -- whole day ----------------------------------------------------------------------

    def clear(self) -> None:
        self.generation += 1
        while self._items.count():
            item = self._items.takeAt(0)
            if item.layout():
                _delete_layout(item.layout())
            elif item.widget():
                item.widget().deleteLater()
        self.ops_logs.clear()
        self.bubbles.clear()

    def show_day(self, view: DayView) -> None:
        self.clear()
        self.day = view.day
        self.header.setText(long_date(view.day))
        for exchange in view.exchanges:
            for entry in exchange.entries:
                self._add_bubble(entry["role"], entry["content"], parse(entry["created_at"]), entry["id"])
            job = exchange.job
            if job is not None:
                log = self._add_ops_log(job.get("ids") or [job["id"]])
                log.show_result(job)
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

    def begin_exchange(self, text: str) -> PendingExchange:
        user = self._add_bubble("user", text, None, None)
        user.set_pending(True)
        thinking = self._add_bubble("assistant", self.tr("_thinking…_"), None, None)
        thinking.time_label.setText("")
        self._stick_to_bottom = True
        return PendingExchange(user, thinking, self.generation)

    def finish_exchange(self, pending: PendingExchange, out: dict, notice: str | None) -> bool:
        """Fill in a sent message with `Memoir.chat`'s result (reply, or a calm notice).

        False when the page was redrawn meanwhile (another day shown): nothing is drawn.
        """
        if pending.generation != self.generation:
            return False
        pending.user.confirm(out.get("entry_id"))
        if out.get("reply"):
            pending.thinking.set_text(out["reply"])
            pending.thinking.entry_id = out.get("reply_entry_id")
            pending.thinking.confirm(out.get("reply_entry_id"))
        else:
            self._remove(pending.thinking)
            if notice:
                self._insert_after(pending.user, NoticeLine(notice))
        if out.get("job_id") is not None:
            anchor = pending.thinking if out.get("reply") else self._last_widget()
            log = MemoryOpsLog(out["job_id"])
            log.retry_requested.connect(self.retry_job)
            self.ops_logs[out["job_id"]] = log
            self._insert_after(anchor, log)
            if out["job_id"] in self._early_jobs:
                log.show_result(self._early_jobs.pop(out["job_id"]))
        self._stick_to_bottom = True
        return True

    def fail_exchange(self, pending: PendingExchange, message: str) -> bool:
        if pending.generation != self.generation:
            return False
        self._remove(pending.thinking)
        pending.user.set_pending(False)
        pending.user.time_label.setText("")
        self._insert_after(pending.user, NoticeLine(message))
        return True

    def show_job(self, job: dict) -> None:
        log = self.ops_logs.get(job.get("id"))
        if log is not None:
            log.show_result(job)
        else:
            # The writer can finish a job before the chat answer that queued it is drawn.
            self._early_jobs[job.get("id")] = job
            while len(self._early_jobs) > EARLY_JOBS_KEPT:
                self._early_jobs.pop(next(iter(self._early_jobs)))

    def mark_waiting_for_llm(self) -> None:
        for log in self.ops_logs.values():
            if log.state == "pending":
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

    def _add_bubble(self, role: str, text: str, when: datetime | None, entry_id: int | None) -> MessageBubble:
        bubble = MessageBubble(role, text, when, entry_id)
        bubble.fit_width(self._bubble_width())
        self.bubbles.append(bubble)
        self._items.addLayout(_row(bubble, role))
        return bubble

    def _bubble_width(self) -> int:
        return int(max(self.viewport().width(), 480) * BUBBLE_WIDTH_RATIO)

    def _add_ops_log(self, job_ids: list[int]) -> MemoryOpsLog:
        log = MemoryOpsLog(job_ids[0])
        log.retry_requested.connect(self.retry_job)
        for job_id in job_ids:
            self.ops_logs[job_id] = log
        self._items.addWidget(log)
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

    def _last_widget(self) -> QWidget | None:
        if not self._items.count():
            return None
        item = self._items.itemAt(self._items.count() - 1)
        return item.widget() or _row_widget(item.layout())

    def _remove(self, widget: QWidget) -> None:
        index = self._index_of(widget)
        item = self._items.takeAt(index)
        if item is not None and item.layout():
            _delete_layout(item.layout())
        if widget in self.bubbles:
            self.bubbles.remove(widget)
        widget.deleteLater()

    def _follow_bottom(self, _min: int, maximum: int) -> None:
        if self._stick_to_bottom:
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
            child.widget().deleteLater()


def _unhighlight(bubble: MessageBubble) -> None:
    import shiboken6

    if shiboken6.isValid(bubble):
        bubble.set_highlighted(False)
