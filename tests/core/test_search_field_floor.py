"""The search field lists nothing for a query with no word of any language, at every journal size
from one line up, Korean and English, also where the journal has short lines ("ㅎㅎ", "^^", "ok")
that are near everything by meaning; a question in the other language still lists its memory."""

from __future__ import annotations

from datetime import datetime

import pytest

LINES = [
    "고양이 보리가 아파서 병원에 데려갔다", "^^", "I started running along the river every morning", "ㅎㅎ 좋다",
    "엄마랑 김장했다", "ok", "Bought a secondhand bike for commuting", "피곤…", "제주도 한 달 살기 계획 중",
    "😴", "My sister Jiwon got engaged", "회사 근처로 이사 갈까 고민 중", "ㅠㅠ", "Made kimchi fried rice again",
    "토익 시험 신청했다", "yay", "친구 결혼식 축가 연습", "lol", "새 노트북 샀다", "Dentist on Thursday, wisdom tooth",
    "요가 매트 주문", ":)", "빨래 개기", "Missed the last train home", "할머니 생신 선물로 스카프", "ㅋㅋ",
    "Watched a documentary about octopuses", "비 와서 우울", "정리정돈 성공", "Finally fixed the leaky faucet",
]
NONSENSE = ["blixtor vamp", "ㄹㅇㄹㅇ", "8842 1937", "qwerty uiop", "쀼쀼뀨", "dolor sit amet", "zzzz", "뚜뤄뛔",
            "xkcdq", "####", "ㅁㄴㅇ ㄹㅎ", "fnord glimp"]


def _journal(mem, n: int, user: str):
    for i, text in enumerate(LINES[:n]):
        mem.add(text, infer=False, user_id=user, timestamp=datetime(2026, 3, 1 + i % 28, 21))
        mem.journal(text, user_id=user, private=True, timestamp=datetime(2026, 3, 1 + i % 28, 21))


@pytest.mark.parametrize("size", [1, 3, 10, 30])
def test_nonsense_lists_nothing_at_any_journal_size(mem, size):
    user = f"u{size}"
    _journal(mem, size, user)
    listed = {q: mem.find(q, user_id=user) for q in NONSENSE}
    assert {q: f for q, f in listed.items() if f["memories"] or f["entries"]} == {}


CROSS = [("자전거 샀던 거", "Bought a secondhand bike for commuting"), ("내 자전거 얘기", "Bought a secondhand bike for commuting"),
         ("언니 약혼 소식", "My sister Jiwon got engaged"), ("문어 다큐", "Watched a documentary about octopuses"),
         ("수도꼭지 고친 날", "Finally fixed the leaky faucet"), ("Did I make kimchi?", "엄마랑 김장했다"),
         ("What about my cat?", "고양이 보리가 아파서 병원에 데려갔다"), ("Am I taking an English test?", "토익 시험 신청했다")]


def test_what_search_ranks_in_the_other_language_the_search_field_lists(mem):
    """The floor's part: a memory in the other language that search() ranks near the top is listed
    too (how well the model ranks it is search()'s part, measured by eval.trust_retrieval)."""
    _journal(mem, 30, "me")
    ranked = 0
    for question, memory in CROSS:
        if memory in [h["memory"] for h in mem.search(question, user_id="me", limit=3)["results"]]:
            ranked += 1
            assert memory in [m["memory"] for m in mem.find(question, user_id="me")["memories"]], question
    assert ranked >= 3  # the test is not empty
