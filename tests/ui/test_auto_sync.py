"""The rounds the app runs by itself: at start, a few seconds after writing (one round for a burst),
a short one at quit that never holds the quit, a failing one said once in words while the journal keeps
working, and never a user's edit waiting for a round."""

from __future__ import annotations

import re
import threading
import time
from types import SimpleNamespace

import pytest

from memoir_desktop.ui.sync.auto_sync import AutoSync
from tests.ui.conftest import make_window
from tests.ui.sync_homes import join, open_journal, set_sync_url, texts

UNREACHABLE = "webdav://127.0.0.1:9/journal"  # the discard port: nothing answers there


def _quit(backend) -> bool:
    """What the app does once its window closed (AppLifecycle.shutdown): True when all stopped cleanly."""
    from memoir_desktop.ui.startup.lifecycle import AppLifecycle

    return AppLifecycle.shutdown(SimpleNamespace(instance=None, backend=backend))


@pytest.fixture
def mem(tmp_path):
    m = open_journal(tmp_path / "laptop")
    yield m
    m.close()


@pytest.fixture
def folder(tmp_path):
    return str(tmp_path / "Dropbox" / "memoir")


def test_a_round_runs_at_start_and_carries_what_was_written_before(mem, backend, folder, tmp_path, qtbot):
    mem.journal.write("Before memoir opened: rain all afternoon")
    set_sync_url(mem, folder)
    window = make_window(backend, qtbot, tmp_path, wait=False)
    qtbot.waitUntil(lambda: window.sync.last_sync is not None and not window.sync.running, timeout=60_000)
    assert window.sync_label.text() == "⇅ 방금 동기화함"
    desk = join(folder, tmp_path / "desk")
    try:
        assert texts(desk) == ["Before memoir opened: rain all afternoon"]
    finally:
        desk.close()


def test_writing_starts_one_round_a_few_seconds_after_a_burst(mem, backend, folder, tmp_path, qtbot,
                                                               monkeypatch):
    # Long enough that saving three entries on a loaded two-core machine is still inside it: at 800 ms
    # the round had started before the third entry was on disk (a fresh-clone CI run).
    monkeypatch.setattr(AutoSync, "AFTER_WRITE_MS", 3_000)
    set_sync_url(mem, folder)
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: window.sync.last_sync is not None and not window.sync.running, timeout=60_000)
    rounds: list[float] = []
    window.sync.started.connect(lambda: rounds.append(time.monotonic()))
    wrote = time.monotonic()
    for text in ("Morning: coffee on the balcony", "Noon: lunch with Jae", "Evening: a long walk"):
        window.journal.save(text)
        qtbot.wait(150)
    qtbot.waitUntil(lambda: len(mem.journal.entries()) == 3, timeout=60_000)
    assert rounds == []  # not at once: a burst of writes is one round
    qtbot.waitUntil(lambda: bool(rounds) and not window.sync.running, timeout=60_000)
    qtbot.wait(1_500)
    assert len(rounds) == 1 and rounds[0] - wrote >= 3.0
    desk = join(folder, tmp_path / "desk")
    try:
        assert texts(desk) == ["Evening: a long walk", "Morning: coffee on the balcony",
                               "Noon: lunch with Jae"]
    finally:
        desk.close()


def test_a_round_that_cannot_reach_its_place_says_so_once_and_the_journal_keeps_working(
        mem, backend, tmp_path, qtbot):
    set_sync_url(mem, UNREACHABLE)
    said: list[str] = []
    window = make_window(backend, qtbot, tmp_path, wait=False)
    window.status.messageChanged.connect(lambda text: said.append(text) if text else None)
    qtbot.waitUntil(lambda: window.sync.last_error is not None, timeout=60_000)
    sentence = ("동기화 위치에 연결할 수 없습니다: 네트워크 연결과 서버가 켜져 있는지 확인하세요. 잃은 것은 없습니다. "
                "memoir가 몇 분 뒤에 다시 시도합니다.")
    assert window.sync_label.text() == "⇅ 동기화 안 됨: 위치에 연결할 수 없음"
    assert window.sync_label.toolTip() == sentence
    qtbot.waitUntil(lambda: sentence in said, timeout=60_000)
    assert not re.search(r"Error|Exception|MEMOIR_|memoir-cli", " ".join(said))

    window.journal.save("Written while the sync place was away")  # the journal works as before
    qtbot.waitUntil(lambda: texts(mem) == ["Written while the sync place was away"], timeout=60_000)
    window.status.clearMessage()  # the sentence's time is up; a second one would show again
    window.sync.sync_now()  # the next tick: tried again, failed again, not said again
    qtbot.waitUntil(lambda: not window.sync.running, timeout=60_000)
    assert window.sync.last_error is not None and said.count(sentence) == 1

    dialog = window.sync_label  # a click opens Settings → Sync, with the sentence
    from PySide6.QtCore import Qt

    qtbot.mouseClick(dialog, Qt.MouseButton.LeftButton)
    settings = window.settings_dialog
    assert settings.pages.currentWidget().widget().isAncestorOf(settings.sync_page)
    assert settings.sync_page.failure.isVisible() and settings.sync_page.failure.text() == sentence
    settings.reject()


def test_at_quit_a_short_round_sends_what_is_unsent(mem, backend, folder, tmp_path, qtbot, monkeypatch):
    monkeypatch.setattr(AutoSync, "AFTER_WRITE_MS", 600_000)  # only the quit's round sends it
    set_sync_url(mem, folder)
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: window.sync.last_sync is not None and not window.sync.running, timeout=60_000)
    rounds: list[bool] = []
    window.sync.started.connect(lambda: rounds.append(True))
    window.journal.save("The last entry before closing")
    qtbot.waitUntil(lambda: window.sync.unsent and backend.idle, timeout=60_000)
    assert _quit(backend)
    assert rounds == [True]
    desk = join(folder, tmp_path / "desk")
    try:
        assert texts(desk) == ["The last entry before closing"]
    finally:
        desk.close()


def test_nothing_unsent_no_round_at_quit(mem, backend, folder, tmp_path, qtbot):
    set_sync_url(mem, folder)
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: window.sync.last_sync is not None and not window.sync.running, timeout=60_000)
    rounds: list[bool] = []
    window.sync.started.connect(lambda: rounds.append(True))
    assert _quit(backend) and rounds == []  # the quit does not wait for a round with nothing to send


def test_a_round_too_slow_at_quit_does_not_hold_the_quit(mem, backend, folder, tmp_path, qtbot, monkeypatch):
    from memoir_desktop.ui.startup import lifecycle

    monkeypatch.setattr(AutoSync, "AT_QUIT_MS", 500)
    monkeypatch.setattr(lifecycle, "SHUTDOWN_GRACE_MS", 300)
    set_sync_url(mem, folder)
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: window.sync.last_sync is not None and not window.sync.running, timeout=60_000)
    released = threading.Event()
    real_sync = mem.sync.run
    mem.sync.run = lambda *a, **k: released.wait(30) and real_sync(*a, **k)  # a server that hardly answers
    try:
        window.sync.unsent = True
        began = time.monotonic()
        assert not _quit(backend)  # not clean: the app quits anyway (main.py), the next start catches up
        assert window.sync.running and time.monotonic() - began < 2.5
    finally:
        released.set()
        backend.writer._runner.pool.waitForDone(10_000)


def test_a_users_edit_does_not_wait_for_a_round_or_for_the_ai(tmp_path, qtbot, fake_llm):
    """A round waiting on the network and a slow AI each hold a thread; an edit still goes through."""
    from memoir_desktop.ui.async_memoir import AsyncMemoir
    from tests.fakes.fake_llm import slow, tool, user_lines

    mem = open_journal(tmp_path / "laptop", llm_base_url=fake_llm.url, llm_model="fake-model")
    backend = AsyncMemoir(mem)
    released = threading.Event()
    try:
        backend.writer.start()
        eid = mem.journal.write("First draft of the day")
        qtbot.waitUntil(lambda: backend.idle and not mem.jobs.all("pending"), timeout=60_000)
        fake_llm.on("save_facts", lambda req: slow(3.0, tool({"facts": user_lines(req)})))
        set_sync_url(mem, str(tmp_path / "place"))
        mem.sync.run = lambda *a, **k: released.wait(30)
        sync = AutoSync.of(backend)
        sync.sync_now()
        assert sync.running
        mem.journal.write("Something for the AI to read slowly")
        backend.writer.poke()
        qtbot.waitUntil(lambda: backend.writer._draining, timeout=60_000)
        qtbot.wait(300)  # the AI's reply is on its way (3 s), the round waits on its place
        began = time.monotonic()
        edited: list = []
        backend.change(lambda m: m.journal.edit(eid, "Second draft of the day"), edited.append)
        qtbot.waitUntil(lambda: bool(edited), timeout=60_000)
        assert time.monotonic() - began < 1.5 and sync.running and backend.writer._draining
    finally:
        released.set()
        backend.shutdown(15_000)
        mem.close()
