"""Memory cards: edit, forget + undo, restore, history, proposals held for the user."""

from PySide6.QtCore import Qt

from tests.fakes.fake_llm import existing, tool


def _card(page, memory_id):
    return next((c for c in page.cards if c.memory["id"] == memory_id), None)


def test_edit_forget_undo_restore_history(window, backend, mem, qtbot):
    mid = mem.add("고양이 모카를 키운다", infer=False)["results"][0]["id"]
    page = window.memories
    window.tabs.setCurrentWidget(page)
    page.reload()
    qtbot.waitUntil(lambda: _card(page, mid) is not None, timeout=15_000)

    # Edit: an empty text is refused in the dialog, a real one is saved as the user's edit.
    dialog = page.edit(_card(page, mid).memory)
    dialog.set_text("   ")
    dialog.accept()
    assert dialog.isVisible() and dialog.error.isVisible()
    dialog.set_text("고양이 모카와 보리를 키운다")
    with qtbot.waitSignal(dialog.accepted, timeout=15_000):  # closes once the save is done
        dialog.accept()
    assert mem.get(mid)["memory"] == "고양이 모카와 보리를 키운다"
    qtbot.waitUntil(lambda: _card(page, mid) and _card(page, mid).text.text() == "고양이 모카와 보리를 키운다",
                    timeout=15_000)

    # Forget, then Undo from the bar.
    qtbot.mouseClick(_card(page, mid).state_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: page.undo_bar.isVisible(), timeout=15_000)
    assert mem.get(mid)["state"] == "invalid"
    qtbot.waitUntil(lambda: _card(page, mid) is None, timeout=15_000)  # hidden under "remembered"
    qtbot.mouseClick(page.undo_bar.button, Qt.LeftButton)
    qtbot.waitUntil(lambda: mem.get(mid)["state"] == "active", timeout=15_000)
    qtbot.waitUntil(lambda: _card(page, mid) is not None, timeout=15_000)

    # Forget again, find it among the forgotten, Restore it there.
    page.forget(_card(page, mid).memory)
    qtbot.waitUntil(lambda: mem.get(mid)["state"] == "invalid", timeout=15_000)
    page.state_box.setCurrentIndex(page.state_box.findData("forgotten"))
    qtbot.waitUntil(lambda: _card(page, mid) is not None and _card(page, mid).property("forgotten"), timeout=15_000)
    qtbot.mouseClick(_card(page, mid).state_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: mem.get(mid)["state"] == "active", timeout=15_000)

    history = page.show_history(_card(page, mid).memory if _card(page, mid) else mem.get(mid))
    qtbot.waitUntil(lambda: len(history.rows) == 6, timeout=15_000)
    assert [r["event"] for r in history.rows] == ["ADD", "UPDATE", "DELETE", "RESTORE", "DELETE", "RESTORE"]
    text = history.timeline.toPlainText()
    assert "고양이 모카를 키운다" in text and "고양이 모카와 보리를 키운다" in text and "복원됨" in text
    history.close()


def test_search_box_finds_by_meaning_and_filters(window, mem, qtbot):
    mem.add("아침마다 커피를 마신다", infer=False)
    mem.add("주말에 등산을 간다", infer=False)
    page = window.memories
    window.tabs.setCurrentWidget(page)
    page.focus_search()
    qtbot.waitUntil(lambda: len(page.cards) == 2, timeout=15_000)
    page.search_box.setText("커피")
    qtbot.waitUntil(lambda: [c.memory["memory"] for c in page.cards] == ["아침마다 커피를 마신다"], timeout=15_000)
    page.search_box.setText("")
    page.source_box.setCurrentIndex(page.source_box.findData("journal"))
    qtbot.waitUntil(lambda: not page.cards and page.empty_label.isVisible(), timeout=15_000)


def test_proposal_for_a_protected_memory_is_accepted_from_the_panel(window, backend, mem, qtbot, fake_llm):
    mid = mem.add("나는 커피를 좋아한다", infer=False)["results"][0]["id"]  # a user's own fact: protected
    fake_llm.on("memory_operations", lambda req: tool({"operations": [
        {"fact": 0, "event": "UPDATE", "id": next(iter(existing(req))), "text": "나는 요즘 차를 더 좋아한다"}]}))
    mem.journal.write("요즘은 커피보다 차가 좋다")
    backend.writer.poke()
    page = window.memories
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.proposals.isVisible() and len(page.proposals.proposals) == 1, timeout=15_000)
    assert mem.get(mid)["memory"] == "나는 커피를 좋아한다"  # held, not applied
    page.proposals.resolve.emit(page.proposals.proposals[0]["id"], True)
    qtbot.waitUntil(lambda: mem.get(mid)["memory"] == "나는 요즘 차를 더 좋아한다", timeout=15_000)
    qtbot.waitUntil(lambda: not page.proposals.isVisible(), timeout=15_000)


def test_a_habit_card_says_it_repeats_and_names_no_single_day(window, mem, qtbot):
    from datetime import datetime

    mid = mem.add("매주 금요일에 요가를 해", infer=False, timestamp=datetime(2026, 3, 13))["results"][0]["id"]
    page = window.memories
    window.tabs.setCurrentWidget(page)
    page.reload()
    qtbot.waitUntil(lambda: _card(page, mid) is not None, timeout=15_000)
    meta = _card(page, mid).meta.text()
    assert "반복: 매주 금요일" in meta
    assert "2026-03-13" not in meta.split("·", 1)[-1]  # only the recording date, no "about" day


def test_a_one_memory_edit_rebuilds_one_card_and_a_job_only_the_cards_it_changed(window, backend, mem, qtbot):
    ids = [r["id"] for r in mem.add([f"기억 {i}번: 동네 산책을 했다" for i in range(20)], infer=False)["results"]]
    page = window.memories
    window.tabs.setCurrentWidget(page)
    page.reload()
    qtbot.waitUntil(lambda: len(page.cards) == 20, timeout=15_000)
    built = page.cards_built
    backend.change(lambda m: m.memories.update(ids[3], "기억 3번: 동네 한 바퀴를 뛰었다"))
    qtbot.waitUntil(lambda: _card(page, ids[3]) and "뛰었다" in _card(page, ids[3]).text.text(), timeout=15_000)
    assert page.cards_built - built == 1
    assert len(page.cards) == 20
    built = page.cards_built
    mem.journal.write("오늘은 비가 와서 집에 있었다")  # a job that adds one memory
    backend.writer.poke()
    qtbot.waitUntil(lambda: len(page.cards) == 21, timeout=20_000)
    assert page.cards_built - built == 1
