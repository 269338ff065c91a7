"""`ReminderTray`: the opt-in daily reminder to write, and memoir's place in the system tray.

While the app runs, a light timer looks once a minute whether the reminder is due (at the time
chosen in Settings, once a day, not when today is already written: viewmodels/reminder.py) and
shows a tray notification; where the system has no tray, the status bar says it instead. With
"start in the tray" the window opens hidden, and the tray's menu opens it or quits."""

from __future__ import annotations

from datetime import date, datetime

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from memoir_desktop.ui.shared.qt_compat import listen
from memoir_desktop.ui.shared.resources import icon
from memoir_desktop.viewmodels.reminder import reminder_due

CHECK_MS = 60_000


class ReminderTray(QObject):
    open_requested = Signal()
    write_requested = Signal()
    quit_requested = Signal()
    reminded = Signal(str)  # the reminder's words (also when there is no tray to show them)

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.last_reminded: date | None = None
        self.last_message: str | None = None
        self.tray: QSystemTrayIcon | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(lambda: self.check())
        listen(backend.settings_changed, self, lambda _s: self.apply_settings())

    @property
    def available(self) -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    def apply_settings(self) -> None:
        st = self.backend.settings
        wanted = st.reminder_enabled or st.start_in_tray
        if wanted and self.available and self.tray is None:
            self.tray = QSystemTrayIcon(icon("memoir"), self)
            self.tray.setToolTip("memoir")
            menu = QMenu()
            menu.addAction(self.tr("Open memoir"), self.open_requested.emit)
            menu.addAction(self.tr("Write today's entry"), self.write_requested.emit)
            menu.addSeparator()
            menu.addAction(self.tr("Quit"), self.quit_requested.emit)
            self._menu = menu
            self.tray.setContextMenu(menu)
            self.tray.activated.connect(lambda reason: self.open_requested.emit()
                                        if reason == QSystemTrayIcon.Trigger else None)
            self.tray.messageClicked.connect(self.write_requested.emit)
        if self.tray is not None:
            self.tray.setVisible(wanted)
        if st.reminder_enabled:
            self.timer.start()
        else:
            self.timer.stop()

    def check(self, now: datetime | None = None) -> None:
        """Remind if due (`now` for tests)."""
        st = self.backend.settings
        now = now or datetime.now()
        if not st.reminder_enabled or not reminder_due(now, st.reminder_time, self.last_reminded, False):
            return

        def days(written: list[date]) -> None:
            if not reminder_due(now, st.reminder_time, self.last_reminded, now.date() in written):
                return
            self.last_reminded = now.date()
            self.last_message = self.tr("How was your day? A few lines are enough.")
            if self.tray is not None and self.tray.isVisible():
                self.tray.showMessage(self.tr("Time to write"), self.last_message, icon("memoir"), 15_000)
            self.reminded.emit(self.last_message)

        self.backend.read(lambda m: m.journal.days(), days)
