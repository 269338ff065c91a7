"""One search (entries + memories), the File menu (export, import with memory building, back up,
restore), View-menu tab switching, and a status bar that says "organised" only when it is."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import date, datetime

from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtWidgets import QMessageBox

from memoir_desktop.core import Memoir, config
from memoir_desktop.ui.files.file_dialogs import BatchProgressPanel, ExportDialog, ImportDialog
from memoir_desktop.ui.search.search_page import marked_html
from tests.fakes.fake_llm import slow, tool

NO_FACTS = lambda req: tool({"facts": []})


def dayone_zip(path, entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("Journal.json", json.dumps({"metadata": {"version": "1.0"}, "entries": entries}))
    path.write_bytes(buf.getvalue())
    return path


def dayone_entries(n):
    return [{"uuid": f"U{i}", "creationDate": f"2023-05-{i + 1:02d}T10:00:00Z", "timeZone": "Asia/Seoul",
             "text": f"{i + 1}일째: 바닷가를 걸었다", "tags": []} for i in range(n)]


# -- search ----------------------------------------------------------------------------------------


def test_marked_html_escapes_everything_and_marks_the_spans():
    out = marked_html("<b>모카</b> & 모카", [(12, 14)])
    assert out.startswith("&lt;b&gt;모카&lt;/b&gt; &amp; <span")
    assert ">모카</span>" in out and "<b>" not in out


def test_a_word_only_in_an_entry_shows_one_marked_journal_row_that_opens_the_day(window, backend, mem, fake_llm,
                                                                                 qtbot):
    fake_llm.on("save_facts", NO_FACTS)
    eid = mem.journal.write("오늘은 한강에서 자전거를 오래 탔다", timestamp=datetime(2026, 3, 14, 18, 30))
    other = mem.journal.write("집에서 책을 읽었다", timestamp=datetime(2026, 3, 15, 9, 0))
    page = window.search
    window.find()  # Edit → Find (Ctrl+F)
    assert window.tabs.currentWidget() is page
    page.field.setText("자전거")
    qtbot.waitUntil(lambda: page.searched == "자전거", timeout=15_000)
    assert len(page.entry_rows) == 1 and page.memory_rows == []
    row = page.entry_rows[0]
    assert row.entry["id"] == eid and other != eid
    assert ">자전거를</span>" in row.text.text()  # the matched word is marked
    assert page.journal_header.isVisible() and "(1)" in page.journal_header.text()
    assert not page.memory_header.isVisible() and not page.message.isVisible()
    assert "2026" in row.heading.text() and "14" in row.heading.text()  # the long date

    qtbot.mouseClick(row, Qt.LeftButton)
    journal = window.journal
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is journal and journal.day == date(2026, 3, 14),
                    timeout=15_000)
    qtbot.waitUntil(lambda: any(b.entry_id == eid and b.property("highlighted") for b in journal.chat.bubbles),
                    timeout=15_000)


def test_a_memory_row_opens_the_memories_tab_on_that_memory(window, mem, qtbot):
    mid = mem.add("고양이 모카를 키운다", infer=False)["results"][0]["id"]
    mem.add("주말에 등산을 간다", infer=False)
    page = window.search
    window.find()
    page.field.setText("모카")
    qtbot.waitUntil(lambda: page.searched == "모카" and bool(page.memory_rows), timeout=15_000)
    row = page.memory_rows[0]
    assert row.memory["id"] == mid and ">모카</span>" in row.text.text()
    assert f"({len(page.memory_rows)})" in page.memory_header.text() and page.entry_rows == []
    qtbot.mouseClick(row, Qt.LeftButton)
    cards = window.memories
    assert window.tabs.currentWidget() is cards
    qtbot.waitUntil(lambda: [c.memory["id"] for c in cards.cards][:1] == [mid], timeout=15_000)
    assert cards.search_box.text() == "고양이 모카를 키운다"


def test_the_syllable_being_composed_is_searched_too(window, mem, qtbot):
    mem.add("고양이 모카를 키운다", infer=False)
    page = window.search
    window.find()
    page.field.setText("모")
    page.field.inputMethodEvent(QInputMethodEvent("카", []))  # "카" still being composed by the IME
    assert page.field.asked() == "모카" and page.field.text() == "모"
    qtbot.waitUntil(lambda: page.searched == "모카" and bool(page.memory_rows), timeout=15_000)
    assert page.memory_rows[0].memory["memory"] == "고양이 모카를 키운다"


def test_nonsense_says_nothing_matches_in_plain_words(window, mem, qtbot):
    mem.add("고양이 모카를 키운다", infer=False)
    page = window.search
    window.find()
    page.field.setText("xyzzy")
    qtbot.waitUntil(lambda: page.searched == "xyzzy", timeout=15_000)
    assert page.entry_rows == [] and page.memory_rows == []
    assert page.message.isVisible()
    assert page.message.text() == page.tr("Nothing in your journal or memories matches ‘{query}’.").format(
        query="xyzzy")
    page.field.setText("")
    qtbot.waitUntil(lambda: page.searched == "" and "xyzzy" not in page.message.text(), timeout=5_000)


# -- export -------------------------------------------------------------------------------------------


def test_export_json_markdown_and_text_per_day(window, backend, mem, fake_llm, qtbot, tmp_path):
    fake_llm.on("save_facts", NO_FACTS)
    mem.journal.write("첫날: 바다를 보았다", timestamp=datetime(2026, 3, 1, 9))
    mem.journal.write("둘째 날: 산에 올랐다", timestamp=datetime(2026, 3, 2, 9))
    out = tmp_path / "exports"

    dialog = window.export()
    assert isinstance(dialog, ExportDialog) and dialog.isVisible()
    assert not dialog.how.isEnabled()  # a memoir backup is always one file
    dialog.path_edit.setText(str(out / "everything"))
    dialog.export()
    qtbot.waitUntil(lambda: bool(dialog.written), timeout=15_000)
    assert dialog.written == [str(out / "everything.json")]
    data = json.loads((out / "everything.json").read_text("utf-8"))
    assert {e["content"] for e in data["entries"]} == {"첫날: 바다를 보았다", "둘째 날: 산에 올랐다"}
    assert str(out / "everything.json") in dialog.result.text() and dialog.warning.isVisible()

    dialog.set_format("md")
    dialog.path_edit.setText(str(out / "journal.md"))
    dialog.written = []
    dialog.export()
    qtbot.waitUntil(lambda: bool(dialog.written), timeout=15_000)
    assert "바다를 보았다" in (out / "journal.md").read_text("utf-8")

    dialog.set_format("txt", per_day=True)
    assert dialog.how.isEnabled() and dialog.by_day
    dialog.path_edit.setText(str(out / "days"))
    dialog.written = []
    dialog.export()
    qtbot.waitUntil(lambda: bool(dialog.written), timeout=15_000)
    assert sorted(p.name for p in (out / "days").iterdir()) == ["2026-03-01.txt", "2026-03-02.txt"]
    assert str(out / "days") in dialog.result.text()
    dialog.close()


def test_markdown_notes_for_obsidian_say_what_they_left_out_and_import_back(window, backend, mem, fake_llm, qtbot,
                                                                            tmp_path):
    import yaml

    fake_llm.on("save_facts", NO_FACTS)
    kept = mem.journal.write("지수랑 [[부산]] #여행 계획", timestamp=datetime(2026, 3, 1, 9))
    mem.journal.write("아무도 모르는 이야기", timestamp=datetime(2026, 3, 2, 9), private=True)
    qtbot.waitUntil(lambda: backend.idle, timeout=15_000)
    out = tmp_path / "vault"

    dialog = window.export()
    dialog.set_format("md", per_entry=True)
    assert dialog.per_entry.isEnabled() and not dialog.include_private.isChecked()
    dialog.path_edit.setText(str(out))
    dialog.export()
    qtbot.waitUntil(lambda: bool(dialog.written), timeout=15_000)
    [note] = sorted(out.iterdir())
    front = yaml.safe_load(note.read_text("utf-8").split("---\n")[1])
    assert front["date"] == datetime(2026, 3, 1, 9) and front["private"] is False
    said = dialog.result.text()
    assert "비공개 기록 1편" in said and "빼고" in said and str(out) in said
    dialog.format_buttons["txt"].setChecked(True)  # notes are Markdown's: a folder of day files instead
    assert not dialog.per_entry.isEnabled() and dialog.by_day and not dialog.by_entry
    dialog.close()

    # The entry deleted for good comes back from the notes, as it was written.
    mem.journal.trash(kept)
    mem.journal.purge(kept)
    importer = window.import_file()
    importer.path_edit.setText(str(out))
    importer.start()
    qtbot.waitUntil(lambda: importer.outcome is not None, timeout=15_000)
    assert importer.outcome["kind"] == "markdown" and importer.outcome["entries"] == 1
    assert "1편" in importer.result.text()
    assert [e["content"] for e in mem.journal.entries() if not e["private"]] == ["지수랑 [[부산]] #여행 계획"]
    importer.close()


# -- import -------------------------------------------------------------------------------------------


def test_dayone_import_shows_reading_progress_then_memories_being_made_until_done(window, backend, mem,
                                                                                  qtbot, tmp_path):
    path = dayone_zip(tmp_path / "dayone.zip", dayone_entries(3))
    steps = []
    backend.import_progress.connect(lambda done, total: steps.append((done, total)))
    dialog = window.import_file()
    assert isinstance(dialog, ImportDialog)
    dialog.path_edit.setText(str(path))
    dialog.start()
    assert dialog.bar.isVisible()  # the reading shows progress
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=15_000)
    assert steps and steps[-1] == (3, 3)
    assert dialog.outcome["kind"] == "dayone" and dialog.outcome["entries"] == 3
    assert dialog.result.isVisible() and "3" in dialog.result.text()
    assert len(window.batch_panels) == 1
    panel = window.batch_panels[0]
    assert panel.isVisibleTo(window.status)
    qtbot.waitUntil(lambda: panel.state == "done", timeout=30_000)  # the writer drained the batch
    assert panel.progress["done"] == 3 and panel.progress["pending"] == 0
    assert panel.dismiss_button.isVisibleTo(panel) and not panel.stop_button.isVisibleTo(panel)
    assert len(mem.journal.entries()) == 3 and mem.get_all()["results"]
    dialog.close()


def _stopped_import(window, fake_llm, qtbot, tmp_path):
    """An import of six entries whose memory building was stopped: (its dialog, its panel)."""
    fake_llm.on("save_facts", lambda req: slow(0.4, tool({"facts": []})))
    dialog = window.import_file()
    dialog.path_edit.setText(str(dayone_zip(tmp_path / "dayone.zip", dayone_entries(6))))
    dialog.start()
    qtbot.waitUntil(lambda: bool(window.batch_panels), timeout=15_000)
    panel = window.batch_panels[0]
    qtbot.mouseClick(panel.stop_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.state == "stopped", timeout=20_000)
    return dialog, panel


def test_stopping_the_memory_building_keeps_the_entries_and_resume_finishes_it(window, backend, mem, fake_llm,
                                                                             qtbot, tmp_path):
    dialog, panel = _stopped_import(window, fake_llm, qtbot, tmp_path)
    assert panel.progress["cancelled"] > 0 and panel.resume_button.isVisibleTo(panel)
    assert len(mem.journal.entries()) == 6  # the entries stay
    qtbot.mouseClick(panel.resume_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.state == "done", timeout=30_000)
    assert panel.progress["done"] == 6 and panel.progress["cancelled"] == 0
    dialog.close()


def test_a_look_taken_before_resume_was_written_does_not_stop_the_panel(window, backend, mem, fake_llm, qtbot,
                                                                       tmp_path):
    # On a busy machine the panel's regular look at the import can come back after Resume was pressed
    # but read before it was written: it said "stopped", stopped the looking, and the panel hung.
    dialog, panel = _stopped_import(window, fake_llm, qtbot, tmp_path)
    stale = dict(panel.progress)
    qtbot.mouseClick(panel.resume_button, Qt.LeftButton)
    panel._update(stale)  # the late look
    qtbot.waitUntil(lambda: panel.state == "done", timeout=30_000)
    assert panel.progress["done"] == 6
    dialog.close()


def test_without_an_ai_the_panel_says_memories_come_once_one_is_connected(qtbot, tmp_path):
    from memoir_desktop.ui.async_memoir import AsyncMemoir

    bare = Memoir.open(tmp_path / "bare", llm_base_url=None)
    backend = AsyncMemoir(bare)
    try:
        assert not backend.llm_configured
        out = bare.archive.import_file(dayone_zip(tmp_path / "dayone.zip", dayone_entries(2)))
        panel = BatchProgressPanel(backend, out["batch"], out["entries"])
        qtbot.addWidget(panel)
        qtbot.waitUntil(lambda: panel.state == "waiting-for-ai", timeout=10_000)
        assert panel.label.text() == panel.tr(
            "Memories from %n entry(ies) will be made once an AI is connected.", None, 2)
    finally:
        backend.shutdown(5_000)
        bare.close()


def test_a_file_that_is_no_export_is_refused_in_one_sentence(window, mem, qtbot, tmp_path):
    bad = tmp_path / "notes.zip"
    bad.write_bytes(b"not a zip")
    dialog = window.import_file()
    dialog.path_edit.setText(str(bad))
    dialog.start()
    qtbot.waitUntil(lambda: bool(dialog.error_text), timeout=15_000)
    assert "notes.zip" in dialog.error_text and dialog.result.text() == dialog.error_text
    assert dialog.import_button.isEnabled() and window.batch_panels == [] and mem.journal.entries() == []
    dialog.close()


# -- back up and restore ---------------------------------------------------------------------------------


def test_restore_a_backup_closes_restores_and_reopens_the_journal(qapp, qtbot, tmp_path, fake_llm):
    from memoir_desktop.ui.startup.lifecycle import AppLifecycle

    fake_llm.on("save_facts", NO_FACTS)
    home = tmp_path / "home"
    home.mkdir()
    config.save_settings(home, config.Settings(llm_provider="custom", llm_base_url=fake_llm.url,
                                               llm_model="fake-model"))
    lifecycle = AppLifecycle(qapp, home)
    lifecycle.start()
    try:
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window.isVisible(), timeout=30_000)
        window = lifecycle.window
        before = lifecycle.backend.mem.journal.write("백업하기 전에 쓴 일기")
        window.backup_now()
        qtbot.waitUntil(lambda: ".db" in window.status.currentMessage(), timeout=15_000)
        backup = lifecycle.backend.mem.archive.backups()[0]
        assert backup.split("/")[-1] in window.status.currentMessage()  # the message names the backup
        lifecycle.backend.mem.journal.write("백업한 다음에 쓴 일기")

        dialog = window.restore_backup()
        qtbot.waitUntil(lambda: dialog.list.count() >= 1, timeout=15_000)
        assert dialog.paths[0] == backup and dialog.list.currentRow() == 0  # newest first, chosen
        assert " · " in dialog.list.item(0).text()  # a date and a size
        box = dialog.ask()
        box.button(QMessageBox.Yes).click()
        qtbot.waitUntil(lambda: lifecycle.window is not None and lifecycle.window is not window
                        and lifecycle.window.isVisible(), timeout=60_000)
        restored = lifecycle.window
        assert [e["content"] for e in lifecycle.backend.mem.journal.entries()] == ["백업하기 전에 쓴 일기"]
        qtbot.waitUntil(lambda: [b.entry_id for b in restored.journal.chat.bubbles if b.role == "user"] == [before],
                        timeout=15_000)
        assert lifecycle.restored is not None
        kept = lifecycle.restored[1]
        assert (home / kept.split("/")[-1]).exists()  # the journal it replaced is kept
        assert kept in restored.last_message_box.informativeText()
    finally:
        if lifecycle.window is not None:
            lifecycle.window.close()
        assert lifecycle.shutdown()


# -- menus and the status bar ---------------------------------------------------------------------------


def test_each_view_item_and_ctrl_number_opens_its_tab(qapp, window, qtbot):
    pages = [window.journal, window.search, window.memories, window.profile, window.stats, window.graph]
    assert [window.tabs.widget(i) for i in range(window.tabs.count())] == pages
    for i, action in reversed(list(enumerate(window.view_actions))):
        action.trigger()  # `triggered(checked)` must not land in the tab index
        assert window.tabs.currentIndex() == i, action.text()
    window.activateWindow()
    qtbot.waitUntil(lambda: qapp.activeWindow() is window, timeout=15_000)
    qtbot.keyClick(window, Qt.Key_3, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.memories
    qtbot.keyClick(window, Qt.Key_2, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.search
    qtbot.keyClick(window, Qt.Key_6, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.graph
    qtbot.keyClick(window, Qt.Key_N, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.journal
    qtbot.keyClick(window, Qt.Key_F, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.search and window.search.field.hasFocus()


def test_the_status_bar_says_organised_only_when_no_job_waits_or_runs(window, backend, mem, fake_llm, qtbot):
    status = window.status
    organised = status.tr("✓ All entries organized")
    status.set_jobs(0, 1)
    assert status.pending.text() != organised and status.pending.text() == status.tr("✎ Organizing…")

    fake_llm.on("save_facts", lambda req: slow(2.0, tool({"facts": []})))
    mem.journal.write("천천히 정리되는 일기")
    backend.writer.poke()
    qtbot.waitUntil(lambda: mem.jobs.status()["running_jobs"] == 1, timeout=15_000)
    backend.refresh_status()
    qtbot.waitUntil(lambda: status.running_count == 1, timeout=15_000)
    assert status.pending.text() == status.tr("✎ Organizing…")
    qtbot.waitUntil(lambda: status.pending.text() == organised, timeout=20_000)
    assert mem.jobs.status()["running_jobs"] == 0 and mem.jobs.status()["pending_jobs"] == 0


def test_the_search_model_states_read_calmly_and_failures_stay_honest(window):
    status = window.status
    status.set_embedder({"state": "not-loaded"})
    assert status.embedder.text() == status.tr("Getting search ready…")
    status.set_embedder({"state": "ready"})
    assert status.embedder.text() == status.tr("Search ready")
    status.set_embedder({"state": "failed", "message": "no embedding model could be loaded: x"})
    assert status.embedder.text() == status.tr("Search by meaning is off")
    assert "no embedding model could be loaded" in status.embedder.toolTip()
