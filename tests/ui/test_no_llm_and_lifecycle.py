"""No LLM: entries are still saved, one calm line says what happens next. Lifecycle bits."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel

from memoir_desktop.ui.journal.message_bubble import NoticeLine
from memoir_desktop.ui.journal.welcome_panel import NoLLMBanner, WelcomePanel, no_companion_text
from memoir_desktop.ui.startup.single_instance import SingleInstance
from tests.ui.conftest import make_window


@pytest.fixture
def bare_mem(tmp_path):
    from memoir_desktop.core import Memoir

    m = Memoir.open(tmp_path / "bare-home")
    assert not m.llm.configured
    yield m
    m.close()


def test_without_llm_sending_saves_the_entry_and_says_so_calmly(bare_mem, qtbot, tmp_path):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    backend = AsyncMemoir(bare_mem)
    try:
        window = make_window(backend, qtbot, tmp_path)
        journal = window.journal
        assert isinstance(journal.chat._top.itemAt(0).widget(), WelcomePanel)  # first run explains LLM setup
        journal.send("오늘은 비가 와서 집에서 책을 읽었다")
        qtbot.waitUntil(lambda: not journal._pending and any(b.entry_id for b in journal.chat.bubbles),
                        timeout=10_000)  # the companion's turn is over (no AI: no reply)
        # One calm line, the banner at the top of the day; no notice repeats it under the entry.
        banners = journal.chat.findChildren(NoLLMBanner)
        assert len(banners) == 1
        assert [label.text() for label in banners[0].findChildren(QLabel)] == [no_companion_text()]
        assert not journal.chat.findChildren(NoticeLine)
        assert [e["content"] for e in bare_mem.journal.entries()] == ["오늘은 비가 와서 집에서 책을 읽었다"]
        assert len(bare_mem.jobs.all("pending")) == 1
        qtbot.waitUntil(lambda: window.status.pending_count == 1, timeout=10_000)
        assert "AI" in window.status.llm.text()
        # Memories still work without an LLM: search finds a fact added by hand.
        bare_mem.add("우산을 자주 잃어버린다", infer=False)
        window.tabs.setCurrentWidget(window.memories)
        window.memories.focus_search()
        window.memories.search_box.setText("우산")
        qtbot.waitUntil(lambda: [c.memory["memory"] for c in window.memories.cards] == ["우산을 자주 잃어버린다"],
                        timeout=15_000)
    finally:
        backend.shutdown(5_000)


def test_jobs_survive_an_unreachable_llm_and_a_shutdown(backend, mem, qtbot, fake_llm, tmp_path):
    fake_llm.fail_next(503, times=1000)
    window = make_window(backend, qtbot, tmp_path)
    window.journal.send("서버가 꺼져 있어도 괜찮다")
    qtbot.waitUntil(lambda: any(log.title.text().endswith("AI 연결을 기다리는 중")
                                for log in window.journal.chat.ops_logs.values()), timeout=20_000)
    assert backend.shutdown(10_000)
    assert len(mem.jobs.all("pending")) == 1  # durable: it resumes at the next start


def test_single_instance_raises_the_first(qtbot, tmp_path):
    first, second = SingleInstance(tmp_path), SingleInstance(tmp_path)
    try:
        assert first.claim()
        with qtbot.waitSignal(first.activated, timeout=15_000):
            assert not second.claim()
        assert SingleInstance(tmp_path / "other").claim()  # another data dir is another journal
    finally:
        first.release()


def test_window_geometry_is_kept_in_ui_state(backend, qtbot, tmp_path):
    window = make_window(backend, qtbot, tmp_path)
    window.resize(720, 540)  # inside the offscreen screen (800x600): restoreGeometry clamps to it
    window.tabs.setCurrentIndex(2)
    window.close()
    state = QSettings(str(tmp_path / "ui-state.ini"), QSettings.IniFormat)
    again = make_window(backend, qtbot, tmp_path, size=None)
    assert state.value("window/tab") in (2, "2") and again.tabs.currentIndex() == 2
    assert (again.width(), again.height()) == (720, 540)


def test_smoke_mode_runs_headless(capsys):
    from memoir_desktop.ui.main import run

    assert run(["memoir-desktop", "--smoke"]) == 0
    assert '"smoke": "ok"' in capsys.readouterr().out


def test_each_menu_gives_every_item_its_own_access_key(window):
    """Alt+F, then a letter: two items with one letter made the letter stop at the first
    (File had 내보내기(&E) and 암호화하여 내보내기(&E))."""
    import re

    from PySide6.QtWidgets import QMenu

    def key(text: str) -> str | None:
        m = re.search(r"&([^&])", text.replace("&&", ""))
        return m.group(1).lower() if m else None

    menus = [a.menu() for a in window.menuBar().actions() if isinstance(a.menu(), QMenu)]
    assert len(menus) >= 3
    tops = [key(a.text()) for a in window.menuBar().actions()]
    assert len(tops) == len(set(tops)), tops
    for menu in menus:
        keys = [key(a.text()) for a in menu.actions() if not a.isSeparator() and key(a.text())]
        assert len(keys) == len(set(keys)), (menu.title(), [a.text() for a in menu.actions()])
