"""Settings → Connected apps: the apps that connected and their permissions, the log of their calls
in words, copying a client's configuration, and the network access key shown once."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtGui import QGuiApplication

from memoir_desktop.core import config
from memoir_desktop.core.apps import app_access, connected_apps


@pytest.fixture
def page(backend, qtbot):
    from memoir_desktop.ui.connected_apps.page import ConnectedAppsPage

    page = ConnectedAppsPage(backend)
    qtbot.addWidget(page)
    page.resize(640, 900)
    page.show()
    qtbot.waitUntil(lambda: page.loaded, timeout=10_000)
    return page


def _stored(mem, name: str) -> dict:
    return next(a for a in connected_apps.apps(mem.engine) if a["name"] == name)


def test_settings_list_an_app_that_connected_with_what_a_new_app_may_do(window, mem, qtbot):
    connected_apps.seen(mem.engine, "Claude Desktop")
    dialog = window.open_settings()
    page = dialog.apps_page
    dialog.show_page(page)
    qtbot.waitUntil(lambda: page.loaded and page.row("Claude Desktop") is not None
                    and page.row("Claude Desktop").isVisibleTo(dialog), timeout=10_000)
    assert dialog.pages.tabText(dialog.pages.currentIndex()) == "연결된 앱"
    row = page.row("Claude Desktop")
    assert row.name.text() == "Claude Desktop"
    # A stranger's defaults: allowed, reads memories and only suggests.
    assert row.allowed.isChecked() and not row.read_entries.isChecked() and not row.write_directly.isChecked()
    assert not page.no_apps.isVisibleTo(dialog)
    # The page fits a laptop screen like the other tabs: Save stays in reach.
    assert dialog.sizeHint().height() <= 700, dialog.sizeHint()
    assert dialog.buttons.geometry().bottom() <= dialog.height()
    dialog.reject()


def test_an_empty_page_says_how_to_connect_an_app(page):
    assert page.rows == []
    assert page.no_apps.isVisible() and "복사" in page.no_apps.text()
    assert page.no_calls.isVisible() and not page.log.isVisible()
    assert page.network.state.text() == "아직 접근 키가 없습니다."


def test_each_box_changes_the_stored_permission_at_once(mem, backend, qtbot):
    from memoir_desktop.ui.connected_apps.page import ConnectedAppsPage

    connected_apps.seen(mem.engine, "Claude Desktop")
    connected_apps.seen(mem.engine, "Cursor")
    page = ConnectedAppsPage(backend)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: page.loaded and len(page.rows) == 2, timeout=10_000)
    row = page.row("Claude Desktop")

    row.allowed.setChecked(False)  # paused
    qtbot.waitUntil(lambda: not _stored(mem, "Claude Desktop")["allowed"], timeout=10_000)
    row.read_entries.setChecked(True)
    qtbot.waitUntil(lambda: _stored(mem, "Claude Desktop")["read_entries"], timeout=10_000)
    row.write_directly.setChecked(True)
    qtbot.waitUntil(lambda: _stored(mem, "Claude Desktop")["write_directly"], timeout=10_000)
    row.allowed.setChecked(True)
    qtbot.waitUntil(lambda: _stored(mem, "Claude Desktop")["allowed"], timeout=10_000)
    row.read_entries.setChecked(False)
    qtbot.waitUntil(lambda: not _stored(mem, "Claude Desktop")["read_entries"], timeout=10_000)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    assert _stored(mem, "Claude Desktop")["write_directly"]
    # The other app was not touched.
    cursor = _stored(mem, "Cursor")
    assert cursor["allowed"] and not cursor["read_entries"] and not cursor["write_directly"]
    # Shown again, the page shows what is stored.
    page.reload()
    qtbot.waitUntil(lambda: page.loaded, timeout=10_000)
    row = page.row("Claude Desktop")
    assert row.allowed.isChecked() and not row.read_entries.isChecked() and row.write_directly.isChecked()


def test_a_change_that_cannot_be_saved_puts_the_box_back_and_says_so(mem, backend, qtbot):
    from memoir_desktop.ui.connected_apps.app_row import AppRow

    # An app the journal has never seen: the core refuses the change.
    ghost = {"name": "Never connected", "allowed": True, "read_entries": False, "write_directly": False,
             "first_seen": "2026-03-01T10:00:00", "last_seen": "2026-03-01T10:00:00"}
    row = AppRow(backend, ghost)
    qtbot.addWidget(row)
    row.show()
    row.read_entries.setChecked(True)
    qtbot.waitUntil(lambda: row.problem.isVisible(), timeout=10_000)
    assert not row.read_entries.isChecked()
    assert "Error" not in row.problem.text() and "저장하지 못했습니다" in row.problem.text()


def test_the_log_says_what_each_call_did_in_words_newest_first(mem, backend, qtbot):
    from memoir_desktop.ui.connected_apps.page import ConnectedAppsPage

    connected_apps.seen(mem.engine, "Claude Desktop")
    calls = [("search_memories", 3, connected_apps.ANSWERED), ("on_this_day", 0, connected_apps.REFUSED),
             ("get_memory", 0, connected_apps.FAILED), ("recent_entries", 4, connected_apps.ANSWERED),
             ("list_memories", 12, connected_apps.ANSWERED), ("add_memory", 0, connected_apps.ANSWERED),
             ("profile", 9, connected_apps.ANSWERED)]
    for tool, items, outcome in calls:
        connected_apps.log_call(mem.engine, "Claude Desktop", tool, items, outcome)
    page = ConnectedAppsPage(backend)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: page.loaded, timeout=10_000)
    table = page.log
    assert table.isVisible() and not page.no_calls.isVisible()
    rows = [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]
    assert [r[1:] for r in rows] == [
        ["Claude Desktop", "memoir가 아는 나에 대해 읽음", "9", "응답함"],
        ["Claude Desktop", "기억할 내용을 보냄", "0", "응답함"],
        ["Claude Desktop", "기억 목록을 봄", "12", "응답함"],
        ["Claude Desktop", "최근 일기를 읽음", "4", "응답함"],
        ["Claude Desktop", "기억 하나를 읽음", "0", "실패함"],
        ["Claude Desktop", "지난해 오늘을 살펴봄", "0", "거절함"],
        ["Claude Desktop", "기억을 검색함", "3", "응답함"],
    ]
    assert all(r[0] for r in rows)  # a time on every call
    shown = " ".join(" ".join(r) for r in rows)
    assert "_" not in shown and "answered" not in shown  # no tool ids, no untranslated outcomes


@pytest.mark.parametrize("client", app_access.CLIENTS)
def test_copy_puts_the_clients_configuration_on_the_clipboard_and_says_where_it_goes(page, mem, client):
    page.setup.buttons[client].click()
    copied = json.loads(QGuiApplication.clipboard().text())
    servers = copied["servers"] if client == "VS Code" else copied["mcpServers"]
    server = servers["memoir"]
    command = app_access.server_command()
    assert [server["command"], *server["args"]] == command and "mcp" in server["args"]
    # This journal is not in the usual folder: the other app is told where it is.
    assert server["env"] == {"MEMOIR_HOME": str(mem.home)}
    said = page.setup.copied.text()
    assert page.setup.copied.isVisible() and client in said and app_access.CONFIG_PLACES[client] in said


def test_the_usual_journal_folder_is_not_named_in_the_configuration():
    import platformdirs

    from memoir_desktop.ui.connected_apps.client_setup import journal_folder_to_name

    usual = platformdirs.user_data_dir(config.APP_NAME, appauthor=False)
    assert journal_folder_to_name(usual) is None
    assert journal_folder_to_name("/elsewhere/journal") is not None


def test_where_no_keyring_opens_the_journal_the_passphrase_is_said_to_be_needed(qtbot, tmp_path):
    from memoir_desktop.ui.connected_apps.client_setup import ClientSetup

    def setup(encrypted, keyring, lock):
        backend = SimpleNamespace(encrypted=encrypted, keyring_keeps_key=keyring, home=tmp_path,
                                  settings=SimpleNamespace(lock_at_start=lock))
        widget = ClientSetup(backend)
        qtbot.addWidget(widget)
        return widget.passphrase_note

    for note in (setup(True, False, False), setup(True, True, True)):
        assert not note.isHidden() and "암호 문구" in note.text() and "MEMOIR" not in note.text()
    for note in (setup(True, True, False), setup(False, False, False)):
        assert note.isHidden()


def test_a_new_access_key_is_shown_once_works_and_a_second_one_replaces_it(page, mem, backend, qtbot):
    from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton

    network = page.network
    assert not connected_apps.has_app_keys(mem.engine)
    network.new_key_button.click()
    qtbot.waitUntil(lambda: network.key_dialog is not None and network.key_dialog.isVisible(), timeout=10_000)
    first = network.key_dialog.field.text()
    assert connected_apps.app_of_key(mem.engine, first) is not None
    copy = next(b for b in network.key_dialog.findChildren(QPushButton) if b.text() == "복사")
    copy.click()
    assert QGuiApplication.clipboard().text() == first and network.key_dialog.copied.isVisible()
    assert "다시 보여 드리지 않으며" in " ".join(label.text() for label in network.key_dialog.findChildren(QLabel))
    network.key_dialog.accept()
    assert network.state.text().startswith("접근 키가 있습니다")

    # A key exists: a new one replaces it only after a yes.
    network.new_key_button.click()
    box = network.confirm_box
    assert box is not None and box.isVisible()
    box.button(QMessageBox.Cancel).click()
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    assert connected_apps.app_of_key(mem.engine, first) is not None
    network.new_key_button.click()
    make = next(b for b in network.confirm_box.buttons() if b.text() == "새 키 만들기")
    make.click()
    qtbot.waitUntil(lambda: network.key_dialog is not None and network.key_dialog.isVisible()
                    and network.key_dialog.key != first, timeout=10_000)
    second = network.key_dialog.field.text()
    assert connected_apps.app_of_key(mem.engine, second) is not None and connected_apps.app_of_key(mem.engine, first) is None
    network.key_dialog.accept()


def test_the_command_for_network_apps_names_no_folder(page):
    from pathlib import Path

    command = page.network.command.text()
    assert command.endswith("mcp --http 127.0.0.1:8765")
    assert Path(app_access.server_command()[0]).name == command.split()[0]
    assert "/" not in command.split()[0] and "\\" not in command.split()[0]


def test_an_app_named_here_gets_its_own_key_and_the_others_keep_theirs(page, mem, backend, qtbot):
    network = page.network
    network.new_key_button.click()  # the unnamed HTTP app's key
    qtbot.waitUntil(lambda: network.key_dialog is not None and network.key_dialog.isVisible(), timeout=10_000)
    first = network.key_dialog.field.text()
    network.key_dialog.accept()
    network.app_name.setText("Cursor")
    network.new_key_button.click()  # no question: Cursor had no key, and nobody else's is touched
    qtbot.waitUntil(lambda: network.key_dialog is not None and network.key_dialog.isVisible()
                    and network.key_dialog.key != first, timeout=10_000)
    cursor = network.key_dialog.field.text()
    network.key_dialog.accept()
    ids = {connected_apps.app_of_key(mem.engine, k) for k in (first, cursor)}
    assert None not in ids and len(ids) == 2  # two apps, each with its own key
    assert {a["name"] for a in mem.apps.connected_apps()} >= {"Cursor", connected_apps.HTTP_APP}
    assert network.app_name.text() == ""


PASSPHRASE = "correct horse battery"


@pytest.fixture
def passphrase_only(tmp_path, fake_llm, monkeypatch, qtbot):
    """A journal on a computer without a keyring: it opens with its passphrase only."""
    from memoir_desktop.core import Memoir
    from memoir_desktop.core.keys import crypto
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from memoir_desktop.ui.connected_apps.client_setup import ClientSetup

    monkeypatch.setattr(crypto, "keyring_available", lambda: False)
    mem = Memoir.open(tmp_path / "home", passphrase=PASSPHRASE, llm_base_url=fake_llm.url, llm_model="fake")
    mem.add("I keep bees on the roof of my flat", infer=False)
    backend = AsyncMemoir(mem)
    setup = ClientSetup(backend)
    qtbot.addWidget(setup)
    yield mem, setup
    backend.shutdown(10_000)
    mem.close()


def _start_copied(server: dict, tmp_path, body, **fill):
    """Start memoir's server as a client does with the pasted configuration: its command and env only,
    from another folder, with an empty PATH and no keyring. (PYTHONPATH names this worktree's code.)"""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from tests.conftest import ROOT

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    env = {**server.get("env", {}), **fill, "PATH": "", "PYTHONPATH": str(ROOT),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env, cwd=str(elsewhere))

    async def main():
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            return await body(s)

    return anyio.run(main)


def test_the_copied_configuration_starts_memoirs_server_from_anywhere(passphrase_only, tmp_path):
    mem, setup = passphrase_only
    server = json.loads(setup.copy("Claude Desktop"))["mcpServers"]["memoir"]
    assert Path(server["command"]).is_absolute()
    # No keyring keeps the key: the copy carries a place for the passphrase, never the passphrase.
    placeholder = server["env"]["MEMOIR_PASSPHRASE"]
    assert PASSPHRASE not in json.dumps(server) and placeholder in setup.copied.text()
    assert "암호 문구" in setup.copied.text() and "누구나" in setup.copied.text()  # and what keeping it there means

    async def memories(s):
        out = await s.call_tool("list_memories", {})
        return out.is_error, " ".join(c.text for c in out.content) + str(out.structured_content)

    failed, said = _start_copied(server, tmp_path, memories)
    assert failed and placeholder in said and "MEMOIR_PASSPHRASE" in said  # not filled in yet: it says so
    failed, said = _start_copied(server, tmp_path, memories, MEMOIR_PASSPHRASE=PASSPHRASE)
    assert not failed and "bees" in said


def test_a_server_started_without_the_passphrase_says_where_to_give_it(passphrase_only, tmp_path):
    mem, setup = passphrase_only
    server = json.loads(setup.copy("Cursor"))["mcpServers"]["memoir"]
    server.get("env", {}).pop("MEMOIR_PASSPHRASE", None)

    async def memories(s):
        out = await s.call_tool("list_memories", {})
        return out.is_error, " ".join(c.text for c in out.content)

    failed, said = _start_copied(server, tmp_path, memories)
    assert failed and "MEMOIR_PASSPHRASE" in said and '"env"' in said and "keyring" in said
    failed, said = _start_copied(server, tmp_path, memories, MEMOIR_PASSPHRASE="not the passphrase")
    assert failed and "MEMOIR_PASSPHRASE" in said and "does not open" in said
