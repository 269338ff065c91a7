"""Every dialog, opened at the size it opens at, in English and in Korean: no word cut off, nothing
outside the window, no sideways scrolling — also after an error line appears."""

from __future__ import annotations

from datetime import datetime

import pytest
from PySide6.QtCore import Qt

from memoir_desktop.ui.shared import i18n
from tests.ui.layout_check import clipped


@pytest.fixture(params=["en", "ko"])
def language(request, qapp):
    i18n.install(request.param)
    yield request.param
    i18n.install("ko")  # the UI tests' language


def _memory(mem) -> dict:
    added = mem.add("동생 지수는 대학교 3학년이다", user_id="me", infer=False)
    mid = added["results"][0]["id"]
    mem.update(mid, "동생 지수는 대학교 4학년이 되었다")
    return mem.get(mid)


def _connected_apps(window, mem, qtbot):
    """Settings → Connected apps with an app that made a few calls (its row and its log shown)."""
    from memoir_desktop.core.apps import connected_apps

    connected_apps.seen(mem.engine, "Claude Desktop")
    for tool, items, outcome in (("search_memories", 5, "answered"), ("on_this_day", 0, "refused")):
        connected_apps.log_call(mem.engine, "Claude Desktop", tool, items, outcome)
    dialog = window.open_settings()
    dialog.show_page(dialog.apps_page)
    qtbot.waitUntil(lambda: dialog.apps_page.loaded and dialog.apps_page.rows
                    and dialog.apps_page.rows[0].isVisibleTo(dialog), timeout=10_000)
    return dialog


def _sync_settings(window):
    """Settings → Sync at its fullest: the passphrase it needs, the WebDAV form, and why a round failed."""
    from memoir_desktop.core.sync import Offline
    from memoir_desktop.ui.sync import words
    from memoir_desktop.ui.sync.address import WEBDAV

    dialog = window.open_settings()
    page = dialog.sync_page
    page.place.kind.setCurrentIndex(page.place.kind.findData(WEBDAV))
    page._said(words.failure(Offline("unreachable"), WEBDAV), failed=True)
    dialog.show_page(page)
    return dialog


def _sync_settings_offering_to_join(window):
    """Settings → Sync when the place holds the diarist's journal and this one is still empty."""
    from memoir_desktop.core.sync import NotThisJournal
    from memoir_desktop.ui.sync import words

    dialog = window.open_settings()
    page = dialog.sync_page
    page.place.folder.setText("/Users/mina/Dropbox/memoir")
    page._said(words.failure(NotThisJournal("another"), "folder"), failed=True)
    page.join_offer.show()
    dialog.show_page(page)
    return dialog


def _join(window, kind: str):
    """The join dialog, as the welcome panel opens it (a folder) or prefilled by Settings → Sync (WebDAV)."""
    from memoir_desktop.ui.sync.join_dialog import JoinDialog

    if kind == "webdav":
        return JoinDialog("webdavs://cloud.example.com/remote.php/dav/files/mina/memoir", ("mina", "secret"), window)
    return JoinDialog(parent=window)


def _dialogs(window, mem, qtbot):
    """(name, a function that opens the dialog the way the app does and returns it)."""
    from memoir_desktop.ui.checks.diagnostics_dialog import DiagnosticsDialog
    from memoir_desktop.ui.connected_apps.network_access import AccessKeyDialog
    from memoir_desktop.ui.journal.entry_dialogs import (
        EntryHistoryDialog,
        MoveEntryDialog,
        PurgeConfirmDialog,
    )
    from memoir_desktop.ui.journal.letter_dialog import LetterDialog
    from memoir_desktop.ui.memories.add_dialog import AddMemoryDialog
    from memoir_desktop.ui.memories.edit_dialog import EditMemoryDialog
    from memoir_desktop.ui.memories.history_dialog import HistoryDialog
    from memoir_desktop.ui.memories.tidy_dialog import TidyDialog
    from memoir_desktop.ui.settings.privacy import PassphraseDialog, RecoveryKeyDialog

    entry = {"id": 1, "content": "오늘은 한강에서 지수와 자전거를 탔다. 바람이 차가웠다.",
             "timestamp": "2026-03-02T21:00:00", "edits": []}
    letter = {"id": 2, "content": "**한 주의 편지**\n\n" + "이번 주에는 한강을 따라 걷고 달린 날이 많았어요. " * 6}
    reason = window.tr("Enter the passphrase of your journal to open it. It is asked for at every start "
                       "because this computer has no system keyring to keep it in.")
    return [
        ("settings", window.open_settings),
        ("export", window.export),
        ("import", window.import_file),
        ("restore backup", window.restore_backup),
        ("diagnostics", lambda: DiagnosticsDialog(window.backend, window)),
        ("passphrase", lambda: PassphraseDialog(reason, parent=window)),
        ("new passphrase", lambda: PassphraseDialog(reason, creating=True, parent=window)),
        ("new journal's passphrase, or join", lambda: PassphraseDialog(reason, creating=True, offer_join=True,
                                                                        parent=window)),
        ("join a journal: a folder", lambda: _join(window, "folder")),
        ("join a journal: WebDAV", lambda: _join(window, "webdav")),
        ("recovery key", lambda: RecoveryKeyDialog("ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ23-4567", window)),
        ("add memory", lambda: AddMemoryDialog(lambda *a: None, parent=window)),
        ("edit memory", lambda: EditMemoryDialog(_memory(mem), parent=window)),
        ("memory history", lambda: HistoryDialog(_memory(mem), window)),
        ("move entry", lambda: MoveEntryDialog(datetime(2026, 3, 2, 21, 0), window)),
        ("entry history", lambda: EntryHistoryDialog(entry, window)),
        ("purge entry", lambda: PurgeConfirmDialog({"text": entry["content"], "memories": ["동생 지수"]}, window)),
        ("letter", lambda: LetterDialog(window.backend, letter, window)),
        ("tidy memories", lambda: TidyDialog(window.backend, window)),
        ("settings: connected apps", lambda: _connected_apps(window, mem, qtbot)),
        ("settings: sync", lambda: _sync_settings(window)),
        ("settings: sync, the journal kept there offered", lambda: _sync_settings_offering_to_join(window)),
        ("new access key", lambda: AccessKeyDialog("Jx3kQ9_vR2mWb7LpT5nYc8Hs4dFg6KaZ1eUo0iXqB2w", window)),
    ]


def _settle(qtbot, dialog) -> None:
    if not dialog.isVisible():
        dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.wait(50)  # layouts that grow after showing (a wrapped label's height) have grown


def test_every_dialog_shows_all_its_words_at_its_default_size(window, mem, qtbot, language):
    found = {}
    for name, open_dialog in _dialogs(window, mem, qtbot):
        dialog = open_dialog()
        if not dialog.testAttribute(Qt.WidgetAttribute.WA_DeleteOnClose):
            qtbot.addWidget(dialog)
        _settle(qtbot, dialog)
        problems = clipped(dialog)
        if hasattr(dialog, "show_error"):
            # An error line appears under the explanation: neither may be cut.
            dialog.show_error(dialog.tr("The passphrase is not right. Try again, or use your recovery key."))
            qtbot.wait(50)
            problems += [f"after an error: {p}" for p in clipped(dialog)]
        if problems:
            found[name] = problems
        dialog.reject()
    assert found == {}, "\n".join(f"{name} ({language}): {p}" for name, ps in found.items() for p in ps)
