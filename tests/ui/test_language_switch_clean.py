"""Switching the language rebuilds the window; nothing of the old window may still answer signals
(a lambda connected to the backend outlives the widget it closes over: "Internal C++ object already
deleted"), and the switch prints no Qt warning or traceback."""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QtMsgType, qInstallMessageHandler

from memoir_desktop.core import Memoir, config
from memoir_desktop.ui.shared import i18n
from memoir_desktop.ui.startup.lifecycle import AppLifecycle

NOISE = ("propagateSizeHints",)  # the offscreen platform's own note, not the app's


def _pump(qapp, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        qapp.processEvents()
        time.sleep(0.01)


def test_switching_language_leaves_no_warning_or_traceback(qapp, qtbot, tmp_path, fake_llm, monkeypatch):
    home = tmp_path / "home"
    with Memoir.open(home, llm_base_url=fake_llm.url, llm_model="fake-model") as m:
        for text in ("오늘 지수랑 부산에 갔다", "고양이 보리가 아팠다"):
            m.journal.write(text)
        m.add("지수는 부산에 산다", infer=False)
    config.save_settings(home, config.Settings(llm_provider="custom", llm_base_url=fake_llm.url,
                                               llm_model="fake-model"))
    messages: list[str] = []
    tracebacks: list[str] = []
    previous = qInstallMessageHandler(lambda kind, _ctx, text: messages.append(text)
                                      if kind != QtMsgType.QtDebugMsg and not any(n in text for n in NOISE)
                                      else None)
    import traceback as _tb
    monkeypatch.setattr(sys, "excepthook", lambda kind, exc, tb: tracebacks.append(f"{kind.__name__}: {exc} @ " + " < ".join(f"{f.filename.split('/')[-1]}:{f.lineno}:{f.name}" for f in reversed(_tb.extract_tb(tb)))))
    monkeypatch.setattr(sys, "unraisablehook", lambda u: tracebacks.append(f"unraisable: {u.exc_value}"))
    lifecycle = AppLifecycle(qapp, home)
    lifecycle.start()
    try:
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=30_000)
        for language in ("en", "ko", "en"):
            window = lifecycle.window
            for i in range(window.tabs.count()):  # every page built and shown once
                window.tabs.setCurrentIndex(i)
                _pump(qapp, 0.5)
            dialog = window.open_settings()
            qtbot.waitUntil(dialog.isVisible, timeout=10_000)
            dialog.language.setCurrentIndex(dialog.language.findData(language))
            dialog.accept()
            qtbot.waitUntil(lambda w=window: lifecycle.window is not w, timeout=15_000)
            # What the old window listened to keeps happening: a change, the status, the server's state.
            lifecycle.backend.change(lambda m: m.journal.write("바꾼 뒤에 쓴 글"))
            lifecycle.backend.refresh_status()
            lifecycle.backend.check_llm()
            _pump(qapp, 2.0)
        assert lifecycle.window.tabs.tabText(0) == "Journal"
        assert tracebacks == [] and messages == [], (tracebacks, messages)
    finally:
        qInstallMessageHandler(previous)
        i18n.install("ko")
        if lifecycle.window is not None:
            lifecycle.window.close()
        lifecycle.shutdown()


def test_no_page_ties_a_lambda_to_the_backend_for_longer_than_it_lives():
    """The backend outlives every window: what a page connects to it with a lambda goes through
    qt_compat.listen, which lets go when the page does (the language switch above shows why)."""
    import re
    from pathlib import Path

    ui = Path(__file__).resolve().parents[2] / "memoir_desktop" / "ui"
    offenders = [f"{p.relative_to(ui)}:{n}" for p in ui.rglob("*.py")
                 for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
                 if re.search(r"backend\.\w+\.connect\(\s*lambda", line) and "lifecycle.py" not in p.name]
    assert offenders == []
