"""The letter dialog's "Write it again": it shows that it is working, says when it is done or why not."""

from __future__ import annotations

import threading
from datetime import datetime

import pytest

from memoir_desktop.ui.journal.letter_dialog import LetterDialog


def _week(m) -> dict:
    for d, text in [(2, "지수랑 한강에서 자전거를 탔다"), (4, "한강 공원에서 지수와 라면을 먹었다")]:
        m.journal.write(text, timestamp=datetime(2026, 3, d, 21, 0))
    [week] = [e for e in m.reflection.make_letters(now=datetime(2026, 3, 9, 8, 0)) if e["source_ref"].startswith("letter:week")]
    return week


@pytest.fixture
def bare_mem(tmp_path):
    from memoir_desktop.core import Memoir

    m = Memoir.open(tmp_path / "bare-home")
    assert not m.llm.configured
    yield m
    m.close()


def test_write_again_without_an_ai_keeps_the_letter_and_says_why(bare_mem, qtbot):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    backend = AsyncMemoir(bare_mem)
    try:
        letter = _week(bare_mem)
        dialog = LetterDialog(backend, letter)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.again_button.click()
        qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
        qtbot.wait(50)
        said = dialog.note.text()
        assert dialog.note.isVisible() and "그대로" in said and "AI" in said  # kept as it is, and why
        assert dialog.again_button.isEnabled()
        assert bare_mem.journal.history(letter["id"]) == []  # not rewritten
        assert dialog.body.toPlainText().startswith("3월 2일 – 3월 8일, 한 주의 편지")
    finally:
        backend.shutdown(10_000)


def test_write_again_with_an_ai_shows_it_is_working_then_that_it_is_done(mem, fake_llm, backend, qtbot):
    release = threading.Event()

    def answer(req):
        if "reflection letter" in req["messages"][0]["content"]:
            release.wait(10)
            return "다시 쓴 편지예요."
        return "응"

    fake_llm.on_text(lambda req: "" if "reflection letter" in req["messages"][0]["content"] else "응")
    letter = _week(mem)
    fake_llm.on_text(answer)
    dialog = LetterDialog(backend, letter)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.again_button.click()
    try:
        # While it works: the button is off, a busy bar runs and a line says what is happening.
        assert not dialog.again_button.isEnabled()
        assert dialog.busy.isVisible()
        assert dialog.note.text() == "편지를 다시 쓰는 중…"
    finally:
        release.set()
    qtbot.waitUntil(lambda: "다시 쓴 편지예요." in dialog.body.toPlainText(), timeout=10_000)
    assert not dialog.busy.isVisible() and dialog.again_button.isEnabled()
    assert dialog.note.text() == "편지를 다시 썼어요. 이전 글은 편지의 바뀐 내역에 남아 있어요."


def test_write_again_that_fails_says_so_and_keeps_the_letter(mem, backend, qtbot):
    letter = {"id": 987_654, "content": "**한 주의 편지**\n\n그대로인 편지"}  # no such entry: the backend fails
    dialog = LetterDialog(backend, letter)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.again_button.click()
    qtbot.waitUntil(lambda: dialog.again_button.isEnabled(), timeout=10_000)
    assert not dialog.busy.isVisible()
    assert dialog.note.text().startswith("편지를 다시 쓰지 못했어요. 지금 편지는 그대로 두었어요")
    assert "그대로인 편지" in dialog.body.toPlainText()
