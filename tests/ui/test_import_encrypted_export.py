"""File → Import brings back what File → Export encrypted wrote: the dialog offers `.memoir` files,
asks for the export's passphrase, and a wrong one is said plainly and can be tried again."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QLineEdit

from memoir_desktop.core import Memoir

PASSPHRASE = "sea and mountains"
WRITTEN = {"첫날: 바다를 보았다", "둘째 날: 산에 올랐다"}


def encrypted_export(tmp_path):
    """An encrypted export made in another journal: two entries on two days."""
    other = Memoir.open(tmp_path / "other", llm_base_url=None)
    try:
        other.journal.write("첫날: 바다를 보았다", timestamp=datetime(2025, 7, 1, 9))
        other.journal.write("둘째 날: 산에 올랐다", timestamp=datetime(2025, 7, 2, 9))
        path = tmp_path / "journal.memoir"
        other.archive.export(path, passphrase=PASSPHRASE)
        return path
    finally:
        other.close()


def answer_passphrase(passphrase: str, asked: list) -> None:
    """Fill in and accept the passphrase question that is about to block in exec()."""
    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)
            return
        asked.append((dialog.labelText(), dialog.textEchoMode()))
        dialog.setTextValue(passphrase)
        dialog.accept()

    QTimer.singleShot(0, answer)


def press_import(dialog, qtbot, passphrase: str) -> list:
    asked: list = []
    dialog.outcome = None
    dialog.error_text = ""
    answer_passphrase(passphrase, asked)
    qtbot.mouseClick(dialog.import_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.outcome is not None or bool(dialog.error_text), timeout=15_000)
    assert asked, "the export's passphrase was not asked for"
    assert asked[0][1] == QLineEdit.Password
    return asked


def entry_contents(backend) -> set[str]:
    return {e["content"] for e in backend.mem.journal.entries()}


def test_the_import_dialog_offers_encrypted_exports(window, monkeypatch):
    filters = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *args, **kwargs: (filters.append(args[3] if len(args) > 3 else kwargs.get("filter")),
                                                 ("", ""))[1])
    dialog = window.import_file()
    dialog.choose()
    assert filters and "*.memoir" in filters[0]
    dialog.close()


def test_an_encrypted_export_imports_through_the_dialog_with_its_passphrase(window, backend, qtbot, tmp_path):
    path = encrypted_export(tmp_path)
    dialog = window.import_file()
    dialog.path_edit.setText(str(path))

    press_import(dialog, qtbot, PASSPHRASE)

    assert dialog.outcome is not None, dialog.error_text
    assert dialog.outcome["kind"] == "memoir" and dialog.outcome["entries"] == 2
    assert WRITTEN <= entry_contents(backend)
    dialog.close()


def test_a_wrong_passphrase_is_said_plainly_and_can_be_tried_again(window, backend, qtbot, tmp_path):
    path = encrypted_export(tmp_path)
    dialog = window.import_file()
    dialog.path_edit.setText(str(path))

    press_import(dialog, qtbot, "not the passphrase")

    assert dialog.outcome is None
    assert dialog.error_text == dialog.tr("That passphrase does not open ‘{name}’; try again.").format(
        name=path.name)
    assert dialog.result.isVisible() and dialog.result.text() == dialog.error_text
    assert not WRITTEN & entry_contents(backend)  # nothing came in, nothing was lost
    assert dialog.import_button.isEnabled() and dialog.path_edit.text() == str(path)

    press_import(dialog, qtbot, PASSPHRASE)

    assert dialog.outcome is not None, dialog.error_text
    assert WRITTEN <= entry_contents(backend)
    dialog.close()


def test_declining_the_passphrase_imports_nothing_and_keeps_the_file(window, backend, qtbot, tmp_path):
    path = encrypted_export(tmp_path)
    dialog = window.import_file()
    dialog.path_edit.setText(str(path))

    def decline() -> None:
        question = QApplication.activeModalWidget()
        if not isinstance(question, QInputDialog):
            QTimer.singleShot(20, decline)
            return
        question.reject()

    QTimer.singleShot(0, decline)
    qtbot.mouseClick(dialog.import_button, Qt.LeftButton)
    qtbot.wait(100)
    assert dialog.outcome is None and not dialog.error_text
    assert dialog.import_button.isEnabled() and dialog.path_edit.text() == str(path)
    assert not WRITTEN & entry_contents(backend)
    dialog.close()
