"""The app's import dialog says what a Day One import did not keep, as memoir-cli does: a diarist
whose starred days and places are dropped unsaid would find out months later."""

from tests.core.test_dayone_stars_and_places import dayone_zip


def test_the_import_dialog_says_stars_and_locations_are_not_kept(window, qtbot, tmp_path):
    dialog = window.import_file()
    dialog.path_edit.setText(str(dayone_zip(tmp_path / "dayone.zip")))
    dialog.start()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=15_000)
    text = dialog.result.text()
    assert dialog.result.isVisible()
    assert "별표한 기록 2편" in text and "별표는 옮겨 오지 않았어요" in text
    assert "위치가 있던 기록 1편" in text and "위치는 옮겨 오지 않았어요" in text
    dialog.close()


def test_the_import_dialog_says_an_earlier_import_was_cut_short(window, mem, qtbot, tmp_path, monkeypatch):
    """An import killed midway (issue 40, 7): the next one, from the app, says how far the first came."""
    from memoir_desktop.core.journal.entries import Journal

    path = dayone_zip(tmp_path / "dayone.zip")
    real = Journal.import_entries

    def killed(self, rows, *, user_id, batch):
        real(self, rows[:1], user_id=user_id, batch=batch)
        raise KeyboardInterrupt  # the process dies after the first entry's transaction

    monkeypatch.setattr(Journal, "import_entries", killed)
    try:
        mem.archive.import_dayone(path)
    except KeyboardInterrupt:
        pass
    monkeypatch.setattr(Journal, "import_entries", real)
    dialog = window.import_file()
    dialog.path_edit.setText(str(path))
    dialog.start()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=15_000)
    assert "중단되었습니다" in dialog.result.text() and "dayone.zip" in dialog.result.text()
    dialog.close()


def test_the_import_dialog_counts_the_photos_and_other_attachments_left_behind(window, qtbot, tmp_path):
    from tests.core.test_dayone_stars_and_places import media_zip

    dialog = window.import_file()
    dialog.path_edit.setText(str(media_zip(tmp_path / "media.zip")))
    dialog.start()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=15_000)
    text = dialog.result.text()
    assert "사진 3장, 영상 1개, 음성 1개, PDF 1개" in text and "가져오지 않았어요" in text
    dialog.close()
