"""Start-up window → main window, shortcuts, accessible icon buttons, language switch, shut-down."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton

from memoir_desktop.core import config
from memoir_desktop.ui import i18n
from memoir_desktop.ui.lifecycle import AppLifecycle


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
        qtbot.waitUntil(lambda: window.status.llm_state is True, timeout=10_000)  # the ping reached the server

        # Every button without text (an icon button) has an accessible name.
        unnamed = [b for b in window.findChildren(QAbstractButton) if not b.text() and not b.accessibleName()
                   and b.isVisibleTo(window) and b.objectName() != "qt_calendar_prevmonth"
                   and b.objectName() != "qt_calendar_nextmonth"]
        assert unnamed == []

        window.activateWindow()
        qtbot.waitUntil(lambda: qapp.activeWindow() is window, timeout=5_000)
        qtbot.keyClick(window, Qt.Key_F, Qt.ControlModifier)
        assert window.tabs.currentWidget() is window.memories and window.memories.search_box.hasFocus()
        qtbot.keyClick(window, Qt.Key_N, Qt.ControlModifier)
        assert window.tabs.currentWidget() is window.journal
        qtbot.keyClick(window, Qt.Key_Comma, Qt.ControlModifier)
        dialog = window.settings_dialog
        qtbot.waitUntil(lambda: dialog.isVisible(), timeout=5_000)

        dialog.language.setCurrentIndex(dialog.language.findData("en"))
        with qtbot.waitSignal(dialog.accepted, timeout=10_000):
            dialog.accept()
        qtbot.waitUntil(lambda: lifecycle.window is not window, timeout=5_000)
        assert lifecycle.window.tabs.tabText(0) == "Journal" and lifecycle.window.isVisible()
    finally:
        i18n.install("ko")
        if lifecycle.window is not None:
            lifecycle.window.close()
        assert lifecycle.shutdown()
