"""A line the kinds of change read as a version by a thing and a verb alone is no version of what the
question asks when it is about something else: "집 앞 어린이집으로 옮겼다" (집 + 옮기다: a child's nursery
changed) is no home of mother's. Before, such a line, being the newest, went first, and the real newest
version was moved down to its place (search/state_order.py, versions.ABOUT)."""

from datetime import datetime

import pytest

from tests.core.dated_journal import top, write

NOW = datetime(2026, 11, 20, 12)

MOTHER = [
    ("2024-04-06", "엄마는 전주 효자동 아파트에 혼자 사신다. 주말마다 전화 드림."),
    ("2024-06-01", "서윤이 돌잔치 했다. 돌잡이로 마이크 잡음."),
    ("2024-09-14", "추석에 전주 내려가서 엄마랑 한옥마을 걸었다."),
    ("2025-02-22", "우리 세종 아름동 아파트로 이사했다. 서윤이 방이 처음 생김."),
    ("2025-05-10", "회사 체육대회에서 줄다리기 이겼다."),
    ("2025-09-20", "엄마가 전주 집 정리하시고 우리 단지 앞 빌라로 이사 오셨다."),
    ("2026-01-03", "새해 첫날 가족이랑 금강 산책."),
    ("2026-03-07", "서윤이 감기 때문에 일주일 내내 밤잠 설쳤다."),
    ("2026-08-29", "어린이집 차량이 없어져서 서윤이를 집 앞 어린이집으로 옮겼다."),
    ("2026-10-17", "동네 도서관 독서 모임에 처음 나가봄."),
]


@pytest.mark.parametrize(("rows", "question", "answer"), [
    (MOTHER, "엄마 지금 어디 사셔?", "엄마가 전주 집 정리하시고 우리 단지 앞 빌라로 이사 오셨다."),
])
def test_a_line_about_something_else_is_no_newer_version(mem, rows, question, answer):
    got = top(write(mem, rows), question, NOW, limit=3)
    assert got[0] == answer, got
