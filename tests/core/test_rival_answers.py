"""Rival answers (search/rivals.py): the memories ranked together at the top that share a word few
memories have are versions of one particular thing; a question about now gets the newest first,
one about the first time the oldest. Kinds of change that search/states.py has no words for: a
shampoo, running shoes, a board game night's venue."""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.lexical import tokenize
from memoir_desktop.core.search import states

ROWS = [
    ("2024-03-02", "두피가 예민해서 닥터포헤어 샴푸를 쓰기 시작했다"),
    ("2024-05-19", "회사 동기들이랑 보드게임 모임을 만들었다, 매달 둘째 토요일 홍대 '레드버튼'에서"),
    ("2024-07-07", "I run in Brooks Ghost shoes, size 10"),
    ("2024-09-30", "친구가 생일 선물로 향수를 줬다"),
    ("2025-01-12", "닥터포헤어가 너무 건조해서 려 자양윤모 샴푸로 바꿨다"),
    ("2025-02-08", "My knee hurt after the long run on Sunday"),
    ("2025-04-26", "보드게임 모임은 레드버튼이 문을 닫아서 합정 '더지니어스'로 옮겼다"),
    ("2025-06-14", "The Ghost soles wore out, so I got Hoka Clifton 9s instead"),
    ("2025-08-03", "엄마가 김장 김치를 보내 주셨다"),
    ("2025-10-11", "Bought a new water bottle for the gym"),
    ("2026-02-22", "려 샴푸는 향이 세서 요즘은 아베다 샴푸를 쓴다"),
    ("2026-05-09", "더지니어스 주인이 바뀌면서 보드게임 모임은 회사 회의실에서 한다"),
    ("2026-07-01", "The Hoka pair is great for long runs; I also use Nike Pegasus for short ones"),
    ("2026-09-05", "오늘 회의실 예약을 잘못해서 팀장님께 혼났다"),
]
NOW = datetime(2026, 11, 20, 12)


@pytest.fixture
def journal(mem):
    for day, text in ROWS:
        mem.add(text, infer=False, user_id="me", timestamp=datetime.fromisoformat(day).replace(hour=21))
    return mem


def _top(mem, question, limit=5):
    return [h["memory"] for h in mem.search(question, user_id="me", limit=limit, now=NOW)["results"]]


def test_the_list_has_no_words_for_these_kinds():
    for question in ("요즘 무슨 샴푸 써?", "보드게임 모임은 지금 어디서 해?", "What running shoes do I wear?"):
        wanted = states.asked(question, tokenize(question))
        assert not [text for _, text in ROWS if states.aspect_of(text, tokenize(text), wanted)], question


@pytest.mark.parametrize("question,newest", [
    ("요즘 무슨 샴푸 써?", "려 샴푸는 향이 세서 요즘은 아베다 샴푸를 쓴다"),
    ("보드게임 모임은 지금 어디서 해?", "더지니어스 주인이 바뀌면서 보드게임 모임은 회사 회의실에서 한다"),
    ("What running shoes do I wear these days?",
     "The Hoka pair is great for long runs; I also use Nike Pegasus for short ones"),
])
def test_a_question_about_now_gets_the_newest_rival_first(journal, question, newest):
    got = _top(journal, question)
    assert got[0] == newest, got


def test_a_question_about_the_first_time_gets_the_oldest_rival(journal):
    got = _top(journal, "처음 보드게임 모임 하던 곳이 어디였지?", limit=3)
    assert got[0] == "회사 동기들이랑 보드게임 모임을 만들었다, 매달 둘째 토요일 홍대 '레드버튼'에서", got


def test_a_question_in_the_past_tense_keeps_the_ranking(journal):
    # 걸렸어 is past tense (a syllable list missed 렸): no newer rival is put before the answer.
    got = _top(journal, "닥터포헤어 샴푸 처음 썼을 때 두피는 어땠어?", limit=3)
    assert got[0] == "두피가 예민해서 닥터포헤어 샴푸를 쓰기 시작했다", got


# The rule itself, on a ranking as the stages before it leave one (the phone's two versions ranked
# first and second, the older first: what a blind set showed for "지금 쓰는 핸드폰 기종이 뭐야?").

def _ranked(rows: list[tuple[str, str, float]]):
    from memoir_desktop.core.lexical.bm25 import BM25Index

    bm = BM25Index()
    filler = [f"평범한 하루였다 {n}번째" for n in range(40)]  # a journal, so that 갤럭시 is a rare word
    bm.add_many([(f"f{n}", text) for n, text in enumerate(filler)])
    out = []
    for n, (day, text, cosine) in enumerate(rows):
        bm.add(f"m{n}", text)
        out.append({"id": f"m{n}", "memory": text, "created_at": f"{day}T21:00:00",
                    "explain": {"dense": {"score": cosine}}})
    return out, bm


PHONES = [("2024-12-15", "폰은 갤럭시 S21을 4년째 쓰는 중", 0.90),
          ("2026-02-20", "갤럭시 액정이 깨져서 아이폰 16으로 갈아탔다", 0.88),
          ("2026-11-18", "조카가 요즘 '싫어'를 입에 달고 산다", 0.86)]


def test_two_versions_at_the_top_put_the_newest_first_for_a_question_about_now():
    from memoir_desktop.core.search import rivals

    out, bm = _ranked(PHONES)
    got = rivals.reorder("지금 쓰는 핸드폰 기종이 뭐야?", True, False, out, bm)
    assert [d["memory"] for d in got] == [PHONES[1][1], PHONES[0][1], PHONES[2][1]]


def test_the_first_time_gets_the_oldest_and_a_past_question_keeps_the_ranking():
    from memoir_desktop.core.search import rivals

    out, bm = _ranked(list(reversed(PHONES[:2])))
    assert rivals.reorder("처음 쓰던 폰이 뭐였지?", False, False, out, bm)[0]["memory"] == PHONES[0][1]
    out, bm = _ranked(PHONES)
    assert rivals.reorder("갤럭시 쓸 때 배터리가 얼마나 갔어?", False, False, out, bm) == out


def test_a_rare_word_shared_by_a_memory_about_something_else_makes_no_rival():
    from memoir_desktop.core.search import rivals

    rows = [PHONES[0], ("2026-09-01", "동생이 갤럭시 광고 모델 이야기를 했다", 0.80)]  # far in meaning
    out, bm = _ranked(rows)
    assert rivals.reorder("지금 쓰는 핸드폰 기종이 뭐야?", True, False, out, bm) == out


@pytest.mark.parametrize("question", ["조깅 동호회에서 10km 달렸을 때 시간이 얼마나 걸렸어?",
                                      "친구 결혼식에서 부케 잡은 적 있지?"])
def test_a_korean_question_in_the_past_or_about_an_experience_is_not_about_now(question):
    from memoir_desktop.core.temporal.present import asks_about_now

    assert not asks_about_now(question)  # 걸렸어: 걸리 + 었 (a list of syllables missed 렸); 잡은 적
