"""UI test setup: isolated QSettings, Korean UI, the Korean analyser loaded once, fresh keyring."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, QStandardPaths


@pytest.fixture(scope="session", autouse=True)
def _ui_session(qapp):
    # QSettings and other standard paths go to a test location, never the user's.
    QStandardPaths.setTestModeEnabled(True)
    from memoir_desktop.core import lexical
    from memoir_desktop.ui.shared import i18n
    from memoir_desktop.ui.shared.theme import apply_theme

    i18n.install("ko")
    apply_theme(qapp, "light")
    # Kiwi holds the GIL for seconds while it loads; the app does this behind its startup
    # window, so the tests do it once up front too (else it would land inside a timing test).
    lexical.warm_up()
    from memoir_desktop.ui.shared.qt_compat import MainThreadCollector

    collector = MainThreadCollector()  # as the app: cycles of widgets are freed on the UI thread
    yield
    collector.stop()


@pytest.fixture(autouse=True)
def _fresh_keyring():
    from memoir_desktop.core.keys import secrets
    from tests.fakes.memory_keyring import MemoryKeyring

    MemoryKeyring._store.clear()
    secrets._session_key = None
    yield
    MemoryKeyring._store.clear()
    secrets._session_key = None


@pytest.fixture
def backend(mem, qtbot):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    b = AsyncMemoir(mem)
    yield b
    b.shutdown(10_000)


def make_window(backend, qtbot, tmp_path, size=(1100, 720), wait: bool = True):
    from memoir_desktop.ui.main_window import MainWindow

    ui_state = QSettings(str(tmp_path / "ui-state.ini"), QSettings.IniFormat)
    window = MainWindow(backend, ui_state=ui_state)
    qtbot.addWidget(window)
    if size:
        window.resize(*size)
    window.show()
    window.start()
    if wait:
        qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    return window


@pytest.fixture
def window(backend, qtbot, tmp_path):
    return make_window(backend, qtbot, tmp_path)


def pytest_terminal_summary(terminalreporter):
    """The accessibility walk's table of pages × checks (test_accessibility_walk.py), when it ran."""
    import sys

    walk = sys.modules.get("tests.ui.test_accessibility_walk")
    if walk is None or not walk.RESULTS:
        return
    from tests.ui.a11y_walk import table

    terminalreporter.write_sep("=", "accessibility walk: pages × checks (✓, or ✗ and the number of problems)")
    terminalreporter.write_line(table(walk.RESULTS))
