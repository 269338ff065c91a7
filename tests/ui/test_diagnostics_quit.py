"""Help → Diagnostics opened, closed, then the journal used and the window closed: nothing of the
dialog is left to be called (a deleted dialog's method raised "DiagnosticsDialog already deleted")."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QMenu

from memoir_desktop.ui.journal import turns
from tests.fakes.fake_llm import tool


def diagnostics_action(window):
    wanted = window.tr("&Diagnostics…")
    for menu in window.menuBar().findChildren(QMenu):
        for action in menu.actions():
            if action.text() == wanted:
                return action
    raise AssertionError("no Diagnostics action in the menus")


def test_closing_diagnostics_then_writing_and_quitting_raises_nothing(window, backend, mem, fake_llm, qtbot):
    fake_llm.on("save_facts", lambda req: tool({"facts": []}))
    diagnostics_action(window).trigger()
    dialog = window.file_dialog
    assert dialog.isVisible()
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    dialog.close()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)  # WA_DeleteOnClose: it is gone now
    qtbot.wait(50)

    finished = []
    backend.job_finished.connect(lambda job: finished.append(job))
    turns.save_entry(backend, "오늘은 바다를 보았다")
    qtbot.waitUntil(lambda: bool(finished) and backend.idle, timeout=15_000)
    qtbot.wait(50)
    window.close()
    qtbot.wait(50)


def test_quitting_with_diagnostics_open_while_a_job_runs_raises_nothing(window, backend, mem, fake_llm, qtbot):
    fake_llm.on("save_facts", lambda req: tool({"facts": []}))
    diagnostics_action(window).trigger()
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    finished = []
    backend.job_finished.connect(lambda job: finished.append(job))
    turns.save_entry(backend, "오늘은 산에 올랐다")
    window.close()  # closes the dialog too (it is deleted on close)
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    qtbot.waitUntil(lambda: bool(finished) and backend.idle, timeout=15_000)
    qtbot.wait(50)
