"""A second computer brings the journal a first one syncs, from the app: at the first start (the new
journal's passphrase question, or the welcome panel), or from Settings → Sync when the place holds the
diarist's journal and this computer's is still empty. A wrong passphrase changes nothing, here or there;
a journal with an entry is never replaced; a join that fails puts the empty journal back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from memoir_desktop.core import config, sync
from memoir_desktop.core.keys import crypto
from memoir_desktop.core.sync import joining
from memoir_desktop.core.sync.service import Sync
from memoir_desktop.ui.journal.welcome_panel import WelcomePanel
from memoir_desktop.ui.settings.privacy import PassphraseDialog
from memoir_desktop.ui.startup.lifecycle import AppLifecycle
from tests.ui.sync_homes import PASS, open_journal

WAIT = 60_000  # a loaded two-core machine: a start plus a first round can take tens of seconds
FIRST_DAY = "Walked to the lighthouse with Mina; the fog lifted at noon"


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def folder(tmp_path) -> Path:
    """The folder the first computer syncs to, with its journal in it."""
    place = tmp_path / "Dropbox" / "memoir"
    laptop = open_journal(tmp_path / "laptop")
    try:
        laptop.journal.write(FIRST_DAY)
        laptop.sync.run(str(place))
    finally:
        laptop.close()
    return place


@pytest.fixture
def desk(qapp, tmp_path):
    """The second computer's app, not started yet (its home has only its settings)."""
    home = tmp_path / "desk"
    home.mkdir()
    config.save_settings(home, config.Settings(ui_language="ko"))  # the UI tests' language: Save keeps it
    lifecycle = AppLifecycle(qapp, home)
    yield lifecycle
    if lifecycle.window is not None:
        lifecycle.window.close()
    lifecycle.shutdown()


def _started(lifecycle, qtbot):
    """A first start where a keyring keeps the key: the journal is made, its recovery key shown once."""
    lifecycle.start()
    qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=WAIT)
    window = lifecycle.window
    qtbot.waitUntil(lambda: getattr(window, "recovery_dialog", None) is not None, timeout=WAIT)
    window.recovery_dialog.accept()
    qtbot.waitUntil(lambda: lifecycle.backend.idle, timeout=WAIT)
    return window


def _welcome(window) -> WelcomePanel | None:
    return next(iter(window.journal.chat.findChildren(WelcomePanel)), None)


def _shown_entries(window) -> list[str]:
    return [b.body.text() for b in window.journal.chat.bubbles if b.role == "user" and b.entry_id]


def _reopened_saying_why(lifecycle, qtbot, old_window):
    """After a join that did not happen: this computer's journal open again, and the box saying why."""
    qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window is not old_window
                    and lifecycle.window.isVisible(), timeout=WAIT)
    window = lifecycle.window
    qtbot.waitUntil(lambda: getattr(window, "last_message_box", None) is not None, timeout=WAIT)
    return window.last_message_box


def _joined(lifecycle, qtbot, old_window):
    qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window is not old_window
                    and lifecycle.window.isVisible(), timeout=WAIT)
    window = lifecycle.window
    qtbot.waitUntil(lambda: _shown_entries(window) == [FIRST_DAY], timeout=WAIT)
    return window


def test_a_second_computers_first_start_brings_the_journal_and_a_wrong_passphrase_changes_nothing(
        desk, folder, qtbot, monkeypatch):
    monkeypatch.setattr(crypto, "keyring_available", lambda: False)  # the new journal asks for a passphrase
    asked: list[PassphraseDialog] = []

    def choose_joining() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PassphraseDialog):
            QTimer.singleShot(20, choose_joining)
            return
        asked.append(dialog)
        if getattr(dialog, "join_button", None) is None:  # no way to join offered: a new journal, then
            dialog.field.setText(PASS)
            dialog.confirm.setText(PASS)
            dialog.accept()
            return
        dialog.join_button.click()

    QTimer.singleShot(0, choose_joining)
    desk.start()
    qtbot.waitUntil(lambda: desk.join_flow.dialog is not None and desk.join_flow.dialog.isVisible(), timeout=WAIT)
    assert asked and asked[0].join_button.text() == "이미 다른 컴퓨터에서 일기를 쓰고 있어요…"
    dialog = desk.join_flow.dialog
    assert dialog.windowTitle() == "일기를 이 컴퓨터로 가져오기"
    dialog.place.folder.setText(str(folder))
    place_before, home_before = _files(folder), _files(desk.home)

    dialog.field.setText("not the journal's passphrase")
    dialog.bring.click()
    qtbot.waitUntil(lambda: dialog.error.isVisible() and dialog.bring.isEnabled(), timeout=WAIT)
    assert dialog.error.text().startswith("그 암호 문구로는 그곳에 보관된 일기를 열 수 없습니다. 이곳도 그곳도 바뀐 것은 없습니다.")
    assert _files(folder) == place_before and _files(desk.home) == home_before
    assert desk.window is None and dialog.isVisible()
    assert dialog.focusWidget() is dialog.field  # to type it again (the focus had gone to Cancel)

    dialog.field.setText(PASS)
    dialog.bring.click()
    window = _joined(desk, qtbot, None)
    mem = desk.backend.mem
    assert mem.keys.has_passphrase and not mem.keys.keyring_keeps_key  # no keyring: the passphrase opens it at each start
    assert config.load_settings(desk.home, apply_env=False).sync_url == str(folder)
    assert window.status.currentMessage() == "일기를 가져왔습니다. 다른 컴퓨터들과 계속 똑같이 맞춰집니다."


def test_settings_sync_on_an_empty_journal_offers_the_journal_kept_there(desk, folder, qtbot):
    window = _started(desk, qtbot)
    qtbot.waitUntil(lambda: _welcome(window) is not None and hasattr(_welcome(window), "join_button"), timeout=WAIT)
    welcome = _welcome(window)
    assert welcome.join_button.text() == "이미 다른 컴퓨터에서 일기를 쓰고 있어요…"
    empty_key = (desk.home / "memoir.key").read_bytes()

    settings = window.open_settings()
    page = settings.sync_page
    settings.show_page(page)
    page.place.folder.setText(str(folder))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.join_offer.isVisible(), timeout=WAIT)
    assert page.failure.text().startswith("✗ 그곳에는 이미 다른 일기가 있습니다")
    assert page.join_button.text() == "그곳에 보관된 일기를 이 컴퓨터에서 쓰기"
    page.join_button.click()
    qtbot.waitUntil(lambda: desk.join_flow.dialog is not None and desk.join_flow.dialog.isVisible(), timeout=WAIT)
    dialog = desk.join_flow.dialog
    assert dialog.place.url() == str(folder) and not settings.isVisible()
    dialog.field.setText(PASS)
    dialog.bring.click()
    _joined(desk, qtbot, window)
    assert config.load_settings(desk.home, apply_env=False).sync_url == str(folder)
    # The empty journal is set aside, not deleted: its key file is in a dated folder of the home.
    [aside] = [p for p in desk.home.iterdir() if p.name.startswith(joining.ASIDE_PREFIX)]
    assert (aside / "memoir.key").read_bytes() == empty_key and (aside / "memoir.db").exists()
    assert desk.backend.mem.keys.keyring_keeps_key  # the keyring keeps the joined journal's key: no question


def test_without_a_keyring_a_place_saved_with_save_offers_the_journal_there_too(desk, folder, qtbot, monkeypatch):
    """No keyring: the first start made a journal with a passphrase of its own, which syncs. The diarist
    saved the place instead of testing it: the round says another journal is there, and Settings → Sync
    offers the journal kept there; it comes, opened with its passphrase."""
    monkeypatch.setattr(crypto, "keyring_available", lambda: False)

    def new_journal() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PassphraseDialog):
            QTimer.singleShot(20, new_journal)
            return
        dialog.field.setText("this desk's own passphrase")
        dialog.confirm.setText("this desk's own passphrase")
        dialog.accept()

    QTimer.singleShot(0, new_journal)
    window = _started(desk, qtbot)
    settings = window.open_settings()
    settings.sync_page.place.folder.setText(str(folder))
    settings.accept()
    qtbot.waitUntil(lambda: getattr(window.sync.last_error, "code", None) == "another_journal", timeout=WAIT)
    settings = window.open_settings()  # on its first tab: the Sync tab has said it all the same
    page = settings.sync_page
    qtbot.waitUntil(lambda: not page.join_offer.isHidden(), timeout=WAIT)
    assert not page.isVisible() and page.failure.text().startswith("그곳에는 이미 다른 일기가 있습니다")
    settings.show_page(page)
    page.join_button.click()
    qtbot.waitUntil(lambda: desk.join_flow.dialog is not None and desk.join_flow.dialog.isVisible(), timeout=WAIT)
    dialog = desk.join_flow.dialog
    dialog.field.setText(PASS)
    dialog.bring.click()
    _joined(desk, qtbot, window)  # opened with the passphrase just typed: no question
    assert not desk.backend.mem.keys.keyring_keeps_key


def test_a_journal_with_an_entry_is_never_replaced(desk, folder, qtbot):
    window = _started(desk, qtbot)
    window.journal.save("The desk's own first day")
    qtbot.waitUntil(lambda: _shown_entries(window) == ["The desk's own first day"], timeout=WAIT)
    qtbot.waitUntil(lambda: desk.backend.idle, timeout=WAIT)
    assert not window.journal.journal_empty and not hasattr(_welcome(window) or object(), "join_button")

    settings = window.open_settings()
    page = settings.sync_page
    settings.show_page(page)
    page.place.folder.setText(str(folder))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.failure.isVisible() and page.test_button.isEnabled(), timeout=WAIT)
    qtbot.waitUntil(lambda: desk.backend.idle, timeout=WAIT)
    assert not page.join_offer.isVisible()  # the place holds another journal, and this one is not empty
    settings.reject()

    key_before = (desk.home / "memoir.key").read_bytes()
    dialog = desk.join_flow.ask(str(folder))  # asked all the same (an entry written after the offer)
    dialog.field.setText(PASS)
    dialog.bring.click()
    box = _reopened_saying_why(desk, qtbot, window)
    assert box.windowTitle() == "일기를 가져오지 못했습니다"
    assert box.text() == "이 컴퓨터의 일기가 더 이상 비어 있지 않아서 바꾸지 않았습니다. 바뀐 것은 없습니다."
    assert box.informativeText() == "이 컴퓨터의 일기는 그대로입니다."
    assert (desk.home / "memoir.key").read_bytes() == key_before
    assert not [p for p in desk.home.iterdir() if p.name.startswith(joining.ASIDE_PREFIX)]
    assert [e["content"] for e in desk.backend.mem.journal.entries()] == ["The desk's own first day"]


def test_a_join_that_fails_midway_puts_the_empty_journal_back(desk, folder, qtbot, monkeypatch):
    window = _started(desk, qtbot)
    qtbot.waitUntil(lambda: hasattr(_welcome(window) or object(), "join_button"), timeout=WAIT)
    key_before = (desk.home / "memoir.key").read_bytes()

    def offline(self, url=None, progress=None):
        raise sync.Offline(sync.errors.OFFLINE)

    monkeypatch.setattr(Sync, "run", offline)  # the place opened, then the network went in the first round
    _welcome(window).join_button.click()
    qtbot.waitUntil(lambda: desk.join_flow.dialog is not None and desk.join_flow.dialog.isVisible(), timeout=WAIT)
    dialog = desk.join_flow.dialog
    dialog.place.folder.setText(str(folder))
    dialog.field.setText(PASS)
    dialog.bring.click()
    box = _reopened_saying_why(desk, qtbot, window)
    assert box.text().startswith("동기화 위치에 연결할 수 없습니다")
    assert box.informativeText() == "이 컴퓨터의 일기는 그대로입니다."
    assert (desk.home / "memoir.key").read_bytes() == key_before
    assert not [p for p in desk.home.iterdir() if p.name.startswith(joining.ASIDE_PREFIX)]
    assert desk.backend.mem.journal.entries() == [] and desk.backend.settings.sync_url == ""


def test_enter_in_the_passphrase_field_brings_the_journal_not_the_folder_picker(qtbot, monkeypatch):
    """It opened the folder picker: the form's Choose… was the first button, so the dialog's default."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QFileDialog

    from memoir_desktop.ui.sync.join_dialog import JoinDialog

    picked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: picked.append("picker") or "")
    for make in (lambda: JoinDialog(), lambda: JoinDialog("/Users/mina/Dropbox/memoir")):
        dialog = make()
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        dialog.place.folder.setText("/Users/mina/Dropbox/memoir")
        dialog.field.setText(PASS)
        with qtbot.waitSignal(dialog.bring_requested, timeout=5_000):
            qtbot.keyClick(dialog.field, Qt.Key.Key_Return)
        assert picked == []
    offered = PassphraseDialog("reason", creating=True, offer_join=True)
    qtbot.addWidget(offered)
    offered.show()
    offered.field.setText(PASS)
    offered.confirm.setText(PASS)
    qtbot.keyClick(offered.confirm, Qt.Key.Key_Return)
    assert offered.result() == PassphraseDialog.Accepted  # Enter is OK, not "I already keep my journal…"
