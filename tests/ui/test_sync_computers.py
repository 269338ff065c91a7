"""Settings → Sync under attack (issue 40): "Your computers" with "Remove this computer…" for a lost one,
what a round could not verify said on the page and in the status bar, and the new passphrase typed here
after it was changed on another computer."""

from __future__ import annotations

import pytest

from memoir_desktop.core import sync
from tests.ui.sync_homes import PASS, join, open_journal, texts

NEW_PASS = "the passphrase after the theft"


@pytest.fixture
def mem(tmp_path):
    m = open_journal(tmp_path / "laptop")
    yield m
    m.close()


@pytest.fixture
def folder(tmp_path):
    place = tmp_path / "Dropbox" / "memoir"
    place.mkdir(parents=True)
    return place


def _sync_page(window, qtbot):
    dialog = window.open_settings()
    page = dialog.sync_page
    dialog.show_page(page)
    qtbot.waitUntil(lambda: page.login_loaded and page.isVisible(), timeout=60_000)
    return dialog, page


def test_a_lost_computer_is_removed_from_settings_and_reads_nothing_after(window, mem, folder, tmp_path, qtbot):
    mem.journal.write("before the laptop was lost")
    mem.sync.run(str(folder))
    lost = join(str(folder), tmp_path / "lost laptop")
    try:
        mem.sync.run()
        lost_id = lost.sync.status().device
        dialog, page = _sync_page(window, qtbot)
        box = page.computers
        qtbot.waitUntil(lambda: lost_id in box.rows, timeout=30_000)
        assert box.title() == "내 컴퓨터"
        box.rows[lost_id].click()
        remove = box.dialog
        assert remove is not None and remove.isVisible() and not remove.remove_button.isEnabled()
        assert "이미 받은 내용" in " ".join(w.text() for w in remove.findChildren(type(box.said)))
        remove.passphrase.setText(PASS)
        remove.remove_button.click()
        qtbot.waitUntil(lambda: box.said.isVisible(), timeout=60_000)
        assert "제거했습니다" in box.said.text()
        qtbot.waitUntil(lambda: lost_id not in box.rows, timeout=30_000)  # listed as removed, no button
        dialog.reject()
        mem.journal.write("after: the spare key is with Hana")
        mem.sync.run()
        with pytest.raises(sync.Removed):
            lost.sync.run()
        assert "after: the spare key is with Hana" not in texts(lost)
    finally:
        lost.close()


def test_a_round_that_skipped_a_file_says_so_on_the_page_and_in_the_status_bar(window, mem, folder, qtbot):
    mem.sync.run(str(folder))
    (folder / "notes.txt").write_text("not memoir's")
    dialog, page = _sync_page(window, qtbot)
    page.place.folder.setText(str(folder))
    page.sync_now()
    qtbot.waitUntil(lambda: page.sync.last_report is not None and not page.sync.running, timeout=60_000)
    qtbot.waitUntil(page.failure.isVisible, timeout=10_000)
    assert "파일" in page.failure.text()
    label = window.sync_label
    label.render()
    assert "확인이 필요한" in label.text()
    dialog.reject()


def test_the_new_passphrase_is_asked_for_after_it_changed_on_another_computer(window, mem, folder, tmp_path, qtbot):
    mem.journal.write("written on the laptop")
    mem.sync.run(str(folder))
    desk = join(str(folder), tmp_path / "desk")
    try:
        desk.keys.set_passphrase(NEW_PASS, current=PASS)
        desk.journal.write("written after the passphrase changed")
        desk.sync.run()
    finally:
        desk.close()
    dialog, page = _sync_page(window, qtbot)
    page.place.folder.setText(str(folder))
    page.sync_now()
    qtbot.waitUntil(lambda: not page.new_passphrase_box.isHidden(), timeout=60_000)
    assert "새 암호 문구" in page.failure.text()
    page.new_passphrase.setText(NEW_PASS)
    page.new_passphrase_button.click()
    qtbot.waitUntil(lambda: "written after the passphrase changed" in texts(mem), timeout=60_000)
    qtbot.waitUntil(page.new_passphrase_box.isHidden, timeout=10_000)
    assert mem.keys.check_passphrase(NEW_PASS) and not mem.keys.check_passphrase(PASS)
    dialog.reject()
