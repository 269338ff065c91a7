"""A question about now is answered by the state it is about, not by what a word of it matches or by
what was written last month.

- "민화 교실 아직 다녀?" shares its verb (다니다) with the diarist's work, a kind of change the list in
  search/states.py names. The work line is far down the ranking (the question is about the painting
  class); moving it up put an unrelated memory first.
- "요즘 성당 미사는 어디서 드려?": "요즘" asks for the state that holds now, which may have been
  written down months ago. Read as "recorded in the last 30 days", it put last month's unrelated
  lines first.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.search.query import Query
from tests.core import dated_journal

NOW = datetime(2026, 11, 1, 23, 30)

CLASS = [
    ("2024-03-04", "판교에 있는 게임회사에 다닌다"),
    ("2025-03-06", "문화원 민화 교실 등록함. 목요일 오전반"),
    ("2025-04-10", "정아 언니도 같이 민화 교실 등록. 언니는 까치호랑이 그리고 싶대"),
    ("2025-09-18", "민화 교실에서 모란도 밑그림 그림"),
    ("2026-02-12", "정아 언니는 민화 계속 다닌다고. 봄 작품전에 모란도 낸대"),
    ("2026-03-05", "손목이 시큰거려서 민화 교실은 이번 학기로 끝냄"),
    ("2026-05-21", "정아 언니 민화 작품전 다녀옴. 언니 모란도가 제일 크게 걸림"),
]

MASS = [
    ("2025-03-02", "주일엔 교동성당 11시 미사 드림"),
    ("2026-04-19", "무릎이 나아서 다시 성당 나감. 이번엔 가까운 조양동 성당 새벽 미사로"),
    ("2026-10-08", "아침 바람이 차서 영감 털모자 하나 사 줌"),
    ("2026-10-12", "뭉치 건강검진. 신장 수치가 조금 내려갔단다"),
    ("2026-10-20", "김장은 올해 스무 포기만. 둘이 먹을 거라"),
    ("2026-10-25", "은솔이가 제주 감귤 한 박스 보내 줌"),
    ("2026-10-30", "손가락 마디가 아파서 우쿨렐레 접음. 요즘은 집에서 색칠 공부 책 칠한다"),
]


def test_a_kind_far_down_the_ranking_is_not_what_is_asked(mem):
    dated_journal.write(mem, CLASS)
    assert dated_journal.top(mem, "민화 교실 아직 다녀?", NOW)[0] == "손목이 시큰거려서 민화 교실은 이번 학기로 끝냄"


def test_these_days_asks_for_the_state_not_for_last_month(mem):
    dated_journal.write(mem, MASS)
    got = dated_journal.top(mem, "요즘 성당 미사는 어디서 드려?", NOW)[0]
    assert got == "무릎이 나아서 다시 성당 나감. 이번엔 가까운 조양동 성당 새벽 미사로", got


@pytest.mark.parametrize("text", ["요즘 어디 살아?", "요새 무슨 운동 해?", "What do I drive these days?"])
def test_a_question_about_now_is_not_a_question_about_last_month(text):
    assert Query.of(text, NOW, None).span is None


@pytest.mark.parametrize("text", ["최근 3개월 동안 읽은 책", "지난달에 뭐 했지?", "최근에 읽은 책", "What did I do last week?"])
def test_a_question_about_a_time_keeps_it(text):
    assert Query.of(text, NOW, None).span is not None

