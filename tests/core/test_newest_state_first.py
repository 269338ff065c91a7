"""A question about now gets the newest version of a state that changed first, even when each
version is its own memory (an import, a model that only ADDs) among everyday memories sharing its
words; a question about the past is not pushed to the new state; the companion's context shows
the change as a change."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.search.context import assemble

KO = [
    ("2024-03-02", "부산 해운대에 산다"),
    ("2024-05-11", "회사에서 마케팅팀으로 옮겼다는 동기 소식을 들었다"),
    ("2024-08-20", "카카오에 입사했다"),
    ("2025-01-15", "담배를 하루에 반 갑씩 피운다"),
    ("2025-03-04", "대전으로 이사해서 혼자 산다"),
    ("2025-04-01", "혼자 영화를 보러 갔다"),
    ("2025-06-09", "부산 여행을 다녀왔다"),
    ("2025-08-30", "네이버로 이직했다"),
    ("2025-10-12", "분당으로 이사했다"),
    ("2025-11-02", "분당 친구 집에 놀러 갔다"),
    ("2026-01-05", "새해부터 담배를 끊었다"),
    ("2026-02-14", "회사 회의가 길어져서 피곤했다"),
    ("2026-06-20", "서울 마포구로 이사했다"),
    ("2026-07-03", "마포구 망원시장에서 장을 봤다"),
    ("2026-08-15", "회사 동료들과 회식을 했다"),
    ("2026-09-01", "매주 금요일에 요가를 한다"),
]
EN = [
    ("2023-04-02", "I live in Queens"),
    ("2023-09-10", "Went to a jazz bar in Queens with Sam"),
    ("2024-02-01", "I work at a bakery in Astoria"),
    ("2024-06-15", "Moved to Jersey City"),
    ("2024-07-04", "Watched the fireworks from the river"),
    ("2025-01-20", "Got a job at a design studio"),
    ("2025-05-05", "Moved to Brooklyn with my sister"),
    ("2025-06-01", "Work was stressful today"),
    ("2025-09-12", "I started dating Alex"),
    ("2026-02-02", "Alex and I broke up"),
    ("2026-03-03", "I have been single since spring and I like it"),
    ("2026-04-10", "Bought a new pair of running shoes"),
]


def _load(mem, rows, user):
    ids = {}
    for day, text in rows:
        res = mem.add(text, infer=False, user_id=user, timestamp=datetime.fromisoformat(day).replace(hour=21))
        ids[text] = res["results"][0]["id"]
    return ids


NOW = datetime(2026, 11, 1, 12)


@pytest.fixture
def journal(mem):
    return mem, _load(mem, KO, "ko"), _load(mem, EN, "en")


def _texts(mem, q, user, limit=5):
    return [h["memory"] for h in mem.search(q, user_id=user, limit=limit, now=NOW)["results"]]


@pytest.mark.parametrize("question", ["요즘 어디 살아?", "지금 어디 살고 있어?", "어디 살아?"])
def test_where_do_i_live_now_lists_the_newest_home_first_and_keeps_the_older_ones(journal, question):
    mem, _, _ = journal
    got = _texts(mem, question, "ko")
    assert got[0] == "서울 마포구로 이사했다", got
    assert "분당으로 이사했다" in got  # the past is kept, below


def test_a_job_question_is_answered_by_the_newest_job_not_by_an_everyday_work_memory(journal):
    mem, _, _ = journal
    got = _texts(mem, "지금 회사 어디 다녀?", "ko")
    assert got[0] == "네이버로 이직했다", got


def test_still_smoking_gets_the_quitting_first(journal):
    mem, _, _ = journal
    assert _texts(mem, "아직도 담배 피워?", "ko")[0] == "새해부터 담배를 끊었다"


@pytest.mark.parametrize("question,newest", [
    ("Where do I live now?", "Moved to Brooklyn with my sister"),
    ("Where do I work these days?", "Got a job at a design studio"),
    ("Am I still dating Alex?", "I have been single since spring and I like it"),
])
def test_english_present_questions_get_the_newest_state(journal, question, newest):
    mem, _, _ = journal
    assert _texts(mem, question, "en")[0] == newest


def test_a_question_about_the_past_is_not_pushed_to_the_new_state(journal):
    mem, _, _ = journal
    got = _texts(mem, "예전에 부산 살 때 어디 살았었지?", "ko", limit=3)
    assert got[0] == "부산 해운대에 산다", got
    assert _texts(mem, "Where did I live in Queens?", "en", limit=3)[0] == "I live in Queens"


def test_the_answer_context_shows_the_change_as_a_change(journal):
    mem, _, _ = journal
    hits = mem.search("요즘 어디 살아?", user_id="ko", limit=8, now=NOW)["results"]
    text = assemble(summary="", profile=[], retrieved=hits, budget=2000).render()
    line = next(x for x in text.splitlines() if "마포구" in x)
    assert "분당으로 이사했다" in line and line.index("분당") < line.index("마포구")  # oldest → newest, one line
    assert "2025-10-12" in line and "2026-06-20" in line


@pytest.mark.parametrize("question,user,answer", [
    ("처음 살던 곳은 어디였지?", "ko", "부산 해운대에 산다"),
    ("분당 오기 전에 어디 살았지?", "ko", "대전으로 이사해서 혼자 산다"),
    ("Where did I live before Brooklyn?", "en", "Moved to Jersey City"),
    ("What was my first job?", "en", "I work at a bakery in Astoria"),
])
def test_a_question_about_an_earlier_version_gets_that_version_first(journal, question, user, answer):
    mem, _, _ = journal
    assert _texts(mem, question, user, limit=3)[0] == answer
