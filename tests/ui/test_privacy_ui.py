"""Privacy on screen: the lock hides the journal, a private entry never reaches the AI, Settings
says what leaves the machine, the start asks for a passphrase where no keyring keeps the key."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.keys import crypto
from tests.ui.conftest import make_window

PASS = "ui test passphrase"


def test_the_lock_hides_the_journal_until_the_passphrase_is_given(tmp_path, qtbot, fake_llm):
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.startup.app_lock import AppLock, passphrase_checker

    mem = Memoir.open(tmp_path / "home", passphrase=PASS, llm_base_url=fake_llm.url, llm_model="fake")
    backend = AsyncMemoir(mem)
    try:
        window = make_window(backend, qtbot, tmp_path)
        assert window.lock_action.isVisible()
        lock = AppLock(window, passphrase_checker(backend), minutes=0)
        window.app_lock = lock
        window.lock_now()
        assert lock.locked and lock.screen.isVisible()
        assert not window.centralWidget().isVisible() and not window.menuBar().isEnabled()
        assert lock.screen.geometry() == window.rect()
        lock.screen.field.setText("not the passphrase")
        qtbot.keyClick(lock.screen.field, Qt.Key_Return)
        qtbot.waitUntil(lambda: lock.screen.button.isEnabled(), timeout=10_000)
        assert lock.locked and not window.centralWidget().isVisible()
        assert "does not open" in lock.screen.error.text() or "열 수 없습니다" in lock.screen.error.text()
        lock.screen.field.setText(PASS)
        qtbot.keyClick(lock.screen.field, Qt.Key_Return)
        qtbot.waitUntil(lambda: not lock.locked, timeout=10_000)
        assert window.centralWidget().isVisible() and not lock.screen.isVisible()
        # Idle: the timer locks by itself.
        lock.set_minutes(1)
        assert lock.timer.isActive()
        lock.timer.timeout.emit()
        assert lock.locked and not window.centralWidget().isVisible()
        window.close()
    finally:
        backend.shutdown(10_000)
        mem.close()


def test_a_private_entry_from_the_composer_is_saved_and_never_sent(window, backend, mem, qtbot, fake_llm):
    composer = window.journal.composer
    composer.private.setChecked(True)
    assert not composer.button.isEnabled()
    composer.edit.setPlainText("아무에게도 말 못 한 이야기 private-ui-3301")
    qtbot.keyClick(composer.edit, Qt.Key_Return)  # Enter saves it: a private entry gets no reply
    qtbot.waitUntil(lambda: any(e["private"] for e in mem.journal.entries()), timeout=10_000)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    entry = next(e for e in mem.journal.entries() if e["private"])
    assert entry["content"] == "아무에게도 말 못 한 이야기 private-ui-3301"
    assert mem.jobs.all(entry_ids=[entry["id"]]) == []
    assert "private-ui-3301" not in " ".join(str(r) for r in fake_llm.requests)
    assert [e["id"] for e in mem.search_field.search_entries("이야기")] == [entry["id"]]
    window.journal.show_today()
    qtbot.waitUntil(lambda: any(b.entry_id == entry["id"] and b.private_label.isVisibleTo(window)
                                for b in window.journal.chat.bubbles), timeout=10_000)


def test_settings_say_what_leaves_the_machine_local_or_cloud(window, qtbot):
    window.open_settings()
    dialog = window.settings_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=10_000)
    dialog.provider.setCurrentIndex(dialog.provider.findData("ollama"))
    dialog.base_url.setText("http://127.0.0.1:11434/v1")
    local = dialog.what_is_sent.text()
    assert "127.0.0.1" in local and ("이 컴퓨터를 떠나지 않아요" in local or "stays on this machine" in local)
    dialog.provider.setCurrentIndex(dialog.provider.findData("custom"))
    dialog.base_url.setText("https://api.example.com/v1")
    cloud = dialog.what_is_sent.text()
    assert "api.example.com" in cloud and ("클라우드" in cloud or "cloud" in cloud)
    assert dialog.passphrase_button.isEnabled()  # the test journal is encrypted (keyring)
    dialog.lock_idle.setValue(5)
    assert dialog.settings().lock_idle_minutes == 5
    dialog.reject()


def test_where_no_keyring_keeps_the_key_the_start_asks_for_a_passphrase(qapp, qtbot, tmp_path, monkeypatch):
    from memoir_desktop.ui.startup.opening import MemoirOpener

    monkeypatch.setattr(crypto, "keyring_available", lambda: False)
    os.environ.pop(crypto.ENV_PASSPHRASE, None)
    home = tmp_path / "home"
    home.mkdir()
    config.save_settings(home, config.Settings())
    opener = MemoirOpener(home)
    with qtbot.waitSignal(opener.locked, timeout=30_000) as why:
        opener.start()
    assert why.args == ["no_keyring", True]
    assert not (home / "memoir.db").exists()
    opener.passphrase = PASS
    with qtbot.waitSignal(opener.ready, timeout=60_000) as opened:
        opener.start()
    mem = opened.args[0]
    try:
        assert mem.keys.encrypted and opener.passphrase is None  # not kept once the journal is open
        assert mem.keys.take_recovery_key()
        from memoir_desktop.ui.async_memoir import AsyncMemoir
        from memoir_desktop.ui.settings.settings_dialog import SettingsDialog

        backend = AsyncMemoir(mem)
        dialog = SettingsDialog(mem.settings, backend)
        qtbot.addWidget(dialog)
        assert dialog.remove_passphrase_button.isHidden()  # here the passphrase is the only way in
        dialog.reject()
        backend.shutdown(10_000)
    finally:
        mem.close()
    opener.passphrase = "a wrong passphrase"
    with qtbot.waitSignal(opener.locked, timeout=30_000) as why:
        opener.start()
    assert why.args == ["wrong", False]


def test_a_plain_journal_is_offered_encryption_and_reopens_encrypted(qapp, qtbot, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    from memoir_desktop.ui.startup.lifecycle import AppLifecycle

    home = tmp_path / "home"
    with Memoir.open(home, encrypt=False) as m:
        m.journal.write("암호화 전의 일기 plain-before-5150")
    lifecycle = AppLifecycle(qapp, home)
    lifecycle.start()
    try:
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=30_000)
        window = lifecycle.window
        assert not lifecycle.backend.encrypted and window.encrypt_action.isVisible()
        box = window.last_message_box
        assert box is not None and box.isVisible()
        encrypt = next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.AcceptRole)
        encrypt.click()
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window is not window
                        and lifecycle.window.isVisible(), timeout=60_000)
        reopened = lifecycle.window
        assert lifecycle.backend.encrypted and not reopened.encrypt_action.isVisible()
        assert reopened.recovery_dialog.isVisible()  # the key made by the conversion, shown once
        assert crypto.looks_like_recovery_key(reopened.recovery_dialog.key)
        reopened.recovery_dialog.accept()
        assert [e["content"] for e in lifecycle.backend.mem.journal.entries()] == ["암호화 전의 일기 plain-before-5150"]
        assert b"plain-before-5150" not in (home / "memoir.db").read_bytes()
    finally:
        if lifecycle.window is not None:
            lifecycle.window.close()
        assert lifecycle.shutdown()


def test_declining_the_encryption_offer_for_good_is_remembered(qapp, qtbot, tmp_path):
    import json

    from PySide6.QtWidgets import QMessageBox

    from memoir_desktop.ui.startup.lifecycle import AppLifecycle

    home = tmp_path / "home"
    with Memoir.open(home, encrypt=False) as m:
        m.journal.write("그대로 두는 일기")
    lifecycle = AppLifecycle(qapp, home)
    lifecycle.start()
    try:
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=30_000)
        box = lifecycle.window.last_message_box
        box.checkBox().setChecked(True)
        next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.RejectRole).click()
        settings = home / "settings.json"
        qtbot.waitUntil(lambda: settings.exists() and json.loads(settings.read_text("utf-8"))
                        .get("encryption_offer_declined") is True, timeout=10_000)
        assert not lifecycle.backend.encrypted and lifecycle.window.encrypt_action.isVisible()
    finally:
        if lifecycle.window is not None:
            lifecycle.window.close()
        assert lifecycle.shutdown()


def test_the_recovery_key_is_shown_whole(qtbot):
    """Shown once and copied by hand: no part of it may be scrolled out of view."""
    from memoir_desktop.ui.settings.privacy import RecoveryKeyDialog

    key = "ZEWQ-AMPU-3K77-58L7-VXUM-BFMA-FJA9-7QWE"
    dialog = RecoveryKeyDialog(key)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    field = dialog.field
    shown = field.width() - field.textMargins().left() - field.textMargins().right()
    assert field.fontMetrics().horizontalAdvance(key) < shown


def test_closing_the_journal_closes_the_recovery_key_window_too(window, qtbot):
    """A dialog left open after its journal closed kept the app from quitting (and blocked every
    other window's pointer, being modal)."""
    from PySide6.QtWidgets import QApplication

    dialog = window.show_recovery_key("ZEWQ-AMPU-3K77-58L7-VXUM-BFMA-FJA9-7QWE")
    qtbot.waitExposed(dialog)
    window.close()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None, timeout=5_000)
    assert not any(w.isVisible() for w in QApplication.topLevelWidgets())


def test_the_passphrase_can_be_removed_where_the_keyring_keeps_the_key(tmp_path, qtbot, fake_llm, monkeypatch):
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.settings.privacy import PassphraseDialog

    mem = Memoir.open(tmp_path / "home", passphrase=PASS, llm_base_url=fake_llm.url, llm_model="fake")
    settings = mem.settings
    settings.lock_at_start = True
    config.save_settings(mem.home, settings)
    backend = AsyncMemoir(mem)
    try:
        window = make_window(backend, qtbot, tmp_path)
        assert window.lock_action.isVisible()
        dialog = window.open_settings()
        assert not dialog.remove_passphrase_button.isHidden()
        answers = iter(["not the passphrase", PASS])
        monkeypatch.setattr(PassphraseDialog, "exec", lambda self: PassphraseDialog.Accepted)
        monkeypatch.setattr(PassphraseDialog, "passphrase", lambda self: next(answers))
        dialog.remove_passphrase()
        wrong = dialog.tr("That passphrase does not open this journal. Nothing was changed.")
        qtbot.waitUntil(lambda: dialog.privacy_message.text() == wrong, timeout=10_000)
        assert mem.keys.has_passphrase
        dialog.remove_passphrase()
        qtbot.waitUntil(lambda: not mem.keys.has_passphrase, timeout=10_000)
        qtbot.waitUntil(lambda: not window.lock_action.isVisible(), timeout=5_000)
        assert not dialog.lock_at_start.isEnabled() and dialog.remove_passphrase_button.isHidden()
        assert config.load_settings(mem.home, apply_env=False).lock_at_start is False  # no lock it could not open
        dialog.reject()
    finally:
        backend.shutdown(10_000)
        mem.close()
    reopened = Memoir.open(tmp_path / "home")  # the keyring alone opens it now
    reopened.close()


def test_the_recovery_key_saved_to_a_file_is_the_owners_alone(tmp_path, qtbot, monkeypatch):
    """The key opens the journal without the passphrase: its file must not be world-readable as a
    plain open() under umask 022 makes it; a place that cannot be written says so and loses nothing."""
    import os
    import stat

    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from memoir_desktop.ui.settings.privacy import RecoveryKeyDialog

    key = "ZEWQ-AMPU-3K77-58L7-VXUM-BFMA-FJA9-7QWE"
    dialog = RecoveryKeyDialog(key)
    qtbot.addWidget(dialog)
    target = tmp_path / "memoir-recovery-key.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    old = os.umask(0o022)
    try:
        dialog.save()
    finally:
        os.umask(old)
    assert key in target.read_text("utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600

    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "no" / "k.txt"), ""))
    dialog.save()
    assert warned and "저장하지 못했어요" in warned[0] and dialog.field.text() == key


def test_where_no_keyring_keeps_the_key_settings_show_that_every_start_asks(tmp_path, qtbot, monkeypatch):
    """Settings → Privacy showed "Ask for the passphrase when memoir starts" unchecked on a computer
    without a keyring, where every start asks."""
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.settings.settings_dialog import SettingsDialog

    monkeypatch.setattr(crypto, "keyring_available", lambda: False)
    os.environ.pop(crypto.ENV_PASSPHRASE, None)
    mem = Memoir.open(tmp_path / "home", passphrase=PASS)
    backend = AsyncMemoir(mem)
    try:
        assert mem.keys.has_passphrase and not mem.keys.keyring_keeps_key and not mem.settings.lock_at_start
        dialog = SettingsDialog(mem.settings, backend)
        qtbot.addWidget(dialog)
        assert dialog.lock_at_start.isChecked() and not dialog.lock_at_start.isEnabled()
        assert not dialog.lock_at_start_reason.isHidden()
        assert dialog.lock_at_start_reason.text() == dialog.tr(
            "This computer has no system keyring, so memoir asks every time.")
        assert "시스템 키링이 없어서" in dialog.lock_at_start_reason.text()
        # What is shown is what happens; the setting the user chose is not rewritten by it.
        assert dialog.settings().lock_at_start is False
        dialog.reject()
    finally:
        backend.shutdown(10_000)
        mem.close()


def test_where_the_keyring_keeps_the_key_the_start_lock_is_a_choice(window, qtbot):
    dialog = window.open_settings()
    assert dialog.lock_at_start_reason.isHidden()
    assert not dialog.lock_at_start.isChecked()
    dialog.reject()
