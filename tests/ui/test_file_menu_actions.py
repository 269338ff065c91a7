"""The File and Help menus driven as a diarist drives them: through their menu actions (whose
`triggered(bool)` must not reach the slot as an argument), the real dialogs, and a desktop that may
have no file manager to open."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox

from memoir_desktop.core import Memoir
from memoir_desktop.ui.files.file_dialogs import ExportDialog, ImportDialog
from memoir_desktop.ui.shared.folders import documents_folder
from tests.fakes.fake_llm import tool
from tests.ui.test_search_and_files import dayone_entries, dayone_zip


def menu_action(window, text: str):
    """The action of the window's menus whose text (without its & mnemonic) is `text`."""
    wanted = window.tr(text).replace("&", "")
    for menu in window.menuBar().findChildren(QMenu):
        for action in menu.actions():
            if action.text().replace("&", "") == wanted:
                return action
    raise AssertionError(f"no menu action {text!r}")


def answer_passphrase(passphrase: str) -> None:
    """Fill in and accept the passphrase dialog that is about to block in exec()."""
    def answer() -> None:
        from memoir_desktop.ui.settings.privacy import PassphraseDialog

        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PassphraseDialog):
            QTimer.singleShot(20, answer)
            return
        dialog.field.setText(passphrase)
        dialog.confirm.setText(passphrase)
        dialog.accept()

    QTimer.singleShot(0, answer)


def imported_contents(tmp_path, path, passphrase: str | None = None) -> set[str]:
    fresh = Memoir.open(tmp_path / "fresh", llm_base_url=None)
    try:
        out = fresh.archive.import_file(path, passphrase=passphrase)
        assert out["kind"] == "memoir"
        return {e["content"] for e in fresh.journal.entries()}
    finally:
        fresh.close()


WRITTEN = {"첫날: 바다를 보았다", "둘째 날: 산에 올랐다"}


def write_two_days(mem, fake_llm):
    fake_llm.on("save_facts", lambda req: tool({"facts": []}))
    mem.journal.write("첫날: 바다를 보았다", timestamp=datetime(2026, 3, 1, 9))
    mem.journal.write("둘째 날: 산에 올랐다", timestamp=datetime(2026, 3, 2, 9))


# -- export -------------------------------------------------------------------------------------------


def test_file_export_encrypted_menu_asks_where_and_writes_a_file_that_imports_back(
        window, mem, fake_llm, qtbot, tmp_path, monkeypatch):
    write_two_days(mem, fake_llm)
    target = tmp_path / "out" / "journal.memoir"
    target.parent.mkdir()
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *args, **kwargs: (asked.append(args), (str(target), ""))[1])
    answer_passphrase("sea and mountains")

    menu_action(window, "Export e&ncrypted…").trigger()

    assert asked, "no file chooser was opened"
    # The chooser opens in the documents folder, never the folder memoir was started from.
    suggested = Path(asked[0][2])
    assert suggested.parent == documents_folder() and suggested.suffix == ".memoir", suggested
    qtbot.waitUntil(lambda: target.exists() and target.stat().st_size > 0, timeout=15_000)
    qtbot.waitUntil(lambda: target.name in window.status.currentMessage(), timeout=15_000)
    assert imported_contents(tmp_path, target, "sea and mountains") == WRITTEN


def test_file_export_menu_opens_the_dialog_and_its_file_imports_back(window, mem, fake_llm, qtbot, tmp_path,
                                                                     monkeypatch):
    write_two_days(mem, fake_llm)
    target = tmp_path / "out" / "backup.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))

    menu_action(window, "&Export…").trigger()

    dialog = window.file_dialog
    assert isinstance(dialog, ExportDialog) and dialog.isVisible()
    qtbot.mouseClick(dialog.choose_button, Qt.LeftButton)
    assert dialog.path_edit.text() == str(target)
    qtbot.mouseClick(dialog.export_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: bool(dialog.written), timeout=15_000)
    assert dialog.written == [str(target)]
    assert imported_contents(tmp_path, target) == WRITTEN
    dialog.close()


# -- import -------------------------------------------------------------------------------------------


def backup_with_memories(tmp_path):
    """A memoir backup made in another journal: two entries on two days, two memories."""
    other = Memoir.open(tmp_path / "other", llm_base_url=None)
    try:
        other.journal.write("첫날: 바다를 보았다", timestamp=datetime(2025, 7, 1, 9))
        other.journal.write("둘째 날: 산에 올랐다", timestamp=datetime(2025, 7, 2, 9))
        other.add("바다를 좋아한다", infer=False)
        other.add("등산을 즐긴다", infer=False)
        path = tmp_path / "backup.json"
        other.archive.export(path)
        return path
    finally:
        other.close()


def import_through_the_dialog(window, qtbot, path):
    dialog = window.import_file()
    dialog.path_edit.setText(str(path))
    qtbot.mouseClick(dialog.import_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.outcome is not None or bool(dialog.error_text), timeout=15_000)
    assert dialog.outcome is not None, dialog.error_text
    return dialog


def test_a_memoir_backup_import_shows_its_memories_and_its_days_at_once(window, backend, qtbot, tmp_path):
    window.tabs.setCurrentWidget(window.memories)  # the Memories page was shown before the import
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    assert window.memories.memories == []
    path = backup_with_memories(tmp_path)

    dialog = import_through_the_dialog(window, qtbot, path)

    assert dialog.outcome["kind"] == "memoir" and dialog.outcome["memories"] == 2
    qtbot.waitUntil(lambda: {date(2025, 7, 1), date(2025, 7, 2)} <= set(window.journal.navigator._days),
                    timeout=10_000)
    qtbot.waitUntil(lambda: len(window.memories.memories) == 2, timeout=10_000)
    assert window.memories.tr("%n remembered", None, 2) in window.memories.count_label.text()
    dialog.close()


def test_a_memoir_backup_import_reaches_a_memories_page_shown_later(window, backend, qtbot, tmp_path):
    window.tabs.setCurrentWidget(window.memories)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    window.tabs.setCurrentWidget(window.journal)  # the page was loaded, then hidden
    dialog = import_through_the_dialog(window, qtbot, backup_with_memories(tmp_path))
    dialog.close()
    window.tabs.setCurrentWidget(window.memories)
    qtbot.waitUntil(lambda: len(window.memories.memories) == 2, timeout=10_000)


def test_a_dayone_import_puts_its_days_in_the_day_list(window, backend, qtbot, tmp_path):
    path = dayone_zip(tmp_path / "dayone.zip", dayone_entries(3))
    dialog = import_through_the_dialog(window, qtbot, path)
    assert dialog.outcome["kind"] == "dayone" and dialog.outcome["entries"] == 3
    qtbot.waitUntil(lambda: {date(2023, 5, d) for d in (1, 2, 3)} <= set(window.journal.navigator._days),
                    timeout=10_000)
    dialog.close()


def test_the_memories_made_from_a_dayone_import_reach_the_memories_page(window, backend, fake_llm, qtbot,
                                                                        tmp_path):
    fake_llm.on("save_facts", lambda req: tool({"facts": ["바닷가를 걷는 것을 좋아한다"]}))
    window.tabs.setCurrentWidget(window.memories)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    dialog = import_through_the_dialog(window, qtbot, dayone_zip(tmp_path / "dayone.zip", dayone_entries(2)))
    panel = window.batch_panels[0]
    qtbot.waitUntil(lambda: panel.state == "done", timeout=30_000)
    qtbot.waitUntil(lambda: len(window.memories.memories) >= 1, timeout=10_000)
    count = len([m for m in window.memories.memories if m.get("state", "active") == "active"])
    assert window.memories.tr("%n remembered", None, count) in window.memories.count_label.text()
    dialog.close()


# -- a desktop without a file window ----------------------------------------------------------------------


def no_file_window(monkeypatch, opened: list | None = None, works: bool = False):
    """QDesktopServices.openUrl as on a desktop with no file manager (it answers False)."""
    from PySide6.QtGui import QDesktopServices

    def open_url(url):
        if opened is not None:
            opened.append(url.toLocalFile())
        return works

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(open_url))


def the_box_says(box, place) -> None:
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert str(place) in box.text() + "\n" + box.informativeText()
    assert box.textInteractionFlags() & Qt.TextSelectableByMouse
    for word in ("Error", "URL", "QDesktop", "openUrl"):
        assert word not in box.text() + box.informativeText()


def test_show_in_folder_says_where_the_export_is_when_no_file_window_opens(window, mem, fake_llm, qtbot,
                                                                           tmp_path, monkeypatch):
    write_two_days(mem, fake_llm)
    opened: list[str] = []
    no_file_window(monkeypatch, opened)
    dialog = window.export()
    target = tmp_path / "out" / "backup.json"
    dialog.path_edit.setText(str(target))
    qtbot.mouseClick(dialog.export_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.show_button.isVisible(), timeout=15_000)

    qtbot.mouseClick(dialog.show_button, Qt.LeftButton)

    assert opened == [str(target.parent)]  # it tried the file window first
    box = dialog.where_box
    the_box_says(box, target)
    qtbot.mouseClick(box.copy_button, Qt.LeftButton)
    assert QApplication.clipboard().text() == str(target)
    dialog.close()


def test_open_data_folder_says_where_the_journal_is_when_no_file_window_opens(window, backend, qtbot,
                                                                              monkeypatch):
    opened: list[str] = []
    no_file_window(monkeypatch, opened)
    menu_action(window, "Open &data folder").trigger()
    assert opened == [str(backend.home)]
    the_box_says(window.last_message_box, backend.home)
    window.last_message_box.close()


def test_where_a_file_window_opens_nothing_more_is_said(window, backend, qtbot, monkeypatch):
    no_file_window(monkeypatch, works=True)
    window.last_message_box = None
    menu_action(window, "Open &data folder").trigger()
    assert window.last_message_box is None


def test_the_export_and_import_dialogs_show_the_whole_path(window, backend, qtbot):
    """The path is read whole, the file's name at its end included (the dialogs opened 301 px wide,
    the path cut to 'ments/memoir-…json'); one longer than the screen allows shows its end."""
    deep = Path("/home/minji/Documents/Journals and letters/2026")
    export = ExportDialog(backend, window, folder=deep)
    importing = ImportDialog(backend, window)
    importing.path_edit.setText(str(deep / "memoir-2026-12-06.json"))
    for dialog in (export, importing):
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        QApplication.processEvents()
        edit = dialog.path_edit
        text = edit.text()
        assert text.endswith(".json")
        shown = edit.width() - 12  # the frame and the text margins
        assert edit.fontMetrics().horizontalAdvance(text) <= shown, (dialog.windowTitle(), edit.width(), text)
        assert dialog.frameGeometry().width() <= dialog.screen().availableGeometry().width()
    very_long = str(deep / ("a folder with a very long name " * 6) / "memoir-2026-12-06.json")
    importing.path_edit.setText(very_long)
    QApplication.processEvents()
    assert importing.path_edit.cursorPosition() == len(very_long)  # the file's name is what shows
    assert importing.frameGeometry().width() <= importing.screen().availableGeometry().width()
