"""Journal: a message gets a reply, the writer organizes it, the memory shows up everywhere."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from tests.ui.conftest import make_window


def test_send_reply_then_memory_card_and_operation_log(window, backend, qtbot, fake_llm):
    fake_llm.on_text(lambda req: "**좋아요!** 요가를 기억해 둘게요.")
    backend.mem.add("나는 커피를 좋아한다")  # a memory to compare with: the update step is asked
    journal = window.journal
    edit = journal.composer.edit
    edit.setFocus()
    edit.setPlainText("나는 요가를 좋아한다")  # QTest can only type ASCII keys
    edit.moveCursor(QTextCursor.End)
    qtbot.keyClick(edit, Qt.Key_Return, Qt.ShiftModifier)  # Shift+Enter: a new line, not sent
    assert edit.toPlainText() == "나는 요가를 좋아한다\n"
    edit.setPlainText("나는 요가를 좋아한다")
    qtbot.keyClick(edit, Qt.Key_Return)
    assert edit.toPlainText() == ""

    def replied():
        return [b for b in journal.chat.bubbles if b.role == "assistant" and "기억해 둘게요" in b.body.text()]

    qtbot.waitUntil(lambda: bool(replied()), timeout=15_000)
    assert "<b>" in replied()[0].body.text() or "**" in replied()[0].body.text()  # Markdown source kept
    qtbot.waitUntil(lambda: any("ADD" in log.events for log in journal.chat.ops_logs.values()), timeout=20_000)
    log = next(iter(journal.chat.ops_logs.values()))
    assert log.state == "done" and "기억한 것" in log.title.text()

    window.tabs.setCurrentWidget(window.memories)
    qtbot.waitUntil(lambda: any(c.memory["memory"] == "나는 요가를 좋아한다" for c in window.memories.cards),
                    timeout=10_000)
    card = next(c for c in window.memories.cards if c.memory["memory"] == "나는 요가를 좋아한다")

    # The card's source link jumps back to the entry in the journal.
    card.source_requested.emit(card.memory)
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is window.journal, timeout=15_000)
    qtbot.waitUntil(lambda: any(b.property("highlighted") for b in journal.chat.bubbles), timeout=15_000)
    assert window.status.pending_count == 0

    # The turn's timings and tokens reach Help → Diagnostics.
    diagnostics = window.open_diagnostics()
    qtbot.waitUntil(lambda: diagnostics.data.tokens[1] != [], timeout=10_000)
    stages = [diagnostics.table.item(r, 0).text() for r in range(diagnostics.table.rowCount())]
    assert {"추출", "갱신", "답변"} <= set(stages)
    assert diagnostics.data.latency["extraction"][0]  # a p50/p95 series to draw
    diagnostics.close()


def test_past_day_reopens_with_its_operation_log(mem, backend, qtbot, tmp_path):
    from datetime import date, datetime, timedelta

    yesterday = date.today() - timedelta(days=1)
    mem.journal.write("어제는 도서관에서 책을 읽었다", timestamp=datetime.combine(yesterday, datetime.min.time()).replace(hour=20))
    mem.jobs.process()
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: window.journal.navigator.list.count() == 1, timeout=15_000)
    window.journal.navigator.list.itemClicked.emit(window.journal.navigator.list.item(0))
    qtbot.waitUntil(lambda: window.journal.day == yesterday and len(window.journal.chat.bubbles) == 1, timeout=15_000)
    qtbot.waitUntil(lambda: any(log.events == ["ADD"] for log in window.journal.chat.ops_logs.values()),
                    timeout=15_000)
    # Writing while a past day is open writes on that day (back-dating), not on today.
    window.journal.send("그날 산책을 했다")
    qtbot.waitUntil(lambda: window.journal.day == yesterday and len(mem.journal.entries(day=yesterday)) >= 2,
                    timeout=10_000)
    assert [e["content"] for e in mem.journal.entries(day=yesterday)][1] == "그날 산책을 했다"
    assert mem.journal.entries(day=date.today()) == []


def _shown(log) -> list[str]:
    return [w.text() for w in log.findChildren(type(log.title)) if not w.isHidden() and w is not log.title]


def test_the_log_stops_looking_for_people_and_places_when_the_graph_reading_fails(window, mem, qtbot, monkeypatch):
    from memoir_desktop.core.pipeline.graph import GraphMemory

    def broken(*args, **kwargs):
        raise RuntimeError("the graph store is broken")

    monkeypatch.setattr(GraphMemory, "apply", broken)
    journal = window.journal
    journal.composer.edit.setPlainText("나는 요가를 좋아한다")
    qtbot.keyClick(journal.composer.edit, Qt.Key_Return, Qt.ControlModifier)  # saved only: no answer
    qtbot.waitUntil(lambda: any("ADD" in log.events for log in journal.chat.ops_logs.values()), timeout=20_000)
    qtbot.waitUntil(lambda: any(j["kind"] == "graph" and j["state"] == "failed" for j in mem.jobs.all()),
                    timeout=20_000)
    finding = journal.tr("Looking for the people and places in it…")
    log = next(log for log in journal.chat.ops_logs.values() if "ADD" in log.events)
    qtbot.waitUntil(lambda: finding not in " ".join(_shown(log)), timeout=10_000)
    assert any("요가" in t for t in _shown(log))  # the memory stands
