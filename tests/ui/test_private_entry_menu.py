"""A private entry is never sent to the AI, so the journal never offers to send it: "Ask the
companion about this" is not on its menu, from the start or from the moment it is made private."""

from __future__ import annotations

from datetime import date

import pytest

from tests.ui.conftest import make_window


def _actions(bubble) -> dict:
    return {a.data(): a for a in bubble.context_menu().actions() if a.data()}


def _bubble(journal, entry_id):
    return next((b for b in journal.chat.bubbles if b.entry_id == entry_id), None)


@pytest.mark.parametrize("from_start", [True, False])
def test_a_private_entry_offers_no_question_to_the_companion(mem, backend, qtbot, tmp_path, fake_llm, from_start):
    entry_id = mem.journal.write("혼자만 아는 이야기", private=from_start)
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    journal.show_day(date.today())
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    if not from_start:
        assert "ask" in _actions(_bubble(journal, entry_id))
        journal.set_entry_private(entry_id, True)
        qtbot.waitUntil(lambda: bool(_bubble(journal, entry_id) and _bubble(journal, entry_id).entry.get("private")),
                        timeout=10_000)
    bubble = _bubble(journal, entry_id)
    assert "ask" not in _actions(bubble) and "share" in _actions(bubble)
    n = len(fake_llm.requests)
    with pytest.raises(Exception, match="private"):
        mem.companion.reply_to(entry_id)
    assert len(fake_llm.requests) == n


def test_a_chat_says_when_private_entries_were_left_out(mem, backend, qtbot, tmp_path, fake_llm):
    mem.journal.write("비밀 기록 PRIV-7")
    private = mem.journal.write("비밀 기록 PRIV-8", private=True)
    assert mem.journal.entry(private)["private"]
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    journal.show_day(date.today())
    journal.send("오늘 뭐 했었지?")  # the search brings today's entries: the private one is left out
    qtbot.waitUntil(lambda: "비공개 기록 1편" in journal.bar.label.text(), timeout=15_000)
    assert all("PRIV-8" not in str(r.get("messages")) for r in fake_llm.requests)
