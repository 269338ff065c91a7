"""The reflection screens: On This Day and follow-ups on today's page, a letter to read, the profile
with its per-kind switches, the new Stats page. Dates are relative to the test's own "today"."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest
from PySide6.QtWidgets import QMessageBox

from memoir_desktop.ui.journal.reflection_cards import FollowUpCard, LetterCard, OnThisDayCard
from tests.ui.conftest import make_window

TODAY = date.today()


@pytest.fixture(autouse=True)
def _today():
    """Today as each test starts: read once at import, it was yesterday for the tests that ran after a
    suite crossed midnight (two failed so)."""
    global TODAY
    TODAY = date.today()


def _cards(journal, kind):
    return [c for c in journal.cards if isinstance(c, kind)]


def _year_ago() -> date:
    try:
        return TODAY.replace(year=TODAY.year - 1)
    except ValueError:
        pytest.skip("no such date a year ago (29 February)")


def _plan(mem) -> str:
    due = TODAY - timedelta(days=2)
    text = f"지수는 {due.year}년 {due.month}월 {due.day}일에 부산으로 이사 간다"
    return mem.add(text, infer=False, timestamp=datetime.combine(TODAY - timedelta(days=9), time(21)))[
        "results"][0]["id"]


def test_today_shows_on_this_day_and_a_follow_up_that_the_next_entry_answers(mem, fake_llm, backend, qtbot,
                                                                               tmp_path):
    fake_llm.on_text(lambda req: "지수 씨 이사는 잘 했나요?" if "gentle question" in req["messages"][0]["content"]
                     else "그랬군요.")
    year_ago = _year_ago()
    mem.journal.write("작년 오늘은 첫눈이 왔다", timestamp=datetime.combine(year_ago, time(9)))
    mid = _plan(mem)
    window = make_window(backend, qtbot, tmp_path)
    journal = window.journal
    qtbot.waitUntil(lambda: bool(_cards(journal, FollowUpCard) and _cards(journal, OnThisDayCard)), timeout=15_000)
    # First in the template's words, then as the companion phrased it.
    qtbot.waitUntil(lambda: [c.question.text() for c in _cards(journal, FollowUpCard)] == ["지수 씨 이사는 잘 했나요?"],
                    timeout=15_000)
    [card] = _cards(journal, FollowUpCard)
    [past] = _cards(journal, OnThisDayCard)
    assert past.buttons[0].text().startswith("1년 전 오늘")

    card.write_button.click()
    assert journal.composer.edit.placeholderText() == "지수 씨 이사는 잘 했나요?"
    journal.composer.edit.setPlainText("응, 이사 잘 끝났대")
    journal.composer.button.click()
    qtbot.waitUntil(lambda: not _cards(journal, FollowUpCard), timeout=15_000)
    qtbot.waitUntil(lambda: backend.idle, timeout=15_000)
    assert mem.reflection.followups() == []
    from sqlmodel import Session

    from memoir_desktop.core.storage.models import FollowUp
    with Session(mem.engine) as s:
        assert s.get(FollowUp, mid).state == "answered"

    _cards(journal, OnThisDayCard)[0].buttons[0].click()
    qtbot.waitUntil(lambda: journal.day == year_ago, timeout=10_000)
    qtbot.waitUntil(lambda: any("첫눈" in b.text for b in journal.chat.bubbles), timeout=10_000)


def test_a_follow_up_shows_at_once_while_the_companion_is_slow_to_phrase_it(mem, fake_llm, backend, qtbot,
                                                                            tmp_path):
    import time as clock

    fake_llm.on_text(lambda req: (clock.sleep(6), "늦은 질문")[1] if "gentle question" in req["messages"][0]["content"]
                     else "응")
    _plan(mem)
    window = make_window(backend, qtbot, tmp_path, wait=False)
    qtbot.waitUntil(lambda: bool(_cards(window.journal, FollowUpCard)), timeout=4_000)
    assert _cards(window.journal, FollowUpCard)[0].question.text().endswith("이사 간다고 했었죠. 어떻게 됐나요?")
    qtbot.waitUntil(lambda: [c.question.text() for c in _cards(window.journal, FollowUpCard)] == ["늦은 질문"],
                    timeout=15_000)


def test_a_follow_up_put_off_is_not_asked_again(mem, backend, qtbot, tmp_path):
    _plan(mem)
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: bool(_cards(window.journal, FollowUpCard)), timeout=15_000)
    _cards(window.journal, FollowUpCard)[0].dismiss_button.click()
    assert not _cards(window.journal, FollowUpCard)
    qtbot.waitUntil(lambda: backend.idle, timeout=10_000)
    assert mem.reflection.followups() == []


def test_last_weeks_letter_is_made_at_start_and_can_be_read(mem, fake_llm, backend, qtbot, tmp_path):
    fake_llm.on_text(lambda req: "지난주에는 한강을 자주 걸었어요." if "reflection letter" in req["messages"][0]["content"]
                     else "응")
    monday = TODAY - timedelta(days=TODAY.weekday() + 7)
    for d in range(3):
        mem.journal.write("한강을 걸었다", timestamp=datetime.combine(monday + timedelta(days=d), time(21)))
    window = make_window(backend, qtbot, tmp_path)
    qtbot.waitUntil(lambda: bool(_cards(window.journal, LetterCard)), timeout=20_000)
    card = next(c for c in _cards(window.journal, LetterCard) if c.letter["source_ref"].startswith("letter:week"))
    card.read_button.click()
    dialog = window.journal.last_dialog
    assert "지난주에는 한강을 자주 걸었어요." in dialog.body.toPlainText()
    assert "한 주의 편지" in dialog.body.toPlainText()
    dialog.close()


def test_the_profile_groups_memories_and_switching_a_kind_off_forgets_them_with_undo(mem, backend, qtbot,
                                                                                      tmp_path):
    for text in ("동생 지수는 대학생이다", "엄마는 부산에 산다", "회사에서 리드를 맡았다"):
        mem.add(text, infer=False)
    window = make_window(backend, qtbot, tmp_path)
    window.tabs.setCurrentWidget(window.profile)
    page = window.profile
    qtbot.waitUntil(lambda: len(page.rows) == 3, timeout=10_000)
    people = next(g for g in page.groups if g["category"] == "people")
    assert sorted(m["memory"] for m in people["memories"]) == ["동생 지수는 대학생이다", "엄마는 부산에 산다"]

    page.switches["people"].setChecked(False)
    qtbot.waitUntil(lambda: page.last_box is not None and page.last_box.isVisible(), timeout=5_000)
    forget = next(b for b in page.last_box.buttons() if page.last_box.buttonRole(b) == QMessageBox.DestructiveRole)
    forget.click()
    qtbot.waitUntil(lambda: len(mem.get_all()["results"]) == 1, timeout=10_000)
    assert mem.settings.not_remembered == ["people"]
    qtbot.waitUntil(lambda: page.bar.isVisible(), timeout=5_000)
    page.bar.button.click()  # Undo
    qtbot.waitUntil(lambda: len(mem.get_all()["results"]) == 3, timeout=10_000)

    row = next(r for r in page.rows.values() if r.memory["memory"] == "회사에서 리드를 맡았다")
    row.edit_button.click()
    row.editor.setText("회사에서 새 프로젝트 리드를 맡았다")
    row.edit_button.click()
    qtbot.waitUntil(lambda: "회사에서 새 프로젝트 리드를 맡았다" in [m["memory"] for m in mem.get_all()["results"]],
                    timeout=10_000)


def test_stats_show_the_writing_calendar_streak_and_weeks(mem, backend, qtbot, tmp_path):
    for d in range(3):
        mem.journal.write("오늘도 한강 산책", timestamp=datetime.combine(TODAY - timedelta(days=d), time(8)))
    window = make_window(backend, qtbot, tmp_path)
    window.tabs.setCurrentWidget(window.stats)
    page = window.stats
    qtbot.waitUntil(lambda: page.data.entries == 3, timeout=10_000)
    assert page.data.streak == 3 and "3일 연속으로 씀" in page.streak.text()
    assert sum(page.calendar.days.values()) == 3
    assert sum(page.data.entries_per_week) == 3
    ticks = page.entries_plot.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert ticks[-1][1] == f"{page.data.week_starts[-1].month}/{page.data.week_starts[-1].day}"
    assert page.mood_plot.isHidden()  # mood notes are off by default


def test_stats_show_the_mood_once_mood_notes_are_on(mem, fake_llm, backend, qtbot, tmp_path):
    from tests.fakes.fake_llm import tool, user_lines

    fake_llm.on("save_facts", lambda req: tool({"facts": [{"text": t, "category": "events"}
                                                          for t in user_lines(req)], "mood": "great"}))
    mem.settings.mood_tracking = True
    mem.journal.write("최고의 하루였다", timestamp=datetime.combine(TODAY, time(8)))
    mem.jobs.process()
    window = make_window(backend, qtbot, tmp_path)
    window.tabs.setCurrentWidget(window.stats)
    qtbot.waitUntil(lambda: window.stats.data.has_moods, timeout=10_000)
    assert window.stats.data.mood_per_week[-1] == 5.0 and not window.stats.mood_plot.isHidden()


def test_the_daily_reminder_is_set_in_settings_and_comes_once_unless_today_is_written(window, backend, mem,
                                                                                       qtbot):
    import json

    dialog = window.open_settings()
    assert not dialog.reminder_time.isEnabled()
    dialog.reminder_enabled.setChecked(True)
    from PySide6.QtCore import QTime
    dialog.reminder_time.setTime(QTime(21, 30))
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.accept()
    saved = json.loads((mem.home / "settings.json").read_text("utf-8"))
    assert (saved["reminder_enabled"], saved["reminder_time"], saved["start_in_tray"]) == (True, "21:30", False)
    qtbot.waitUntil(lambda: backend.settings.reminder_enabled, timeout=10_000)
    assert window.reminders.timer.isActive()

    tray = window.reminders
    tray.check(datetime.combine(TODAY, time(21, 0)))
    qtbot.waitUntil(lambda: backend.idle, timeout=5_000)
    assert tray.last_message is None  # not yet its time
    with qtbot.waitSignal(tray.reminded, timeout=5_000) as said:
        tray.check(datetime.combine(TODAY, time(21, 31)))
    assert said.args == ["오늘 하루는 어땠나요? 몇 줄이면 충분해요."]
    assert window.status.currentMessage() == said.args[0]
    tray.last_message, tray.last_reminded = None, None
    mem.journal.write("오늘은 일찍 썼다")
    tray.check(datetime.combine(TODAY, time(21, 45)))
    qtbot.waitUntil(lambda: backend.idle, timeout=5_000)
    assert tray.last_message is None  # today is written: no reminder


def test_a_pet_is_filed_under_a_heading_that_names_pets(qapp):
    """The rules put 고양이 보리 with the people, under a heading that said only "사람"."""
    from memoir_desktop.core.pipeline.categories import categorize
    from memoir_desktop.ui.reflection.profile_page import category_name

    assert categorize("고양이 보리를 키운다") == categorize("I walk my dog every morning ") == "people"
    assert "반려동물" in category_name("people")
