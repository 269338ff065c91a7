"""Settings → Sync: the address saved with Save, Sync now carrying an entry to a second computer, Test the
connection in words (a folder, one that cannot be made, a WebDAV server refusing the login), the WebDAV
password kept in the keyring or for this session only, and a journal without a passphrase told so."""

from __future__ import annotations

import re

import pytest

from memoir_desktop.core import config
from memoir_desktop.core.keys import secrets
from memoir_desktop.ui.sync.address import WEBDAV
from memoir_desktop.ui.sync.auto_sync import AutoSync
from tests.sync.servers import WEBDAV_PASSWORD, WEBDAV_USER, WebDAV
from tests.ui.sync_homes import join, open_journal, texts

CLASS_OR_ENV = re.compile(r"[A-Za-z]+(?:Error|Exception)\b|MEMOIR_|memoir-cli")


@pytest.fixture
def mem(tmp_path):
    """This computer's journal (the conftest's backend and window run on it)."""
    m = open_journal(tmp_path / "laptop")
    yield m
    m.close()


@pytest.fixture
def folder(tmp_path):
    place = tmp_path / "Dropbox" / "memoir"
    place.mkdir(parents=True)
    return place


@pytest.fixture(scope="module")
def webdav_server(tmp_path_factory):
    server = WebDAV(tmp_path_factory.mktemp("webdav"))
    yield server
    server.close()


def _sync_page(window, qtbot):
    dialog = window.open_settings()
    page = dialog.sync_page
    dialog.show_page(page)
    qtbot.waitUntil(lambda: page.login_loaded and page.isVisible(), timeout=60_000)
    return dialog, page


def test_the_tab_saves_a_folder_and_sync_now_carries_an_entry_to_a_second_computer(
        window, mem, backend, folder, tmp_path, qtbot, monkeypatch):
    monkeypatch.setattr(AutoSync, "AFTER_WRITE_MS", 600_000)  # only Sync now syncs the second entry
    dialog, page = _sync_page(window, qtbot)
    assert dialog.pages.tabText(dialog.pages.currentIndex()) == "동기화"
    assert "저장 공간은 여러분의 글을 볼 수 없습니다" in page.intro.text()
    assert page.passphrase_box.isHidden() and page.sync_button.isEnabled()
    page.place.folder.setText(str(folder))
    dialog.accept()  # Save
    qtbot.waitUntil(lambda: config.load_settings(mem.home, apply_env=False).sync_url == str(folder),
                    timeout=60_000)
    qtbot.waitUntil(lambda: backend.idle and not window.sync.running and window.sync.last_sync is not None,
                    timeout=60_000)  # an address just saved syncs soon by itself

    mem.journal.write("Walked to the lighthouse with Mina; the fog lifted at noon")
    dialog, page = _sync_page(window, qtbot)
    assert page.place.url() == str(folder) and page.last.text().startswith("방금 동기화함.")
    page.sync_button.click()
    qtbot.waitUntil(lambda: page.last.text() == "방금 동기화함. 변경 1건 보냄, 0건 받음.", timeout=60_000)
    assert not page.failure.isVisible()
    dialog.reject()

    desk = join(str(folder), tmp_path / "desk")
    try:
        assert texts(desk) == ["Walked to the lighthouse with Mina; the fog lifted at noon"]
    finally:
        desk.close()


def test_testing_a_folder_says_it_works_or_why_it_cannot_be_made(window, folder, tmp_path, qtbot):
    dialog, page = _sync_page(window, qtbot)
    page.place.folder.setText(str(folder))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.result.text().startswith("✓"), timeout=60_000)
    assert page.result.text() == "✓ 연결되었습니다. 아직 그곳에 보관된 것이 없습니다: 지금 동기화하면 일기가 그곳에 보관됩니다."
    assert list(folder.iterdir()) == []  # a test writes nothing there

    (tmp_path / "a file").write_text("not a folder")
    page.place.folder.setText(str(tmp_path / "a file" / "memoir"))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.failure.isVisible() and page.test_button.isEnabled(), timeout=60_000)
    assert page.failure.text() == "✗ 그 폴더를 만들거나 열 수 없습니다: 다른 폴더를 고르세요."
    assert not page.result.isVisible()
    dialog.reject()


def test_testing_a_webdav_server_that_refuses_the_login_says_so_in_words(window, webdav_server, qtbot):
    dialog, page = _sync_page(window, qtbot)
    form = page.place
    form.kind.setCurrentIndex(form.kind.findData(WEBDAV))
    form.webdav.setText(f"http://127.0.0.1:{webdav_server.port}/refused")
    form.user.setText(WEBDAV_USER)
    form.password.setText("not the password")
    page.test_button.click()
    qtbot.waitUntil(lambda: page.failure.isVisible() and page.test_button.isEnabled(), timeout=60_000)
    shown = page.failure.text()
    assert shown == "✗ 서버가 사용자 이름이나 비밀번호를 거부했습니다: 설정 → 동기화에서 확인하세요. 바뀐 것은 없습니다."
    assert not CLASS_OR_ENV.search(shown)

    form.password.setText(WEBDAV_PASSWORD)  # the same server takes the right one
    page.test_button.click()
    qtbot.waitUntil(lambda: page.result.isVisible() and page.result.text().startswith("✓"), timeout=60_000)
    assert form.url() == f"webdav://127.0.0.1:{webdav_server.port}/refused"
    dialog.reject()


def test_a_webdav_password_goes_to_the_keyring_and_the_rounds_use_it(window, mem, webdav_server, qtbot):
    url = f"webdav://127.0.0.1:{webdav_server.port}/keyring"
    dialog, page = _sync_page(window, qtbot)
    form = page.place
    form.kind.setCurrentIndex(form.kind.findData(WEBDAV))
    form.webdav.setText(f"http://127.0.0.1:{webdav_server.port}/keyring")
    form.user.setText(WEBDAV_USER)
    form.password.setText(WEBDAV_PASSWORD)
    assert form.keyring_note.text() == "비밀번호는 파일이 아니라 시스템 키링에 보관됩니다."
    dialog.accept()
    qtbot.waitUntil(lambda: mem.settings.sync_url == url and window.sync.last_sync is not None,
                    timeout=60_000)
    assert secrets.get_sync_login(url) == (WEBDAV_USER, WEBDAV_PASSWORD)
    assert window.sync.last_error is None and window.sync.session_logins == {}
    assert WEBDAV_PASSWORD not in (mem.home / "settings.json").read_text()
    dialog, page = _sync_page(window, qtbot)  # opened again: the login is there, the password is not shown
    assert page.place.user.text() == WEBDAV_USER and page.place.password.text() == ""
    assert "보관되어 있습니다" in page.place.password.placeholderText()
    dialog.reject()


def test_without_a_keyring_the_password_is_kept_for_this_session_and_said_so(
        window, mem, webdav_server, qtbot, monkeypatch):
    from memoir_desktop.core.keys import crypto

    monkeypatch.setattr(crypto, "keyring_available", lambda: False)
    monkeypatch.setattr(secrets, "set_sync_login", lambda *_a, **_k: False)  # keyring.set_password fails
    url = f"webdav://127.0.0.1:{webdav_server.port}/session"
    dialog, page = _sync_page(window, qtbot)
    form = page.place
    form.kind.setCurrentIndex(form.kind.findData(WEBDAV))
    assert form.keyring_note.text() == ("이 컴퓨터에는 시스템 키링이 없어서, memoir를 닫을 때까지만 비밀번호를 보관하고 "
                                        "다음에 다시 물어봅니다.")
    form.webdav.setText(url)
    form.user.setText(WEBDAV_USER)
    form.password.setText(WEBDAV_PASSWORD)
    dialog.accept()
    qtbot.waitUntil(lambda: window.sync.last_sync is not None and not window.sync.running, timeout=60_000)
    assert window.sync.last_error is None, window.sync.last_error
    assert window.sync.session_logins == {url: (WEBDAV_USER, WEBDAV_PASSWORD)}
    assert mem.settings.sync_url == url and WEBDAV_PASSWORD not in (mem.home / "settings.json").read_text()


def test_a_journal_without_a_passphrase_is_told_sync_needs_one_and_offered_it(tmp_path, qtbot):
    from memoir_desktop.core import Memoir
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from tests.ui.conftest import make_window

    plain = Memoir.open(tmp_path / "no-passphrase", llm_base_url=None)  # encrypted, the key in the keyring
    backend = AsyncMemoir(plain)
    try:
        assert plain.keys.encrypted and not plain.keys.has_passphrase
        window = make_window(backend, qtbot, tmp_path)
        dialog, page = _sync_page(window, qtbot)
        assert page.passphrase_box.isVisible() and page.passphrase_button.isVisible()
        assert page.passphrase_note.text().startswith("동기화하려면 일기에 암호 문구가 있어야 합니다")
        assert page.passphrase_button.text() == "암호 문구 정하기…"
        assert not page.sync_button.isEnabled()
        dialog.reject()
    finally:
        backend.shutdown(10_000)
        plain.close()


def test_testing_a_place_tells_this_journals_place_from_another_journals(window, mem, folder, tmp_path, qtbot):
    mem.sync.run(str(folder))
    dialog, page = _sync_page(window, qtbot)
    page.place.folder.setText(str(folder))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.result.text().startswith("✓"), timeout=60_000)
    assert page.result.text() == "✓ 연결되었습니다. 컴퓨터 1대가 그곳에 이 일기를 보관하고 있습니다."

    elsewhere = tmp_path / "Dropbox" / "someone else's"
    other = open_journal(tmp_path / "another journal")
    try:
        other.journal.write("Not this diarist's day")
        other.sync.run(str(elsewhere))
    finally:
        other.close()
    page.place.folder.setText(str(elsewhere))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.failure.isVisible() and page.test_button.isEnabled(), timeout=60_000)
    assert page.failure.text() == ("✗ 그곳에는 이미 다른 일기가 있습니다: 이 일기에는 다른 폴더나 주소를 고르세요. "
                                   "그곳의 내용은 바뀌지 않았습니다.")
    dialog.reject()
