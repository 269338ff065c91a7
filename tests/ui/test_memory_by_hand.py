"""Without an AI, the memory half still works: a memory added by hand on the Memories page, or
kept from an entry with "Remember this"; the empty page says how memories are made."""

from datetime import date

import pytest
from PySide6.QtCore import Qt

from memoir_desktop.ui.async_memoir import AsyncMemoir
from tests.ui.conftest import make_window


@pytest.fixture
def bare_mem(tmp_path):
    from memoir_desktop.core import Memoir

    m = Memoir.open(tmp_path / "bare-home", llm_base_url=None)
    assert not m.llm.configured
    yield m
    m.close()


@pytest.fixture
def bare_window(bare_mem, qtbot, tmp_path):
    backend = AsyncMemoir(bare_mem)
    window = make_window(backend, qtbot, tmp_path)
    yield window
    backend.shutdown(5_000)


def _card(page, text):
    return next((c for c in page.cards if c.memory["memory"] == text), None)


def test_add_a_memory_by_hand_without_an_ai_then_forget_and_undo(bare_window, bare_mem, qtbot):
    page = bare_window.memories
    bare_window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.empty_label.isVisible() and bool(page.empty_label.text()), timeout=10_000)
    assert page.add_button.text() == "기억 추가…"
    qtbot.mouseClick(page.add_button, Qt.LeftButton)
    dialog = page.last_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.accept()  # empty: refused here
    assert dialog.isVisible() and dialog.error.isVisible()
    dialog.set_text("동생 생일은 3월 3일이다")
    dialog.set_day(date(2024, 5, 1))
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    qtbot.waitUntil(lambda: _card(page, "동생 생일은 3월 3일이다") is not None, timeout=10_000)
    [m] = bare_mem.get_all()["results"]
    assert m["memory"] == "동생 생일은 3월 3일이다"
    assert m["user_edited"]  # the user's own: protected like an edit
    assert m["source_entry_id"] is None
    assert m["created_at"].startswith("2024-05-01")
    assert not page.empty_label.isVisible()

    # Forgotten like any memory, and Undo brings it back.
    qtbot.mouseClick(_card(page, m["memory"]).state_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: page.undo_bar.isVisible(), timeout=10_000)
    assert bare_mem.get(m["id"])["state"] == "invalid"
    qtbot.mouseClick(page.undo_bar.button, Qt.LeftButton)
    qtbot.waitUntil(lambda: bare_mem.get(m["id"])["state"] == "active", timeout=10_000)


def test_remember_this_keeps_the_selected_words_linked_to_the_entry(bare_window, bare_mem, qtbot):
    journal = bare_window.journal
    journal.save("오늘 카페에서 지수를 만났다. 지수는 다음 달에 부산으로 이사 간다.")
    qtbot.waitUntil(lambda: any(b.entry_id for b in journal.chat.bubbles), timeout=10_000)
    bubble = next(b for b in journal.chat.bubbles if b.entry_id)
    start = bubble.text.index("지수는")
    bubble.body.setSelection(start, len("지수는 다음 달에 부산으로 이사 간다."))
    menu = bubble.context_menu()
    remember = next(a for a in menu.actions() if a.data() == "remember")
    assert remember.text() == "이 부분 기억하기"
    remember.trigger()
    qtbot.waitUntil(lambda: len(bare_mem.get_all()["results"]) == 1, timeout=10_000)
    [m] = bare_mem.get_all()["results"]
    assert m["memory"] == "지수는 다음 달에 부산으로 이사 간다."
    assert m["source_entry_id"] == bubble.entry_id and m["user_edited"]
    qtbot.waitUntil(lambda: journal.bar.isVisible(), timeout=10_000)

    # Nothing selected: the whole entry. The memory follows its entry to the trash.
    bubble.body.setSelection(0, 0)
    menu = bubble.context_menu()
    whole = next(a for a in menu.actions() if a.data() == "remember")
    assert whole.text() == "이 기록 기억하기"
    whole.trigger()
    qtbot.waitUntil(lambda: len(bare_mem.get_all()["results"]) == 2, timeout=10_000)
    assert bubble.text in [x["memory"] for x in bare_mem.get_all()["results"]]
    entry_id = bubble.entry_id
    journal.trash_entry(bubble)
    qtbot.waitUntil(lambda: not bare_mem.get_all()["results"], timeout=10_000)
    assert all(x["state"] == "invalid" for x in bare_mem.get_all(include_invalid=True)["results"])
    journal.restore_entry(entry_id)
    qtbot.waitUntil(lambda: len(bare_mem.get_all()["results"]) == 2, timeout=10_000)


def test_empty_memories_page_without_an_ai_says_how_memories_are_made(bare_window, qtbot):
    page = bare_window.memories
    bare_window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.empty_label.isVisible() and bool(page.empty_label.text()), timeout=10_000)
    text = page.empty_label.text()
    assert "AI" in text and "설정" in text and "직접" in text
    assert "나타나" not in text  # no promise that memories appear as you write
    assert page.empty_add_button.isVisible() and page.connect_button.isVisible()
    page.open_settings.disconnect()  # the window's Settings dialog is tested elsewhere
    with qtbot.waitSignal(page.open_settings, timeout=2_000):
        page.connect_button.click()
