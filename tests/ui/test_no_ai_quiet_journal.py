"""Without an AI the journal says once, in the banner, that entries wait for one: no "waiting"
strip or notice under each entry. A private entry never waits (it is never sent): it shows
its "Private" mark instead."""

from datetime import date

import pytest
from PySide6.QtCore import Qt

from memoir_desktop.ui.async_memoir import AsyncMemoir
from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog
from memoir_desktop.ui.journal.message_bubble import NoticeLine
from memoir_desktop.ui.journal.welcome_panel import NoLLMBanner
from tests.ui.conftest import make_window

WAITING = "AI 연결을 기다리는 중"


@pytest.fixture
def bare_window(tmp_path, qtbot):
    from memoir_desktop.core import Memoir

    mem = Memoir.open(tmp_path / "bare-home", llm_base_url=None)
    assert not mem.llm.configured
    backend = AsyncMemoir(mem)
    window = make_window(backend, qtbot, tmp_path)
    yield window
    backend.shutdown(5_000)
    mem.close()


def _shown_logs(chat):
    return [log for log in chat.findChildren(MemoryOpsLog) if log.isVisibleTo(chat)]


def _saved(journal, n):
    return len([b for b in journal.chat.bubbles if b.role == "user" and b.entry_id]) == n


def test_no_ai_one_banner_and_no_waiting_strip_under_each_entry(bare_window, qtbot):
    journal = bare_window.journal
    journal.send("오늘은 비가 왔다")
    journal.save("저녁에 라면을 먹었다")
    journal.save("일찍 잤다")
    qtbot.waitUntil(lambda: _saved(journal, 3), timeout=10_000)
    qtbot.wait(200)  # the answers' callbacks (no AI: no reply) have come
    assert _shown_logs(journal.chat) == []
    assert [n.text() for n in journal.chat.findChildren(NoticeLine) if n.isVisibleTo(journal.chat)] == []
    banners = [b for b in journal.chat.findChildren(NoLLMBanner) if b.isVisibleTo(journal.chat)]
    assert len(banners) == 1  # the one line that says entries wait for an AI

    # Drawn again from disk (another visit to the day): still quiet.
    journal.show_day(date.today())
    qtbot.waitUntil(lambda: _saved(journal, 3), timeout=10_000)
    assert _shown_logs(journal.chat) == []
    assert len([b for b in journal.chat.findChildren(NoLLMBanner) if b.isVisibleTo(journal.chat)]) == 1


def test_a_private_entry_shows_private_and_never_waits_for_the_ai(bare_window, qtbot):
    journal = bare_window.journal
    journal.composer.private.setChecked(True)
    journal.save("아무에게도 보내지 않을 글")
    qtbot.waitUntil(lambda: _saved(journal, 1), timeout=10_000)
    bubble = next(b for b in journal.chat.bubbles if b.entry_id)
    assert bubble.private_label.isVisibleTo(bubble)
    assert "비공개" in bubble.private_label.text()
    assert not journal.chat.findChildren(MemoryOpsLog)  # nothing waits under it
    assert not any(WAITING in log.title.text() for log in journal.chat.findChildren(MemoryOpsLog))


def test_a_private_entry_with_an_ai_has_no_organizing_strip(window, qtbot):
    journal = window.journal
    journal.composer.private.setChecked(True)
    journal.save("비공개로 쓴 글")
    qtbot.waitUntil(lambda: _saved(journal, 1), timeout=10_000)
    bubble = next(b for b in journal.chat.bubbles if b.entry_id)
    assert bubble.private_label.isVisibleTo(bubble)
    assert not journal.chat.findChildren(MemoryOpsLog)


def test_the_empty_graph_without_an_ai_says_what_fills_it_and_offers_to_connect(bare_window, qtbot):
    """Without an AI the graph still fills with the names entries mention (core/pipeline/mentions.py):
    the empty page says so, and that an AI adds how they relate, with a way to connect one."""
    bare_window.tabs.setCurrentWidget(bare_window.graph)
    graph = bare_window.graph
    qtbot.waitUntil(lambda: graph._loaded_once, timeout=10_000)
    assert graph.stack.currentIndex() == 0
    assert "AI" in graph.message_text.text()
    assert graph.connect_button.isVisibleTo(graph)
    qtbot.mouseClick(graph.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(bare_window, "settings_dialog", None) is not None
                    and bare_window.settings_dialog.isVisible(), timeout=5_000)
    bare_window.settings_dialog.reject()


def test_the_empty_graph_with_an_ai_offers_no_connect_button(backend, qtbot, tmp_path):
    window = make_window(backend, qtbot, tmp_path)
    window.tabs.setCurrentWidget(window.graph)
    qtbot.waitUntil(lambda: window.graph._loaded_once, timeout=10_000)
    assert window.graph.stack.currentIndex() == 0
    assert not window.graph.connect_button.isVisibleTo(window.graph)
