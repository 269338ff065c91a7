"""The composer saves the entry as typed: indentation and the blank lines at its ends kept."""

from PySide6.QtCore import Qt

POEM = "  별 헤는 밤\n\n    가을로 가득 차 있습니다.\n"


def test_the_composer_keeps_a_poems_indentation(window, mem, qtbot):
    edit = window.journal.composer.edit
    edit.setFocus()
    edit.setPlainText(POEM)
    qtbot.keyClick(edit, Qt.Key_Return, Qt.ControlModifier)  # save without asking the companion
    qtbot.waitUntil(lambda: bool(mem.journal.entries()), timeout=10_000)
    assert [e["content"] for e in mem.journal.entries()] == [POEM]
    assert edit.toPlainText() == ""


def test_the_private_box_is_for_one_entry(window, mem, qtbot):
    composer = window.journal.composer
    composer.private.setChecked(True)
    composer.edit.setPlainText("혼자만 알고 싶은 이야기")
    qtbot.keyClick(composer.edit, Qt.Key_Return)  # a private entry: Enter saves it
    qtbot.waitUntil(lambda: bool(mem.journal.entries()), timeout=10_000)
    assert mem.journal.entries()[0]["private"]
    assert not composer.private.isChecked()  # the next entry is not private unless chosen again
