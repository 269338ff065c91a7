"""The app lock: a screen that covers the window after idle minutes or on request, and asks the
passphrase to uncover it. Checking a passphrase runs Argon2id (a fraction of a second on purpose),
so the lock screen asks the backend off the UI thread and waits for its answer by a callback.

Every other window of the app is concealed too (`OtherWindows`), and so is one that opens during
the lock. Two Qt facts shape how:
- `QDialog.hide()` ends a dialog's own `exec()` loop (it returns Rejected and the caller drops what
  was typed), and nothing public tells whether a dialog is in `exec()`. So a modal dialog is never
  hidden: it is kept open, disabled, under a cover, see-through and shaped to one pixel (the cover
  guarantees no journal text is drawn; opacity and the shape make the window itself vanish, with a
  compositor and without one). A window that is not a modal dialog is simply hidden.
- A modal window blocks input to the windows below it, the lock screen's passphrase field too. Qt
  gives input to the newest modal window, so while such a dialog is open the main window is shown
  again as application-modal (a hide and a show: Qt reads a window's modality when it is shown).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QRegion
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)


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


class _Cover(QWidget):
    """Drawn over a dialog kept open while locked: the dialog's own widgets stay, unseen, under it."""

    def __init__(self, dialog: QWidget):
        super().__init__(dialog)
        self.setObjectName("lockCover")
        self.setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        label = QLabel(self.tr("memoir is locked"))
        label.setAlignment(Qt.AlignCenter)
        layout.addWidget(label)
        self.setGeometry(dialog.rect())
        self.show()
        self.raise_()


@dataclass
class _Concealed:
    widget: QWidget
    pos: QPoint
    cover: _Cover | None = None  # set while the window is kept open under a cover
    title: str = ""
    opacity: float = 1.0
    enabled: bool = True
    mask: QRegion | None = None
    focus: QWidget | None = None
    closed: bool = False  # closed by the app while hidden: not shown again


class OtherWindows(QObject):
    """Conceals every visible top-level window but `keep` (the locked main window), and those that
    open meanwhile, then gives them back as they were. Menus and tooltips are not windows to give
    back: open ones are closed at the lock (a menu grabs the keyboard), and the lock screen's own
    may open."""

    _TRANSIENT = (Qt.Popup, Qt.ToolTip)

    def __init__(self, keep: QWidget, parent: QObject | None = None):
        super().__init__(parent)
        self.keep = keep
        self.concealed: dict[QWidget, _Concealed] = {}
        self._busy = False  # our own hide / title change, not the app's

    def concerns(self, widget) -> bool:
        return (shiboken6.isValid(widget) and widget is not self.keep and widget.isWindow()
                and widget.windowType() not in self._TRANSIENT)

    def conceal_all(self) -> None:
        while (popup := QApplication.activePopupWidget()) is not None:
            popup.close()
            if QApplication.activePopupWidget() is popup:  # a popup that refuses to close
                popup.hide()
        QToolTip.hideText()
        for widget in QApplication.topLevelWidgets():
            if widget.isVisible() and self.concerns(widget):
                self.conceal(widget)

    def conceal(self, widget: QWidget, showing: bool = False) -> None:
        """`showing`: called from the window's Show event, before it is on screen: it is covered at
        once (its first frame shows nothing) and, if it may be hidden, hidden right after."""
        known = self.concealed.get(widget)
        if known is not None and known.cover is not None:
            return
        record = known or _Concealed(widget, widget.pos())
        self.concealed[widget] = record
        if isinstance(widget, QDialog) and widget.isModal():
            self._cover(record)
        elif showing:
            self._cover(record)
            QTimer.singleShot(0, lambda: self._hide_instead(widget))
        else:
            self._hide(widget)

    def _hide(self, widget: QWidget) -> None:
        self._busy = True
        try:
            widget.hide()
        finally:
            self._busy = False

    def _hide_instead(self, widget: QWidget) -> None:
        record = self.concealed.get(widget)
        if record is None or record.cover is None or not shiboken6.isValid(widget):
            return
        self._hide(widget)
        self._uncover(record)

    def _cover(self, record: _Concealed) -> None:
        widget = record.widget
        record.title, record.opacity, record.enabled = widget.windowTitle(), widget.windowOpacity(), widget.isEnabled()
        record.mask, record.focus = widget.mask(), widget.focusWidget()
        record.cover = _Cover(widget)
        self._busy = True
        try:
            widget.setEnabled(False)  # no typing or clicking into what cannot be seen
            widget.setWindowOpacity(0.0)
            widget.setMask(QRegion(0, 0, 1, 1))  # where no compositor draws opacity
            widget.setWindowTitle("memoir")  # a title may quote the journal
        finally:
            self._busy = False

    def _uncover(self, record: _Concealed) -> None:
        widget, cover = record.widget, record.cover
        record.cover = None
        if shiboken6.isValid(cover):
            cover.hide()
            cover.deleteLater()
        self._busy = True
        try:
            widget.setWindowTitle(record.title)
            widget.setWindowOpacity(record.opacity)
            if record.mask is None or record.mask.isEmpty():
                widget.clearMask()
            else:
                widget.setMask(record.mask)
            widget.setEnabled(record.enabled)
        finally:
            self._busy = False
        if record.focus is not None and shiboken6.isValid(record.focus):
            record.focus.setFocus()

    def restore_all(self) -> None:
        concealed, self.concealed = self.concealed, {}
        for widget, record in concealed.items():
            if not shiboken6.isValid(widget):
                continue
            if record.cover is not None:
                self._uncover(record)
            elif not record.closed:
                widget.show()
                if widget.pos() != record.pos:
                    widget.move(record.pos)
        top = QApplication.activeModalWidget()
        if top is not None:  # the dialog that blocks the main window comes back on top, with the keyboard
            top.raise_()
            top.activateWindow()

    def modal_open(self) -> bool:
        """Whether a window of the app is modal now (it would block the lock screen's field)."""
        top = QGuiApplication.modalWindow()
        return top is not None and top is not self.keep.windowHandle()

    def event(self, obj, event) -> bool:
        """While locked, from the lock's application-wide event filter. True when a modal window
        just opened (the main window must take the input back)."""
        kind = event.type()
        if kind == QEvent.Show:
            if obj.isWidgetType() and self.concerns(obj):
                self.conceal(obj, showing=True)
                return isinstance(obj, QDialog) and obj.isModal()
            return False
        record = self.concealed.get(obj) if obj.isWidgetType() else None
        if record is None or self._busy:
            return False
        if kind == QEvent.Hide and record.cover is not None and not event.spontaneous():
            # The app ended this dialog itself (done(), accept…): it is no longer ours to give back.
            self._uncover(record)
            del self.concealed[obj]
        elif kind == QEvent.Close and record.cover is None:
            record.closed = True
        elif record.cover is None:
            pass
        elif kind == QEvent.Resize:
            record.cover.setGeometry(obj.rect())
        elif kind == QEvent.ChildAdded:  # a widget added later would be drawn over the cover
            QTimer.singleShot(0, lambda: self._raise_cover(record))
        elif kind == QEvent.WindowTitleChange:
            record.title = obj.windowTitle()
            QTimer.singleShot(0, lambda: self._retitle(record))
        elif kind == QEvent.EnabledChange:  # the app's own choice, applied at the unlock
            record.enabled = obj.isEnabled()
            QTimer.singleShot(0, lambda: self._disable(record))
        return False

    @staticmethod
    def _raise_cover(record: _Concealed) -> None:
        if record.cover is not None and shiboken6.isValid(record.cover):
            record.cover.raise_()

    def _disable(self, record: _Concealed) -> None:
        if record.cover is not None and shiboken6.isValid(record.widget):
            self._busy = True
            try:
                record.widget.setEnabled(False)
            finally:
                self._busy = False

    def _retitle(self, record: _Concealed) -> None:
        if record.cover is not None and shiboken6.isValid(record.widget):
            self._busy = True
            try:
                record.widget.setWindowTitle("memoir")
            finally:
                self._busy = False


class AppLock(QObject):
    """Locks `window` after `minutes` without input (0 = never) and on `lock()`; unlocking asks
    `check(secret, on_done(bool))`. While locked the window's central widget and menus are hidden,
    and so is every other window of the app (`OtherWindows`). The window's lock shortcut works from
    any window of the app (a window-modal dialog blocks the window's own shortcuts)."""

    locked_changed = Signal(bool)
    _INPUT = {QEvent.KeyPress, QEvent.MouseButtonPress, QEvent.MouseMove, QEvent.Wheel, QEvent.TouchBegin}
    _WHILE_LOCKED = {QEvent.Show, QEvent.Hide, QEvent.Close, QEvent.Resize, QEvent.ChildAdded,
                     QEvent.WindowTitleChange, QEvent.EnabledChange}

    def __init__(self, window, check: Callable[[str, Callable[[bool], None]], None], minutes: int = 0):
        super().__init__(window)
        self.window = window
        self.check = check
        self.locked = False
        self.released = False  # the window closed: its journal is gone, nothing is locked any more
        self.screen = LockScreen(window)
        self.screen.unlock_requested.connect(self._try)
        self.others = OtherWindows(window, self)
        self._window_modal = False  # the main window made modal to keep the passphrase field usable
        self._focus: QWidget | None = None  # where the keyboard was in the window when it locked
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.lock)
        self.set_minutes(minutes)
        window.installEventFilter(self)
        app = QGuiApplication.instance()
        if app is not None:
            app.installEventFilter(self)
        window.destroyed.connect(self.release)

    def release(self, *_args) -> None:
        """The window closed for good (quit, a restore, a language switch): the lock lets go of the
        app, or it would go on hiding the next journal's windows and taking their events."""
        if self.released:
            return
        self.released = True
        self.locked = False
        self.timer.stop()
        self.others.concealed.clear()
        app = QGuiApplication.instance()
        if app is not None:
            app.removeEventFilter(self)
        if shiboken6.isValid(self.window):
            self.window.removeEventFilter(self)

    def set_minutes(self, minutes: int) -> None:
        self.minutes = max(0, int(minutes))
        if self.minutes and not self.locked and not self.released:
            self.timer.start(self.minutes * 60_000)
        else:
            self.timer.stop()

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if self.locked:
            if kind == QEvent.Shortcut:  # the window's actions (Settings, Export, a page…) wait for the unlock
                return True
            if obj is self.window:
                if kind == QEvent.Resize:
                    self.screen.setGeometry(self.window.rect())
                elif kind == QEvent.Show:
                    QTimer.singleShot(0, self._keep_input)  # shown again (from the tray, say)
            elif kind in self._WHILE_LOCKED and self.others.event(obj, event):
                QTimer.singleShot(0, self._keep_input)
            return False
        if kind in self._INPUT:
            if kind == QEvent.KeyPress and self._is_lock_shortcut(obj, event):
                QTimer.singleShot(0, self.lock)
                return True
            if self.minutes:
                self.timer.start(self.minutes * 60_000)
        return False

    def _is_lock_shortcut(self, obj, event) -> bool:
        """The lock shortcut pressed in another window than the main one (there the action has it)."""
        action = getattr(self.window, "lock_action", None)
        if action is None or not action.isVisible() or not action.isEnabled() or action.shortcut().isEmpty():
            return False
        if not obj.isWidgetType() or obj.window() is self.window:
            return False
        pressed = QKeySequence(event.keyCombination())
        return pressed.matches(action.shortcut()) == QKeySequence.ExactMatch

    def lock(self) -> None:
        if self.locked or self.released:
            return
        self.locked = True
        self.timer.stop()
        focused = QApplication.focusWidget()
        self._focus = focused if focused is not None and focused.window() is self.window else None
        central = self.window.centralWidget()
        if central is not None:
            central.hide()
        self.window.menuBar().setEnabled(False)
        self.screen.cover()
        self.others.conceal_all()
        self._keep_input()
        self.locked_changed.emit(True)

    def _keep_input(self) -> None:
        """A modal window is open (hidden under its cover): it would block the passphrase field, so
        the main window is shown again as the newest modal window, which Qt gives the input to."""
        if not self.locked or not self.window.isVisible() or not self.others.modal_open():
            return
        self._show_again(Qt.ApplicationModal)
        self._window_modal = True
        self.screen.raise_()
        self.window.activateWindow()
        self.screen.field.setFocus()

    def _show_again(self, modality) -> None:
        # Hidden first, while its modality is still the one Qt registered at the show (hiding it after
        # the change would leave it in Qt's list of modal windows).
        window = self.window
        pos, moved = window.pos(), not (window.isMaximized() or window.isFullScreen())
        window.hide()
        window.setWindowModality(modality)
        window.show()
        if moved and window.pos() != pos:
            window.move(pos)

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
        if self._window_modal:
            self._window_modal = False
            if self.window.isVisible():
                self._show_again(Qt.NonModal)
            else:
                self.window.setWindowModality(Qt.NonModal)
        self.others.restore_all()
        self._give_keyboard_back()
        self.set_minutes(self.minutes)
        self.locked_changed.emit(False)

    def _give_keyboard_back(self) -> None:
        """Typing after the unlock goes where it went before the lock (else the composer): the focus was
        on the lock screen's field, now hidden, and fell nowhere."""
        if QApplication.activeModalWidget() is not None:
            return  # a dialog was open: it has the keyboard back (restore_all)
        target = self._focus
        self._focus = None
        if target is None or not shiboken6.isValid(target) or not target.isVisible() or not target.isEnabled():
            journal = getattr(self.window, "journal", None)
            target = journal.composer.edit if journal is not None and journal.composer.isVisible() else None
        self.window.activateWindow()
        if target is not None:
            target.setFocus(Qt.OtherFocusReason)


def passphrase_checker(backend) -> Callable[[str, Callable[[bool], None]], None]:
    """The lock's check: the passphrase (or recovery key) tried on the reads pool (Argon2id takes a moment
    on purpose, so never on the UI thread)."""
    return lambda secret, on_done: backend.read(lambda m: m.keys.check_passphrase(secret), on_done)
