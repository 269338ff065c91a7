"""The app lock covers every window of the app, not only the main one: a dialog left open (a letter,
a memory's history, Settings…) shows nothing of the journal while locked and comes back as it was
after unlocking; a modal dialog keeps its own exec() loop and its unsaved text; the passphrase can
be typed whatever dialog was open; a window that opens during the lock waits for the unlock.

Keys are sent to the main window's QWindow (as the platform sends them), not straight to the
field: only that path meets Qt's modal blocking, which is the trap a modal dialog sets for the lock.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QMessageBox, QTextBrowser, QVBoxLayout

from memoir_desktop.core import Memoir
from tests.ui.conftest import make_window

PASS = "ui test passphrase"
SECRET = "Dear me, the week I told nobody about the letter from Jiwoo"


@pytest.fixture
def locked_app(tmp_path, qtbot, fake_llm):
    """An encrypted journal with a passphrase, its window and its lock (as the app wires them)."""
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.startup.app_lock import AppLock, passphrase_checker

    mem = Memoir.open(tmp_path / "home", passphrase=PASS, llm_base_url=fake_llm.url, llm_model="fake")
    backend = AsyncMemoir(mem)
    window = make_window(backend, qtbot, tmp_path)
    lock = AppLock(window, passphrase_checker(backend), minutes=0)
    window.app_lock = lock
    yield window, lock, backend
    for widget in QApplication.topLevelWidgets():
        if widget is not window and isinstance(widget, QDialog) and widget.isVisible():
            widget.done(QDialog.Rejected)
    window.close()
    backend.shutdown(10_000)
    mem.close()


def journal_dialog(parent, *, modal: bool = False) -> QDialog:
    """A dialog holding journal text and a field the user types into."""
    dialog = QDialog(parent)
    dialog.setWindowTitle("History of: " + SECRET[:20])
    layout = QVBoxLayout(dialog)
    dialog.body = QTextBrowser()
    dialog.body.setPlainText(SECRET)
    layout.addWidget(dialog.body)
    dialog.draft = QLineEdit()
    layout.addWidget(dialog.draft)
    dialog.setModal(modal)
    dialog.resize(420, 300)
    return dialog


def settle(qtbot, widget) -> None:
    """Until `widget` is on screen and the events its showing posted have run."""
    qtbot.waitUntil(widget.isVisible, timeout=5_000)
    qtbot.wait(20)


def type_passphrase(window, text: str = PASS) -> None:
    """As the platform does: into the focused window's QWindow (a modal window blocks this path)."""
    handle = window.windowHandle()
    for char in text:
        QTest.keyClick(handle, char)
    QTest.keyClick(handle, Qt.Key_Return)


def shows_nothing(widget) -> bool:
    """Hidden, or every point of it belongs to the lock's cover (no journal widget is exposed), and
    its title quotes nothing. The window's shape is set aside: not every platform shapes windows."""
    if not widget.isVisible():
        return True
    if SECRET[:20] in widget.windowTitle():
        return False
    shape = widget.mask()
    widget.clearMask()
    try:
        rect = widget.rect()
        for x in range(2, rect.width() - 2, max(1, rect.width() // 12)):
            for y in range(2, rect.height() - 2, max(1, rect.height() // 12)):
                child = widget.childAt(QPoint(x, y))
                while child is not None and child.objectName() != "lockCover":
                    child = child.parentWidget() if child.parentWidget() is not widget else None
                if child is None:
                    return False
        return True
    finally:
        if not shape.isEmpty():
            widget.setMask(shape)


def test_a_dialog_left_open_is_hidden_while_locked_and_back_after_unlock(locked_app, qtbot):
    window, lock, _backend = locked_app
    dialog = journal_dialog(window)
    dialog.show()
    settle(qtbot, dialog)
    dialog.move(dialog.pos() + QPoint(30, 20))
    where = dialog.pos()
    window.lock_now()
    assert lock.locked
    assert not dialog.isVisible()
    type_passphrase(window)
    qtbot.waitUntil(lambda: not lock.locked, timeout=10_000)
    assert dialog.isVisible() and dialog.pos() == where
    assert dialog.body.toPlainText() == SECRET


def test_a_letter_open_over_the_window_shows_nothing_and_the_passphrase_still_opens(locked_app, qtbot):
    """The app opens its dialogs with open() (window-modal): it blocks input to the main window."""
    from memoir_desktop.ui.journal.letter_dialog import open_letter

    window, lock, backend = locked_app
    letter = open_letter(window, backend, {"id": "letter-1", "content": SECRET})
    settle(qtbot, letter)
    assert letter.isModal()
    window.lock_now()
    assert lock.locked and shows_nothing(letter)
    type_passphrase(window, "not the passphrase")
    qtbot.waitUntil(lambda: lock.screen.button.isEnabled(), timeout=10_000)
    assert lock.locked and shows_nothing(letter)
    type_passphrase(window)
    qtbot.waitUntil(lambda: not lock.locked, timeout=10_000)
    assert letter.isVisible() and not shows_nothing(letter)
    assert SECRET in letter.body.toPlainText()
    assert letter.isEnabled() and letter.windowTitle() == letter.tr("A letter from memoir")


def test_a_modal_dialog_in_exec_keeps_running_across_the_lock_with_its_typed_text(locked_app, qtbot):
    window, lock, _backend = locked_app
    dialog = journal_dialog(window, modal=True)
    seen: dict = {}

    def while_running() -> None:
        try:
            settle(qtbot, dialog)
            qtbot.keyClicks(dialog.draft, "a thought not saved yet")
            window.lock_now()
            seen["locked"] = lock.locked
            seen["shows nothing"] = shows_nothing(dialog)
            type_passphrase(window)
            qtbot.waitUntil(lambda: not lock.locked, timeout=10_000)
            seen["running"] = dialog.isVisible()
            seen["draft"] = dialog.draft.text()
            seen["usable"] = dialog.isEnabled() and not shows_nothing(dialog)
            seen["modal"] = QApplication.activeModalWidget() is dialog
        except Exception as exc:  # noqa: BLE001 - reported below, after exec() returns
            seen["error"] = repr(exc)
        finally:
            QTimer.singleShot(0, dialog.accept)

    QTimer.singleShot(0, while_running)
    result = dialog.exec()
    assert "error" not in seen, seen
    assert seen == {"locked": True, "shows nothing": True, "running": True, "draft": "a thought not saved yet",
                    "usable": True, "modal": True}
    assert result == QDialog.Accepted  # the lock did not end the dialog's exec() (it would return Rejected)


def test_a_window_opened_during_the_lock_waits_for_the_unlock(locked_app, qtbot):
    """A finished background job or a reminder may open a window while nobody is there."""
    window, lock, _backend = locked_app
    window.lock_now()
    late = journal_dialog(window)
    box = QMessageBox(QMessageBox.Information, "memoir", SECRET, QMessageBox.Ok, window)
    QTimer.singleShot(0, late.show)
    QTimer.singleShot(0, box.open)  # window-modal, as the app opens its message boxes
    qtbot.waitUntil(lambda: box.isVisible(), timeout=5_000)
    qtbot.wait(50)
    assert not late.isVisible() and shows_nothing(box)
    type_passphrase(window)
    qtbot.waitUntil(lambda: not lock.locked, timeout=10_000)
    assert late.isVisible() and box.isVisible() and not shows_nothing(box)
    box.done(QMessageBox.Ok)


def test_a_modal_dialog_run_during_the_lock_shows_nothing_and_the_passphrase_still_opens(locked_app, qtbot):
    window, lock, _backend = locked_app
    window.lock_now()
    dialog = journal_dialog(window, modal=True)
    seen: dict = {}

    def while_running() -> None:
        try:
            settle(qtbot, dialog)
            seen["shows nothing"] = shows_nothing(dialog)
            type_passphrase(window)
            qtbot.waitUntil(lambda: not lock.locked, timeout=10_000)
            seen["usable"] = dialog.isVisible() and dialog.isEnabled() and not shows_nothing(dialog)
        except Exception as exc:  # noqa: BLE001 - reported below, after exec() returns
            seen["error"] = repr(exc)
        finally:
            QTimer.singleShot(0, dialog.accept)

    QTimer.singleShot(0, while_running)  # as a reminder's timer would run it
    result = dialog.exec()
    assert seen == {"shows nothing": True, "usable": True}
    assert result == QDialog.Accepted


def test_the_lock_shortcut_works_from_inside_a_dialog(locked_app, qtbot):
    """A window-modal dialog blocks the main window's own shortcut: Ctrl+L still locks."""
    from memoir_desktop.ui.journal.letter_dialog import open_letter

    window, lock, backend = locked_app
    letter = open_letter(window, backend, {"id": "letter-1", "content": SECRET})
    settle(qtbot, letter)
    letter.activateWindow()
    letter.body.setFocus()
    QTest.keyClick(letter.windowHandle(), Qt.Key_L, Qt.ControlModifier)
    qtbot.waitUntil(lambda: lock.locked, timeout=2_000)
    assert shows_nothing(letter)


def test_the_windows_shortcuts_do_nothing_while_locked(locked_app, qtbot):
    """The window's shortcuts reach the whole app: locked, none may open a dialog or change a page."""
    window, lock, _backend = locked_app
    page = window.tabs.currentIndex()
    window.lock_now()
    handle = window.windowHandle()
    QTest.keyClick(handle, Qt.Key_Comma, Qt.ControlModifier)  # Settings
    QTest.keyClick(handle, Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)  # Export
    QTest.keyClick(handle, Qt.Key_3, Qt.ControlModifier)  # a page
    qtbot.wait(50)
    opened = [w for w in QApplication.topLevelWidgets() if w is not window and w.isVisible()]
    assert opened == [] and window.tabs.currentIndex() == page
    assert lock.locked and window.focusWidget() is lock.screen.field


def test_a_lock_whose_window_closed_hides_nothing_more(locked_app, qtbot):
    """The journal closes with its window (a restore, a language switch): its lock, even locked,
    must not go on hiding the windows of the next one or eating their shortcuts."""
    window, lock, _backend = locked_app
    window.lock_now()
    window.close()
    other = journal_dialog(None)
    qtbot.addWidget(other)
    other.show()
    qtbot.waitUntil(other.isVisible, timeout=2_000)
    qtbot.wait(20)
    assert other.isVisible() and not shows_nothing(other)
    lock.timer.timeout.emit()  # an idle timer of the closed window's lock: nothing to do
    assert other.isVisible()
