"""A local model server as the diarist meets it: Settings' connection test says how it answers, how fast,
and how long an entry will take, step by step; an entry waiting on a server that is down says so under
it, naming the server and since when (it said only "waiting for the AI to connect")."""

from __future__ import annotations

import socket

import pytest

from memoir_desktop.core import Memoir
from tests.fakes.fake_llm import FakeLLM
from tests.ui.conftest import make_window


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def slow_llm():
    server = FakeLLM(token_delay=0.02)  # streamed word by word, like a small local model
    yield server
    server.close()


def test_the_connection_test_shows_its_steps_the_speed_and_the_time_an_entry_takes(window, qtbot, slow_llm):
    dialog = window.open_settings()
    dialog.provider.setCurrentIndex(dialog.provider.findData("custom"))
    dialog.base_url.setText(slow_llm.url)
    dialog.model.setCurrentText("fake-model")
    dialog.time_limit.setValue(120)
    seen: list[str] = []
    dialog.test_result.setText("")
    dialog.test_step.connect(lambda _text: seen.append(dialog.test_result.text()))
    dialog.test_connection()
    qtbot.waitUntil(lambda: "✓" in dialog.test_result.text(), timeout=30_000)
    shown = dialog.test_result.text()
    assert "1초에 글 조각" in shown and "기록 하나를 기억하는 데" in shown, shown
    assert any("알아보는 중" in s or "재는 중" in s for s in seen), seen  # the steps were shown meanwhile
    assert dialog.settings().llm_timeout_s == 120
    dialog.reject()


def test_an_entry_waiting_on_a_server_that_is_down_says_so_under_it(tmp_path, qtbot):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    port = _closed_port()
    mem = Memoir.open(tmp_path / "home", llm_base_url=f"http://127.0.0.1:{port}/v1", llm_model="m",
                      llm_max_retries=0)
    backend = AsyncMemoir(mem)
    try:
        window = make_window(backend, qtbot, tmp_path)
        mem.journal.write("오늘은 바다를 보러 갔다")
        backend.writer.poke()
        window.journal.show_day(window.journal.day)
        qtbot.waitUntil(lambda: not mem.jobs.all("pending") or mem.jobs.all("pending")[0]["reason"]["kind"]
                        == "not_running", timeout=20_000)
        window.journal.show_day(window.journal.day)

        def why() -> str:
            return " ".join(label.text() for log in window.journal.chat.ops_logs.values()
                            for label in log.findChildren(type(log.title)) if label.objectName() == "opsWhy")

        qtbot.waitUntil(lambda: f"127.0.0.1:{port}" in why(), timeout=20_000)
        assert "실행 중이 아니에요" in why() and "부터)" in why(), why()
    finally:
        backend.shutdown(10_000)
        mem.close()
