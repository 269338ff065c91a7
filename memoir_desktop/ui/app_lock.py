"""The app lock: a screen that covers the window after idle minutes or on request, and asks the
passphrase to uncover it. Checking a passphrase runs Argon2id (a fraction of a second on purpose),
so the lock screen asks the backend off the UI thread and waits for its answer by a callback.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget


class LockScreen(QWidget):
    """Covers the window while the journal is locked; nothing of the journal is visible behind it."""

    unlock_requested = Signal(str)

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("lockScreen")
        self.setAutoFillBackground(True)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        title = QLabel(self.tr("memoir is locked"))
        title.setAlignment(Qt.AlignCenter)
        title.setObjectName("dayTitle")
        outer.addWidget(title)
        row = QHBoxLayout()
        row.addStretch(1)
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.Password)
        self.field.setPlaceholderText(self.tr("Passphrase"))
        self.field.setAccessibleName(self.tr("Passphrase"))
        self.field.setMinimumWidth(260)
        self.field.returnPressed.connect(self._unlock)
        row.addWidget(self.field)
        self.button = QPushButton(self.tr("Unlock"))
        self.button.clicked.connect(self._unlock)
        row.addWidget(self.button)
        row.addStretch(1)
        outer.addLayout(row)
        self.error = QLabel()
        self.error.setAlignment(Qt.AlignCenter)
        self.error.setObjectName("opDelete")
        outer.addWidget(self.error)
        outer.addStretch(2)
        self.hide()

    def _unlock(self) -> None:
        text = self.field.text()
        if text:
            self.button.setEnabled(False)
            self.error.setText(self.tr("Checking…"))
            self.unlock_requested.emit(text)

    def refused(self) -> None:
        self.button.setEnabled(True)
        self.field.selectAll()
        self.error.setText(self.tr("That passphrase does not open this journal."))

    def cover(self) -> None:
        self.field.clear()
        self.error.clear()
        self.button.setEnabled(True)
        self.setGeometry(self.parentWidget().rect())
        self.show()
        self.raise_()
        self.field.setFocus()


class AppLock(QObject):
    """Locks `window` after `minutes` without input (0 = never) and on `lock()`; unlocking asks
    `check(secret, on_done(bool))`. While locked the window's central widget and menus are hidden."""

    locked_changed = Signal(bool)
    _INPUT = {QEvent.KeyPress, QEvent.MouseButtonPress, QEvent.MouseMove, QEvent.Wheel, QEvent.TouchBegin}

    def __init__(self, window, check: Callable[[str, Callable[[bool], None]], None], minutes: int = 0):
        super().__init__(window)
        self.window = window
        self.check = check
        self.locked = False
        self.screen = LockScreen(window)
        self.screen.unlock_requested.connect(self._try)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.lock)
        self.set_minutes(minutes)
        window.installEventFilter(self)
        app = QGuiApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def set_minutes(self, minutes: int) -> None:
        self.minutes = max(0, int(minutes))
        if self.minutes and not self.locked:
            self.timer.start(self.minutes * 60_000)
        else:
            self.timer.stop()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Resize and self.locked:
            self.screen.setGeometry(self.window.rect())
        elif event.type() in self._INPUT and not self.locked and self.minutes:
            self.timer.start(self.minutes * 60_000)
        return False

    def lock(self) -> None:
        if self.locked:
            return
        self.locked = True
        self.timer.stop()
        central = self.window.centralWidget()
        if central is not None:
            central.hide()
        self.window.menuBar().setEnabled(False)
        self.screen.cover()
        self.locked_changed.emit(True)

    def _try(self, secret: str) -> None:
        self.check(secret, self._checked)

    def _checked(self, ok: bool) -> None:
        if not ok:
            self.screen.refused()
            return
        self.locked = False
        self.screen.hide()
        central = self.window.centralWidget()
        if central is not None:
            central.show()
        self.window.menuBar().setEnabled(True)
        self.set_minutes(self.minutes)
        self.locked_changed.emit(False)
