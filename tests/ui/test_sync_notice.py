"""An entry edited on two computers before they synced: one quiet notice above the journal page, told
once; Show opens the entry's day and its history (where the other version is); Dismiss keeps it away."""

from __future__ import annotations

import pytest

from memoir_desktop.ui.sync.conflict_notice import ConflictNoticeCard
from tests.ui.conftest import make_window
from tests.ui.sync_homes import join, open_journal, set_sync_url

LAPTOP_TEXT = "Dinner with Jae at the noodle place; we talked about moving to Busan"
DESK_TEXT = "Dinner with Jae, then a long walk by the river"


@pytest.fixture
def folder(tmp_path):
    return str(tmp_path / "Dropbox" / "memoir")


@pytest.fixture
def mem(tmp_path, folder):
    """The laptop, whose entry was also edited on the desk before the two synced."""
    laptop = open_journal(tmp_path / "laptop")
    eid = laptop.journal.write("Dinner with Jae at the noodle place")
    laptop.sync.run(folder)
    desk = join(folder, tmp_path / "desk")
    laptop.journal.edit(eid, LAPTOP_TEXT)
    desk.journal.edit(desk.journal.entries()[0]["id"], DESK_TEXT)
    desk.sync.run()  # the desk's edit reaches the place first: the laptop meets it in its next round
    desk.close()
    yield laptop
    laptop.close()


def _cards(window) -> list[ConflictNoticeCard]:
    return [c for c in window.journal.cards if isinstance(c, ConflictNoticeCard)]


def _shown(window) -> list[ConflictNoticeCard]:
    return [c for c in window.journal.findChildren(ConflictNoticeCard) if c.isVisibleTo(window)]


def test_the_notice_is_told_once_and_dismissing_it_keeps_it_away(mem, backend, tmp_path, qtbot):
    window = make_window(backend, qtbot, tmp_path, wait=False)  # the round at start meets the other edit
    qtbot.waitUntil(lambda: len(_shown(window)) == 1, timeout=60_000)
    told = ("한 기록이 동기화되기 전에 두 컴퓨터에서 각각 고쳐졌습니다. 두 버전 모두 남아 있습니다: "
            "하나는 지금 보이고, 다른 하나는 그 기록의 바뀐 내역에 있습니다.")
    assert _shown(window)[0].message.text() == told
    assert [n.entry_id for n in mem.sync.status().notices] == [mem.journal.entries()[0]["id"]]

    window.sync.sync_now()  # another round: still the one notice, not a second
    qtbot.waitUntil(lambda: not window.sync.running and backend.idle, timeout=60_000)
    qtbot.wait(200)
    assert len(_shown(window)) == 1 and len(_cards(window)) == 1
    assert len(_shown(window)[0].notices) == 1 and _shown(window)[0].message.text() == told

    _shown(window)[0].dismiss_button.click()
    assert _shown(window) == []
    qtbot.waitUntil(lambda: mem.sync.status().notices == [], timeout=60_000)
    window.sync.sync_now()
    qtbot.waitUntil(lambda: not window.sync.running and backend.idle, timeout=60_000)
    window.journal.show_today()  # the page drawn again, the notice seen
    qtbot.waitUntil(lambda: backend.idle, timeout=60_000)
    qtbot.wait(200)
    assert _shown(window) == [] and mem.sync.status().notices == []


def test_show_opens_the_entrys_day_and_its_history_with_the_other_version(mem, backend, tmp_path, qtbot):
    window = make_window(backend, qtbot, tmp_path, wait=False)
    qtbot.waitUntil(lambda: len(_shown(window)) == 1, timeout=60_000)
    _shown(window)[0].show_button.click()
    qtbot.waitUntil(lambda: window.journal.last_dialog is not None and bool(window.journal.last_dialog.rows),
                    timeout=60_000)
    history = window.journal.last_dialog
    text = history.timeline.toPlainText()
    assert "두 컴퓨터에서 고침: 두 버전 모두 남김" in text and "다른 버전:" in text
    # The edit stamped last (here the laptop's, stamped by the round that met the desk's) is the entry's
    # text; the other is kept whole in the history.
    assert mem.journal.entries()[0]["content"] == LAPTOP_TEXT
    conflict = next(r for r in history.rows if r["event"] == "CONFLICT")
    assert conflict["old_content"] == DESK_TEXT and DESK_TEXT in text
    assert any(b.entry_id == mem.journal.entries()[0]["id"] for b in window.journal.chat.bubbles)
    qtbot.waitUntil(lambda: mem.sync.status().notices == [], timeout=60_000)  # shown is seen
    assert _shown(window) == []
    history.reject()


def test_a_journal_that_never_synced_shows_no_notice_and_writes_nothing_to_read_it(tmp_path, qtbot):
    from sqlalchemy import inspect

    from memoir_desktop.ui.async_memoir import AsyncMemoir

    plain = open_journal(tmp_path / "never")
    set_sync_url(plain, "")
    backend = AsyncMemoir(plain)
    try:
        window = make_window(backend, qtbot, tmp_path)
        assert window.sync_label.isHidden() and _shown(window) == []
        assert "sync_state" not in inspect(plain.engine).get_table_names()  # the status read made no table
    finally:
        backend.shutdown(10_000)
        plain.close()


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_notice_shows_all_its_words_in_a_narrow_journal(language, qtbot):
    from types import SimpleNamespace

    from memoir_desktop.ui.shared import i18n
    from tests.ui.layout_check import clipped

    i18n.install(language)
    try:
        for notices in ([SimpleNamespace(id="a", entry_id=1)],
                        [SimpleNamespace(id="a", entry_id=1), SimpleNamespace(id="b", entry_id=2)]):
            card = ConflictNoticeCard(notices)
            qtbot.addWidget(card)
            card.resize(420, card.heightForWidth(420))
            card.show()
            qtbot.waitExposed(card)
            assert clipped(card) == [], (language, card.message.text())
    finally:
        i18n.install("ko")
