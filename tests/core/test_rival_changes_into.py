"""A kind of state search/states.py names, with only the older version in its words: "폰은 … 쓴다"
is a phone to the list, "… 아이폰 15로 갈아탔다" is not (갈아타다 is no verb of its). The newer memory shares a rare word with the
older one (rivals.py) and says the diarist changed into something (Korean "-(으)로 + verb"): it is
the newer version and goes first. A newer remark about the same thing ("충전기가 생겼다") changes
into nothing and stays behind the state the list found."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.search import states
from tests.core import dated_journal

ROWS = [
    ("2024-02-11", "핸드폰은 갤럭시 노트20을 3년째 쓰고 있다"),
    ("2024-04-20", "카니발 팔고 전기차 아이오닉으로 갈아탔다"),
    ("2024-06-01", "회사 앞 국밥집 깍두기가 맛있다"),
    ("2024-09-14", "조카 돌잔치에 다녀왔다"),
    ("2025-01-05", "새해 첫 등산은 북한산으로 갔다"),
    ("2025-03-22", "아파트 주차장에 전기차 충전기가 두 대 더 생겼다"),
    ("2025-06-30", "여름휴가로 속초에 다녀왔다"),
    ("2025-11-03", "갤럭시 배터리가 부풀어서 아이폰 15로 갈아탔다"),
    ("2026-02-14", "동생이 결혼 날짜를 잡았다"),
    ("2026-05-09", "점심에 회사 동료들이랑 마라탕을 먹었다"),
]
NOW = datetime(2026, 11, 20, 12)
PHONE_NOW = "갤럭시 배터리가 부풀어서 아이폰 15로 갈아탔다"
CAR = "카니발 팔고 전기차 아이오닉으로 갈아탔다"


@pytest.fixture
def journal(mem):
    return dated_journal.write(mem, ROWS)


def _top(mem, question):
    return dated_journal.top(mem, question, NOW)


def test_the_list_names_the_older_version_only():
    wanted = states.asked("지금 쓰는 핸드폰 기종이 뭐야?", tokenize("지금 쓰는 핸드폰 기종이 뭐야?"))
    named = [text for _, text in ROWS if states.aspect_of(text, tokenize(text), wanted)]
    assert "핸드폰은 갤럭시 노트20을 3년째 쓰고 있다" in named and PHONE_NOW not in named


@pytest.mark.parametrize("question", ["지금 쓰는 핸드폰 기종이 뭐야?", "요즘 무슨 폰 써?"])
def test_the_newer_version_the_list_cannot_name_comes_first(journal, question):
    got = _top(journal, question)
    assert got[0] == PHONE_NOW, got


def test_a_newer_remark_about_the_same_thing_stays_behind(journal):
    got = _top(journal, "지금 타는 차가 뭐야?")
    assert got[0] == CAR, got
