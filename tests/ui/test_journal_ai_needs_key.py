"""A computer that took the journal's AI settings from another one (core/llm/shared_settings.py) and has
no key for that AI says so on the journal page, naming the model, with a button to type the key; an
entry's job says why it waits."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton

from memoir_desktop.core import Memoir, config
from memoir_desktop.core.llm import shared_settings
from memoir_desktop.ui.journal.welcome_panel import NoLLMBanner
from memoir_desktop.ui.shared import llm_words
from tests.ui.conftest import make_window


def test_the_journal_page_asks_for_the_key_of_the_journals_ai(qtbot, tmp_path):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    home = tmp_path / "home"
    settings = config.Settings(llm_base_url="https://llm.example.test/v1", llm_model="writer-large",
                               extra={shared_settings.FOLLOWS: True})
    home.mkdir()
    config.save_settings(home, settings)
    mem = Memoir.open(home, passphrase="a long journal passphrase")
    backend = AsyncMemoir(mem)
    try:
        mem.journal.write("Packed for Busan")
        window = make_window(backend, qtbot, tmp_path)
        qtbot.waitUntil(lambda: window.journal.findChild(NoLLMBanner) is not None, timeout=10_000)
        banner = window.journal.findChild(NoLLMBanner)
        said = " ".join(label.text() for label in banner.findChildren(QLabel))
        assert "writer-large" in said and "API" in said, said
        (button,) = banner.findChildren(QPushButton)
        assert button.text() == "키 입력…"
        job = next(j for j in mem.jobs.all("pending") if j["kind"] == "memorize")
        assert job["reason"]["kind"] == "needs_key"
        assert "API 키" in llm_words.problem(job["reason"]["kind"])
    finally:
        backend.shutdown(10_000)
        mem.close()
