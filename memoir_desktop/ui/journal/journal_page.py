"""`JournalPage`: past days on the left, the day's conversation and the composer on the right."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from memoir_desktop.core.inputs import InvalidInput
from memoir_desktop.ui.journal.chat_view import ChatView, PendingExchange
from memoir_desktop.ui.journal.composer import Composer
from memoir_desktop.ui.journal.day_navigator import DayNavigator
from memoir_desktop.ui.journal.welcome_panel import NoLLMBanner, WelcomePanel
from memoir_desktop.viewmodels.day import DayView


class JournalPage(QWidget):
    open_settings = Signal()
    exchange_finished = Signal(dict)  # Memoir.chat's result, once shown

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.day: date = date.today()
        self._generation = 0
        self._after_load: list[Callable[[], None]] = []
        self._pending: list[PendingExchange] = []
        self._llm_reachable: bool | None = None
        self._empty = False  # the day shown has no entry yet (today: show the welcome panel)

        self.navigator = DayNavigator()
        self.navigator.day_selected.connect(self.show_day)
        self.chat = ChatView()
        self.chat.retry_job.connect(self.backend.retry_job)
        self.composer = Composer()
        self.composer.send.connect(self.send)

        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.chat, 1)
        column.addWidget(self.composer)
        self.splitter = QSplitter(Qt.Horizontal)
        self.splitter.setObjectName("journalSplitter")
        self.splitter.addWidget(self.navigator)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([260, 900])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

        backend.job_finished.connect(self.chat.show_job)
        backend.changed.connect(lambda changes: self.refresh_days() if changes.entries else None)
        backend.llm_reachable_changed.connect(self._on_llm_state)
        backend.settings_changed.connect(lambda _s: self.refresh_banner())

    # -- days -----------------------------------------------------------------------------

    def refresh_days(self) -> None:
        self.backend.days(self.navigator.set_days)

    def show_today(self) -> None:
        self.show_day(date.today())
        self.composer.focus()

    def show_day(self, day: date, then: Callable[[], None] | None = None) -> None:
        self.day = day
        self.navigator.select(day)
        self._generation += 1
        generation = self._generation
        if then is not None:
            self._after_load.append(then)
        if day != date.today():
            self.composer.set_placeholder(self.tr("Viewing a past day. What you write now is added to today."))
        else:
            self.composer.set_placeholder(
                self.tr("How was your day? (Enter to send, Shift+Enter for a new line)"))
        self.backend.load_day(day, lambda view: self._day_loaded(generation, view))

    def show_entry(self, day: date, entry_id: int) -> None:
        self.show_day(day, then=lambda: self.chat.highlight_entry(entry_id))

    def _day_loaded(self, generation: int, view: DayView) -> None:
        if generation != self._generation:
            return  # the user moved on to another day meanwhile
        self.chat.show_day(view)
        self._empty = view.empty
        self.refresh_banner()
        callbacks, self._after_load = self._after_load, []
        for callback in callbacks:
            callback()

    def refresh_banner(self) -> None:
        """Welcome panel on an empty today, a slim banner while no LLM is configured."""
        configured = self.backend.llm_configured
        if self._empty and self.day == date.today():
            panel = WelcomePanel(configured)
            panel.open_settings.connect(self.open_settings)
            self.chat.set_top_widget(panel)
        elif not configured:
            banner = NoLLMBanner()
            banner.open_settings.connect(self.open_settings)
            self.chat.set_top_widget(banner)
        else:
            self.chat.set_top_widget(None)

    # -- sending --------------------------------------------------------------------------

    def send(self, text: str) -> None:
        if self.day != date.today():
            # A message always belongs to today: show today first, then add it there.
            self.show_day(date.today(), then=lambda: self.send(text))
            return
        if self._empty:
            self._empty = False
            self.refresh_banner()
        pending = self.chat.begin_exchange(text)
        self._pending.append(pending)
        self.backend.chat(text, lambda out: self._answered(pending, out), lambda exc: self._failed(pending, exc))

    def _answered(self, pending: PendingExchange, out: dict) -> None:
        if pending in self._pending:
            self._pending.remove(pending)
        notice = None
        error = out.get("error") or ""
        unusable = out.get("error_kind") == "bad_reply"
        if unusable:
            notice = self.tr("The AI's answer could not be used. Your entry is saved, and will still "
                             "become memories.")
        elif error:
            notice = self.tr("Not connected to an LLM. Your entry is saved, and will become memories "
                             "once it connects.")
        if not self.chat.finish_exchange(pending, out, notice):
            self._redraw_if_today()
            return
        if error and not unusable and out.get("job_id") in self.chat.ops_logs:
            self.chat.ops_logs[out["job_id"]].show_pending(waiting_for_llm=True)
        self.exchange_finished.emit(out)

    def _failed(self, pending: PendingExchange, exc: BaseException) -> None:
        if pending in self._pending:
            self._pending.remove(pending)
        if isinstance(exc, InvalidInput):
            message = str(exc)
        else:
            message = self.tr("Could not save this entry: {error}").format(error=exc)
        if not self.chat.fail_exchange(pending, message):
            self._redraw_if_today()

    def _redraw_if_today(self) -> None:
        """An answer arrived for a page no longer shown; today's page may need it."""
        if self.day == date.today():
            self.show_day(self.day)

    def _on_llm_state(self, reachable) -> None:
        self._llm_reachable = reachable
        if reachable is False:
            self.chat.mark_waiting_for_llm()
        self.refresh_banner()
