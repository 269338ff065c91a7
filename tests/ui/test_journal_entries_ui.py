"""The journal's entries are the user's: edited in place, moved, trashed (with Undo), restored or
deleted forever from the trash, written on a past day, saved without a reply and asked about later;
the user's words are shown exactly as typed and the companion's reply loads and links nothing."""

from __future__ import annotations

import json
import time as clock
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTime
from PySide6.QtGui import QTextCursor, QTextDocument

from memoir_desktop.core.inputs import NotFound
from memoir_desktop.ui.journal.entry_dialogs import EntryHistoryDialog, MoveEntryDialog, PurgeConfirmDialog
from memoir_desktop.ui.journal.memory_ops_log import MemoryOpsLog
from memoir_desktop.ui.journal.message_bubble import MessageBubble, NoticeLine
from memoir_desktop.ui.journal.welcome_panel import NoLLMBanner, WelcomePanel, no_companion_text
from tests.fakes.fake_llm import slow, tool, user_lines
from tests.ui.conftest import make_window

ROOT = Path(__file__).resolve().parents[2]
PLAIN_TEXTS = ["# 제목", "<b>x</b>", "<img src=http://x/y.png>", "<a href=file:///etc/passwd>x</a>",
               "[link](file:///etc/passwd)", "![a](http://x)", "<script>alert(1)</script>", "&amp; 😊 **별**"]


@pytest.fixture(scope="module", autouse=True)
def _journal_strings():
    """Until the lead merges .ko_journal.json into ko.json, this page's new strings come from it."""
    from memoir_desktop.ui.shared import i18n

    extra = ROOT / ".ko_journal.json"
    table = i18n._installed._table if i18n._installed is not None else None
    added = []
    if table is not None and extra.exists():
        for key, value in json.loads(extra.read_text("utf-8")).items():
            if key not in table:
                table[key] = value
                added.append(key)
    yield
    for key in added:
        table.pop(key, None)


def _yesterday_noon(days: int = 1) -> datetime:
    return datetime.combine(date.today() - timedelta(days=days), time(12, 0))


def _bubble(journal, entry_id: int) -> MessageBubble | None:
    return next((b for b in journal.chat.bubbles if b.entry_id == entry_id), None)


def _actions(bubble: MessageBubble) -> dict:
    return {a.data(): a for a in bubble.context_menu().actions() if a.data()}


def _is_answer(req: dict) -> bool:
    first = (req.get("messages") or [{}])[0].get("content") or ""
    return "journaling companion" in first and not req.get("tools")


def _type(qtbot, edit, text: str) -> None:
    edit.setFocus()
    edit.setPlainText(text)  # QTest can only type ASCII keys
    edit.moveCursor(QTextCursor.End)


def _open_day(journal, qtbot, day: date) -> None:
    journal.show_day(day)
    qtbot.waitUntil(lambda: journal.chat.day == day and journal.backend.idle, timeout=10_000)


# -- edit, history -------------------------------------------------------------------------------


def test_edit_in_place_rereads_the_memories(mem, backend, qtbot, fake_llm, tmp_path):
    entry_id = mem.journal.write("오늘은 요가를 했다")
    mem.jobs.process()
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    bubble = _bubble(journal, entry_id)
    assert set(_actions(bubble)) == {"copy", "remember", "edit", "move", "ask", "private", "history", "trash"}
    assert bubble.menu_button.isVisibleTo(bubble) and bubble.menu_button.focusPolicy() & Qt.TabFocus

    # Esc cancels: nothing changes.
    _actions(bubble)["edit"].trigger()
    assert bubble.editing and bubble.editor.toPlainText() == "오늘은 요가를 했다"
    qtbot.keyClick(bubble.editor, Qt.Key_Escape)
    assert not bubble.editing and bubble.body.text() == "오늘은 요가를 했다" and bubble.body.isVisibleTo(bubble)

    # The re-reading is slow enough here to be seen.
    fake_llm.on("save_facts", lambda req: slow(1.5, tool({"facts": user_lines(req)})))
    bubble.request("edit")
    bubble.editor.setPlainText("오늘은 필라테스를 했다\n저녁엔 산책")
    with qtbot.waitSignal(backend.job_finished, timeout=20_000,
                          check_params_cb=lambda job: job.get("kind") == "reconcile" and job["state"] == "done"):
        qtbot.keyClick(bubble.editor, Qt.Key_Return, Qt.ControlModifier)
        qtbot.waitUntil(lambda: mem.journal.entry(entry_id)["content"] == "오늘은 필라테스를 했다\n저녁엔 산책",
                        timeout=10_000)
        qtbot.waitUntil(lambda: not bubble.editing, timeout=10_000)
        log = journal.chat._log_of_entry[entry_id]
        qtbot.waitUntil(lambda: "기억을 다시 정리하는 중" in log.title.text(), timeout=5_000)
    assert bubble.body.text() == "오늘은 필라테스를 했다\n저녁엔 산책"
    assert bubble.edited_label.isVisibleTo(bubble) and bubble.edited_label.text() == "수정됨"
    qtbot.waitUntil(lambda: log.state == "done" and bool(log.events), timeout=10_000)
    assert "다시 정리" not in log.title.text()

    # History… appears once edited, with the old text → the new one.
    assert "history" in _actions(bubble)
    _actions(bubble)["history"].trigger()
    dialog = journal.last_dialog
    assert isinstance(dialog, EntryHistoryDialog)
    qtbot.waitUntil(lambda: bool(dialog.rows), timeout=10_000)
    shown = dialog.timeline.toPlainText()
    assert "오늘은 요가를 했다" in shown and "오늘은 필라테스를 했다" in shown and "수정함" in shown
    dialog.close()


def test_an_empty_edit_is_refused_and_changes_nothing(mem, backend, qtbot, tmp_path):
    entry_id = mem.journal.write("지우면 안 되는 글")
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    bubble = _bubble(journal, entry_id)
    bubble.request("edit")
    bubble.editor.setPlainText("   \n ")
    bubble.save_button.click()
    assert bubble.editing and bubble.edit_error.isVisibleTo(bubble)
    assert "비워 둘 수는 없어요" in bubble.edit_error.text()
    qtbot.wait(50)
    assert backend.idle
    assert mem.journal.entry(entry_id)["content"] == "지우면 안 되는 글" and not mem.journal.entry(entry_id)["edited"]
    assert mem.journal.history(entry_id) == []
    bubble.cancel_edit()
    assert bubble.body.text() == "지우면 안 되는 글"


# -- trash ---------------------------------------------------------------------------------------


def test_move_to_trash_then_undo(mem, backend, qtbot, tmp_path):
    entry_id = mem.journal.write("실수로 지울 글")
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    assert journal.navigator.trash_button.text() == "휴지통 (0)"
    bubble = _bubble(journal, entry_id)
    _actions(bubble)["trash"].trigger()
    assert not bubble.isVisible()  # gone from the day at once
    qtbot.waitUntil(lambda: journal.bar.isVisible(), timeout=10_000)
    assert journal.bar.label.text() == "기록을 휴지통으로 옮겼어요" and journal.bar.button.text() == "되돌리기"
    assert mem.journal.entry(entry_id)["deleted_at"] is not None
    assert _bubble(journal, entry_id) is None
    qtbot.waitUntil(lambda: journal.navigator.trash_button.text() == "휴지통 (1)", timeout=10_000)

    journal.bar.button.click()
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    assert mem.journal.entry(entry_id)["deleted_at"] is None
    qtbot.waitUntil(lambda: journal.navigator.trash_count == 0, timeout=10_000)


def test_an_entry_is_made_private_from_its_menu_and_shared_again(mem, backend, qtbot, tmp_path):
    entry_id = mem.journal.write("나는 목포에 산다")
    mem.jobs.process()
    assert mem.search("목포")["results"]
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    bubble = _bubble(journal, entry_id)
    assert "share" not in _actions(bubble)
    _actions(bubble)["private"].trigger()
    qtbot.waitUntil(lambda: mem.journal.entry(entry_id)["private"], timeout=10_000)

    def shown():  # the day is redrawn: a new bubble for the entry
        b = _bubble(journal, entry_id)
        return b if b is not None and b.private_label.isVisibleTo(b) else None

    qtbot.waitUntil(lambda: shown() is not None, timeout=10_000)
    bubble = shown()
    assert mem.search("목포")["results"] == []
    assert "1" in journal.bar.label.text() and journal.bar.button.isVisibleTo(journal.bar)
    assert not bubble.edited_label.isVisibleTo(bubble)  # its words did not change
    assert "private" not in _actions(bubble)
    journal.bar.button.click()  # Undo, after the redraw
    qtbot.waitUntil(lambda: not mem.journal.entry(entry_id)["private"], timeout=10_000)
    qtbot.waitUntil(lambda: bool(mem.search("목포")["results"]), timeout=10_000)
    qtbot.waitUntil(lambda: not _bubble(journal, entry_id).private_label.isVisibleTo(_bubble(journal, entry_id)),
                    timeout=10_000)
    _actions(_bubble(journal, entry_id))["private"].trigger()
    qtbot.waitUntil(lambda: mem.journal.entry(entry_id)["private"], timeout=10_000)


def test_an_entry_made_private_before_it_was_read_stops_waiting(tmp_path, qtbot):
    """No LLM: the entry waits to be organized; made private, nothing will read it, so it stops waiting."""
    from memoir_desktop.core import Memoir
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    mem = Memoir.open(tmp_path / "home")
    backend = AsyncMemoir(mem)
    try:
        entry_id = mem.journal.write("아직 아무도 읽지 않은 글")
        assert mem.jobs.status()["pending_jobs"] == 1
        window = make_window(backend, qtbot, tmp_path)
        journal = window.journal
        qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
        assert journal.chat.ops_logs  # "waiting for the AI to connect" under it
        _actions(_bubble(journal, entry_id))["private"].trigger()
        qtbot.waitUntil(lambda: mem.jobs.status()["pending_jobs"] == 0, timeout=10_000)
        said = journal.tr("Private now: the companion won't read this entry.")
        qtbot.waitUntil(lambda: journal.bar.label.text() == said, timeout=10_000)  # the answer comes after the commit
        qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None and not journal.chat.ops_logs, timeout=10_000)
    finally:
        backend.shutdown(10_000)
        mem.close()


def test_trash_view_restores_an_entry(mem, backend, qtbot, tmp_path):
    entry_id = mem.journal.write("휴지통에서 돌아올 글\n둘째 줄")
    mem.journal.trash(entry_id)
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: journal.navigator.trash_count == 1, timeout=10_000)
    journal.navigator.trash_button.click()
    assert journal.stack.currentWidget() is journal.trash_view and not journal.composer.isVisible()
    qtbot.waitUntil(lambda: len(journal.trash_view.rows) == 1, timeout=10_000)
    row = journal.trash_view.rows[0]
    assert row.text.text() == "휴지통에서 돌아올 글\n둘째 줄"
    row.restore_button.click()
    qtbot.waitUntil(lambda: mem.journal.entry(entry_id)["deleted_at"] is None, timeout=10_000)
    qtbot.waitUntil(lambda: journal.navigator.trash_count == 0 and not journal.trash_view.rows, timeout=10_000)
    assert journal.trash_view.empty_label.isVisibleTo(journal.trash_view)
    # The trash may be drawn again (the change's broadcast) before the restore's own reply arrives and
    # says so: CI saw an empty bar here once.
    qtbot.waitUntil(lambda: "되살렸어요" in journal.bar.label.text(), timeout=10_000)
    journal.bar.button.click()  # "go there"
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    assert journal.stack.currentWidget() is journal.chat


def test_delete_forever_says_what_goes_first(mem, backend, qtbot, tmp_path):
    entry_id = mem.journal.write("나는 고양이를 키운다")
    mem.jobs.process()
    assert [m["memory"] for m in mem.get_all()["results"]] == ["나는 고양이를 키운다"]
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    _bubble(journal, entry_id).request("trash")
    qtbot.waitUntil(lambda: journal.navigator.trash_count == 1, timeout=10_000)
    journal.show_trash()
    qtbot.waitUntil(lambda: len(journal.trash_view.rows) == 1, timeout=10_000)

    journal.trash_view.rows[0].purge_button.click()
    qtbot.waitUntil(lambda: isinstance(journal.last_dialog, PurgeConfirmDialog), timeout=10_000)
    dialog = journal.last_dialog
    said = dialog.shown_text()
    assert "나는 고양이를 키운다" in dialog.entry_text.text()
    assert "• 나는 고양이를 키운다" in dialog.memory_list.text()
    assert "이 기록에서만 나온 기억 1개" in said and "바뀐 내역도 함께" in said
    assert "관계" not in said and "검색에서도" in said and "백업" in said  # no "0 relations"
    assert dialog.cancel_button.isDefault() and not dialog.delete_button.isDefault()
    assert not dialog.delete_button.autoDefault()

    dialog.delete_button.click()
    qtbot.waitUntil(lambda: journal.navigator.trash_count == 0 and not journal.trash_view.rows, timeout=10_000)
    with pytest.raises(NotFound):
        mem.journal.entry(entry_id)
    assert mem.get_all(include_invalid=True)["results"] == []


# -- dates ---------------------------------------------------------------------------------------


def test_writing_on_a_past_day_keeps_it_on_that_day(mem, backend, qtbot, fake_llm, tmp_path):
    past = date.today() - timedelta(days=3)
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    composer = journal.composer
    assert not composer.day_line.isVisibleTo(composer) and composer.timestamp() is None
    _open_day(journal, qtbot, past)
    assert composer.day_line.isVisibleTo(composer) and composer.time_edit.time() == QTime(12, 0)
    assert "에 쓰는 기록" in composer.day_label.text()
    assert "오늘 일기에 추가" not in composer.edit.placeholderText()
    assert journal.chat.empty_hint.isVisibleTo(journal.chat)

    # Ctrl+Enter saves on that day, at the time set.
    composer.time_edit.setTime(QTime(9, 30))
    _type(qtbot, composer.edit, "그날 아침엔 비가 왔다")
    qtbot.keyClick(composer.edit, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: any(e["content"] == "그날 아침엔 비가 왔다" for e in mem.journal.entries(day=past)), timeout=10_000)
    saved = next(e for e in mem.journal.entries(day=past) if e["content"] == "그날 아침엔 비가 왔다")
    assert datetime.fromisoformat(saved["created_at"]) == datetime.combine(past, time(9, 30))
    qtbot.waitUntil(lambda: _bubble(journal, saved["id"]) is not None, timeout=10_000)
    assert journal.day == past and not journal.chat.empty_hint.isVisibleTo(journal.chat)

    # Enter sends on that day too (the reply is kept there as well), at 12:00 by default.
    fake_llm.on_text(lambda req: "그날의 이야기를 기억할게요.")
    composer.time_edit.setTime(QTime(12, 0))
    _type(qtbot, composer.edit, "점심엔 친구를 만났다")
    qtbot.keyClick(composer.edit, Qt.Key_Return)
    qtbot.waitUntil(lambda: any(b.text == "그날의 이야기를 기억할게요." for b in journal.chat.bubbles), timeout=15_000)
    day_entries = mem.journal.entries(day=past)
    sent = next(e for e in day_entries if e["content"] == "점심엔 친구를 만났다")
    assert datetime.fromisoformat(sent["created_at"]) == datetime.combine(past, time(12, 0))
    assert any(e["role"] == "assistant" for e in day_entries)
    assert journal.day == past
    # In time order on the page: 09:30 before 12:00.
    users = [b.text for b in journal.chat.bubbles if b.role == "user"]
    assert users == ["그날 아침엔 비가 왔다", "점심엔 친구를 만났다"]


def test_change_date_moves_the_entry_and_says_where(mem, backend, qtbot, tmp_path):
    entry_id = mem.journal.write("사실은 지난주에 있었던 일")
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is not None, timeout=10_000)
    _actions(_bubble(journal, entry_id))["move"].trigger()
    dialog = journal.last_dialog
    assert isinstance(dialog, MoveEntryDialog)
    target = datetime.combine(date.today() - timedelta(days=7), time(8, 15))
    dialog.set_when(target)
    dialog.accept()
    qtbot.waitUntil(lambda: mem.journal.entry(entry_id)["created_at"] == target.isoformat(), timeout=10_000)
    qtbot.waitUntil(lambda: _bubble(journal, entry_id) is None and journal.bar.isVisible(), timeout=10_000)
    assert "옮겼어요" in journal.bar.label.text() and journal.bar.button.text() == "그날로 가기"
    journal.bar.button.click()
    qtbot.waitUntil(lambda: journal.day == target.date() and _bubble(journal, entry_id) is not None,
                    timeout=10_000)
    bubble = _bubble(journal, entry_id)
    # A new date is not new words: not labelled "edited", but its history shows the move.
    assert not bubble.edited_label.isVisibleTo(bubble) and "history" in _actions(bubble)
    assert [h["event"] for h in mem.journal.history(entry_id)] == ["MOVE"]


# -- write without a reply -------------------------------------------------------------------------


def test_ctrl_enter_saves_without_asking_then_ask_later(window, backend, mem, qtbot, fake_llm):
    journal = window.journal
    composer = journal.composer
    assert composer.save_button.isVisible() and "Ctrl+Enter" in composer.save_button.toolTip()
    assert "Enter" in composer.button.toolTip()
    _type(qtbot, composer.edit, "혼자 적어 두는 생각")
    qtbot.keyClick(composer.edit, Qt.Key_Return, Qt.ControlModifier)
    assert composer.edit.toPlainText() == ""
    qtbot.waitUntil(lambda: any(b.entry_id is not None and b.text == "혼자 적어 두는 생각"
                                for b in journal.chat.bubbles), timeout=10_000)
    bubble = next(b for b in journal.chat.bubbles if b.text == "혼자 적어 두는 생각")
    assert [b.role for b in journal.chat.bubbles] == ["user"]  # no "thinking…", no reply
    log = journal.chat._log_of_entry[bubble.entry_id]
    qtbot.waitUntil(lambda: log.state == "done" and log.events == ["ADD"], timeout=15_000)
    assert not any(_is_answer(r) for r in fake_llm.calls())
    assert fake_llm.calls("save_facts")  # its memories were still made

    fake_llm.on_text(lambda req: "그 생각, 좋네요.")
    assert "ask" in _actions(bubble)
    _actions(bubble)["ask"].trigger()
    qtbot.waitUntil(lambda: any(b.role == "assistant" and b.text == "그 생각, 좋네요." and b.entry_id
                                for b in journal.chat.bubbles), timeout=15_000)
    assert sum(_is_answer(r) for r in fake_llm.calls()) == 1
    roles = [b.role for b in journal.chat.bubbles]
    assert roles == ["user", "assistant"]
    assert "ask" not in _actions(bubble)
    assert [e["role"] for e in mem.journal.entries()] == ["user", "assistant"]


def test_the_entry_shows_saved_long_before_the_answer(window, backend, mem, qtbot, fake_llm):
    fake_llm.on_text(lambda req: clock.sleep(3.0) or "천천히 답해요.")
    journal = window.journal
    start = clock.monotonic()
    journal.send("긴 하루였다 " * 600)
    qtbot.waitUntil(lambda: journal.chat.bubbles[0].entry_id is not None, timeout=3_000)
    user, thinking = journal.chat.bubbles[:2]
    assert clock.monotonic() - start < 3.0
    assert user.time_label.text() not in ("", "저장하는 중…") and "생각하는 중" in thinking.body.text()
    qtbot.waitUntil(lambda: any(b.text == "천천히 답해요." for b in journal.chat.bubbles), timeout=40_000)


# -- what is shown ---------------------------------------------------------------------------------


def test_the_users_words_are_shown_exactly_as_typed(mem, backend, qtbot, tmp_path):
    ids = [mem.journal.write(text) for text in PLAIN_TEXTS]
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: all(_bubble(journal, i) is not None for i in ids), timeout=10_000)
    for entry_id, text in zip(ids, PLAIN_TEXTS, strict=True):
        body = _bubble(journal, entry_id).body
        assert body.textFormat() == Qt.PlainText and body.text() == text
        assert not body.openExternalLinks()

    # A line break typed with Shift+Enter survives, on screen and on disk.
    edit = journal.composer.edit
    _type(qtbot, edit, "첫 줄")
    qtbot.keyClick(edit, Qt.Key_Return, Qt.ShiftModifier)
    edit.insertPlainText("둘째 줄")
    qtbot.keyClick(edit, Qt.Key_Return, Qt.ControlModifier)
    qtbot.waitUntil(lambda: any(b.text == "첫 줄\n둘째 줄" and b.entry_id for b in journal.chat.bubbles),
                    timeout=10_000)
    bubble = next(b for b in journal.chat.bubbles if b.text == "첫 줄\n둘째 줄")
    assert bubble.body.text() == "첫 줄\n둘째 줄" and bubble.body.textFormat() == Qt.PlainText
    assert mem.journal.entry(bubble.entry_id)["content"] == "첫 줄\n둘째 줄"


def test_the_companions_reply_is_rendered_safely(window, backend, qtbot, fake_llm):
    reply = ("# 제목\n<b>x</b> <img src=http://x/y.png> <a href=file:///etc/passwd>x</a>\n"
             "[link](file:///etc/passwd) ![a](http://x) **굵게** <script>alert(1)</script>")
    fake_llm.on_text(lambda req: reply)
    journal = window.journal
    journal.send("안녕")
    qtbot.waitUntil(lambda: any(b.role == "assistant" and b.text == reply for b in journal.chat.bubbles),
                    timeout=15_000)
    bubble = next(b for b in journal.chat.bubbles if b.text == reply)
    html = bubble.body.text()
    assert bubble.body.textFormat() == Qt.RichText and not bubble.body.openExternalLinks()
    assert "<img" not in html.lower() and "<a " not in html.lower() and "<script" not in html.lower()
    assert "<b>제목</b>" in html and "<b>굵게</b>" in html
    doc = QTextDocument()
    doc.setHtml(html)
    seen = doc.toPlainText()
    for literal in ("<b>x</b>", "<img src=http://x/y.png>", "<a href=file:///etc/passwd>x</a>",
                    "link (file:///etc/passwd)", "<script>alert(1)</script>"):
        assert literal in seen
    assert "![a]" not in seen and " a " in seen  # the image's alt text only
    assert not doc.allFormats() or all(not f.isImageFormat() for f in doc.allFormats())
    # Width fitting still works for both kinds of bubble.
    for b in journal.chat.bubbles:
        assert 0 < b.body.minimumWidth() <= b.maximumWidth()


def test_tags_and_edited_mark_on_a_bubble(qtbot):
    bubble = MessageBubble("user", "제주에 갔다", datetime(2026, 3, 1, 10, 0), 7,
                           entry={"id": 7, "tags": ["여행", "가족"], "edited": True,
                                  "updated_at": "2026-03-02T09:00:00"})
    qtbot.addWidget(bubble)
    assert bubble.tags_label.text() == "#여행 #가족" and bubble.tags_label.isVisibleTo(bubble)
    assert bubble.edited_label.isVisibleTo(bubble) and "2026-03-02" in bubble.edited_label.toolTip()
    plain = MessageBubble("user", "태그 없음", None, 8, entry={"id": 8, "tags": []})
    qtbot.addWidget(plain)
    assert not plain.tags_label.isVisibleTo(plain) and not plain.edited_label.isVisibleTo(plain)


# -- notices ---------------------------------------------------------------------------------------


def test_a_not_connected_notice_goes_once_the_entry_is_organized(window, backend, mem, qtbot, fake_llm):
    fake_llm.fail_next(503, times=1000)
    journal = window.journal
    journal.send("서버가 꺼져 있던 날")
    qtbot.waitUntil(lambda: bool(journal.chat.findChildren(NoticeLine)), timeout=20_000)
    assert [n.text() for n in journal.chat.findChildren(NoticeLine)] == [
        "AI 동반자와 연결되어 있지 않아요. 일기는 저장되었고, 연결되면 기억으로 정리돼요."]
    with fake_llm._lock:
        fake_llm.faults.clear()
    backend.writer.poke()
    qtbot.waitUntil(lambda: any(log.state == "done" for log in journal.chat.findChildren(MemoryOpsLog)),
                    timeout=20_000)
    qtbot.waitUntil(lambda: not journal.chat.findChildren(NoticeLine), timeout=5_000)
    assert not journal.chat.notices


def test_welcome_and_banner_say_it_in_the_same_words(qtbot):
    from PySide6.QtWidgets import QLabel

    welcome, banner = WelcomePanel(llm_configured=False), NoLLMBanner()
    qtbot.addWidget(welcome)
    qtbot.addWidget(banner)
    sentence = no_companion_text()
    assert sentence.startswith("AI 동반자가 연결되어 있지 않습니다")
    welcome_texts = [label.text() for label in welcome.findChildren(QLabel)]
    assert welcome_texts.count(sentence) == 1
    assert not any("연결되면 기억으로" in t for t in welcome_texts if t != sentence)  # said once
    assert [label.text() for label in banner.findChildren(QLabel)] == [sentence]


def test_entry_dialogs_give_wrapped_text_and_fields_their_full_height(qtbot):
    """Sized to their width, the dialogs once squeezed the quoted entry and the date field to slivers."""
    purge = PurgeConfirmDialog({"text": "# 첫 줄은 제목이 아니다\n<b>둘째 줄</b>\n셋째 줄", "memories": []})
    qtbot.addWidget(purge)
    purge.show()
    qtbot.waitExposed(purge)
    label = purge.entry_text
    assert label.height() >= label.heightForWidth(label.width())
    move = MoveEntryDialog(datetime(2026, 11, 28, 12, 0))
    qtbot.addWidget(move)
    move.show()
    qtbot.waitExposed(move)
    for field in (move.date_edit, move.time_edit):
        assert field.height() >= field.minimumSizeHint().height()
