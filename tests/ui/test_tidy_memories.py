"""Memories → "Tidy up similar memories…": the merges are listed, one is merged, Undo restores it."""

from PySide6.QtCore import Qt


def test_tidy_button_lists_merges_merges_one_and_undoes_it(window, mem, qtbot):
    mem.settings.consolidation_threshold = 0.9
    ids = [r["id"] for r in mem.add(["I drink coffee every morning", "i drink coffee every morning!",
                                     "My sister lives in Busan"], infer=False)["results"]]
    page = window.memories
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: len(page.cards) == 3, timeout=10_000)
    qtbot.mouseClick(page.tidy_button, Qt.LeftButton)
    dialog = page.last_dialog
    qtbot.waitUntil(lambda: not dialog.progress.isVisible(), timeout=10_000)
    assert dialog.rows == []  # typed by the user: only when the user asks
    dialog.include_edited.setChecked(True)
    qtbot.waitUntil(lambda: len(dialog.rows) == 1, timeout=10_000)
    row = dialog.rows[0]
    qtbot.mouseClick(row.merge_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: row.undo_button.isVisible(), timeout=10_000)
    qtbot.waitUntil(lambda: sorted(c.memory["memory"] for c in page.cards if c.memory["state"] == "active")
                    == ["My sister lives in Busan", "i drink coffee every morning!"], timeout=10_000)
    assert all(mem.get(i)["state"] == "invalid" for i in ids[:2])
    qtbot.mouseClick(row.undo_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: all(mem.get(i)["state"] == "active" for i in ids), timeout=10_000)


def test_a_quiet_hint_appears_once_several_memories_repeat_and_stays_away_when_dismissed(window, mem, qtbot):
    mem.settings.consolidation_threshold = 0.9
    for text in ["I drink coffee every morning", "I walk the dog every evening", "I call my mother on Sundays"]:
        mem.journal.write(text)
        mem.journal.write("So " + text)  # what the AI made twice, from two entries
    mem.jobs.process()
    assert len(mem.memories.tidy_proposals()) == 3
    page = window.memories
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.tidy_hint.isVisibleTo(page), timeout=15_000)
    qtbot.mouseClick(page.tidy_hint.close_button, Qt.LeftButton)
    assert not page.tidy_hint.isVisibleTo(page)
    page.reload()
    qtbot.wait(300)
    assert not page.tidy_hint.isVisibleTo(page)


def test_no_hint_for_one_or_two_repeats(window, mem, qtbot):
    mem.settings.consolidation_threshold = 0.9
    mem.journal.write("I drink coffee every morning")
    mem.journal.write("So I drink coffee every morning")
    mem.jobs.process()
    assert len(mem.memories.tidy_proposals()) == 1
    page = window.memories
    window.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: len(page.cards) == 2, timeout=10_000)
    qtbot.wait(500)  # the background check has answered
    assert not page.tidy_hint.isVisibleTo(page)
