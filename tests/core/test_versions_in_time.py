"""Which version a question about the past wants: the one in force at the time it names ("2025년
여름에 어디 살았어?": the home moved into before that summer, though nothing was written in it); before the
current one, where lines naming the same person are one version ("전 남친": not the current
boyfriend a month earlier); and a question about someone else ("Where does Sam live now?") is not
a question about the diarist's state."""

from __future__ import annotations

from datetime import datetime

import pytest

ROWS = [
    ("2024-02-11", "ko", "부산 해운대에 산다"),
    ("2025-03-08", "ko", "대전으로 이사해서 혼자 산다"),
    ("2025-10-19", "ko", "분당으로 이사했다. 정자역까지 걸어서 10분"),
    ("2026-06-06", "ko", "서울 마포구로 이사했다"),
    ("2024-05-18", "ko", "민수랑 사귄 지 100일 됐다"),
    ("2025-02-09", "ko", "민수와 헤어졌다. 한참 울었다"),
    ("2025-08-23", "ko", "소개팅에서 만난 도윤이랑 사귀기로 했다"),
    ("2025-12-24", "ko", "크리스마스에 회사 동기들이랑 파티했다"),
    ("2026-05-30", "ko", "도윤이와 상견례를 하고 약혼했다"),
    ("2024-01-10", "en", "I live in a small flat in Leeds"),
    ("2024-06-02", "en", "Sam moved to Boston for a new job"),
    ("2025-03-15", "en", "Moved to Manchester, closer to the office"),
    ("2025-09-20", "en", "Sam lives in Chicago now, in a loft by the river"),
    ("2026-02-11", "en", "Lunch with Sam's sister in town"),
]
NOW = datetime(2026, 11, 1, 12)


@pytest.fixture
def journal(mem):
    for day, user, text in ROWS:
        mem.add(text, infer=False, user_id=user, timestamp=datetime.fromisoformat(day).replace(hour=21))
    return mem


def _texts(mem, question, user, limit=3):
    return [h["memory"] for h in mem.search(question, user_id=user, limit=limit, now=NOW)["results"]]


def test_a_past_time_gets_the_version_in_force_then(journal):
    # Nothing was written about home in the summer of 2025: the move of March still held.
    got = _texts(journal, "2025년 여름에 어디 살았어?", "ko")
    assert got[0] == "대전으로 이사해서 혼자 산다", got


def test_the_one_before_skips_lines_about_the_same_person(journal):
    got = _texts(journal, "전 남친 이름이 뭐였지?", "ko")
    assert "민수" in got[0], got


def test_a_question_about_someone_else_is_not_ordered_as_the_diarists_state(journal):
    hits = journal.search("Where does Sam live now?", user_id="en", limit=5, now=NOW)["results"]
    assert hits and all(h["explain"].get("state") is None for h in hits), [h["memory"] for h in hits]
    # The same question about the diarist is one (its versions are ordered; that Sam's lines are
    # among them is a limit: English has no parse here to tell whose they are).
    mine = journal.search("Where do I live now?", user_id="en", limit=5, now=NOW)["results"]
    assert any(h["explain"].get("state") for h in mine), [h["memory"] for h in mine]
