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
        mem.journal.write(text, user_id=user, private=True, timestamp=datetime(2026, 3, 1 + i % 28, 21))


@pytest.mark.parametrize("size", [1, 3, 10, 30])
def test_nonsense_lists_nothing_at_any_journal_size(mem, size):
    user = f"u{size}"
    _journal(mem, size, user)
    listed = {q: mem.search_field.find(q, user_id=user) for q in NONSENSE}
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
            assert memory in [m["memory"] for m in mem.search_field.find(question, user_id="me")["memories"]], question
    assert ranked >= 3  # the test is not empty


# A Korean journal large enough for the floor's big-store rule (30 items and more), varied as a life is.
KOREAN_LIFE = [
    "3월부터 을지로에 있는 디자인 회사에 다닌다", "남동생 민호가 캐나다로 유학을 떠났다", "치즈 케이크 굽는 법을 배웠다",
    "고양이 두부가 중성화 수술을 받았다", "매주 화요일 저녁에 수영을 배운다", "아빠 환갑 잔치를 한정식집에서 했다",
    "전세 계약을 2년 연장했다", "왼쪽 무릎 연골이 찢어져서 정형외과에 다닌다", "친구 수아가 딸을 낳았다",
    "회사 동기들과 속초로 여행을 갔다", "자동차 보험을 갱신했다", "유튜브에 요리 영상을 올리기 시작했다",
    "우울해서 상담을 받기 시작했다", "엄마가 백내장 수술을 받았다", "새로 산 카메라로 벚꽃을 찍었다",
    "팀장이 바뀌어서 분위기가 달라졌다", "적금 만기로 천만 원을 받았다", "일본어 능력시험 N2에 합격했다",
    "할머니가 요양원에 들어가셨다", "층간소음 때문에 윗집과 얘기했다", "남자친구와 3주년 기념으로 제주도에 갔다",
    "커피를 끊고 보리차를 마신다", "퇴근 후에 도자기 공방에 다닌다", "사촌 언니 결혼식에서 부케를 받았다",
    "노트북 화면이 깨져서 수리를 맡겼다", "헌혈을 열 번째로 했다", "동네 마라톤 10킬로를 완주했다",
    "집들이에 친구 여섯 명이 왔다", "회사에서 올해의 신인상을 받았다", "비염 때문에 이비인후과에 갔다",
    "책장 정리를 하고 중고 서점에 책을 팔았다", "주말마다 부모님 가게 일을 돕는다", "운전면허 도로주행에 떨어졌다",
    "조카 돌잔치에 다녀왔다", "베란다에서 방울토마토를 키운다", "연말 정산으로 오십만 원을 돌려받았다",
    "스페인 여행 비행기 표를 예약했다", "교정기를 끼기 시작했다", "대학 동아리 선배가 창업을 했다",
    "밤마다 넷플릭스로 영국 드라마를 본다",
]
ENGLISH_ABOUT_KOREAN = [
    ("Which company do I work for now?", "3월부터 을지로에 있는 디자인 회사에 다닌다"),
    ("Where did my younger brother go to study?", "남동생 민호가 캐나다로 유학을 떠났다"),
    ("What's wrong with my knee?", "왼쪽 무릎 연골이 찢어져서 정형외과에 다닌다"),
    ("Did I pass the Japanese exam?", "일본어 능력시험 N2에 합격했다"),
    ("Where is my grandmother living these days?", "할머니가 요양원에 들어가셨다"),
    ("Did I give up coffee?", "커피를 끊고 보리차를 마신다"),
    ("Have I ever donated blood?", "헌혈을 열 번째로 했다"),
    ("Did I pass my driving test?", "운전면허 도로주행에 떨어졌다"),
    ("What am I growing on the balcony?", "베란다에서 방울토마토를 키운다"),
    ("When is my flight to Spain?", "스페인 여행 비행기 표를 예약했다"),
]
UNRELATED_EN = ["What is the capital of Canada's Yukon territory?", "how to configure a postgres replica",
                "explain the offside rule in hockey", "the chemical formula of table salt",
                "who designed the sistine chapel", "why is the ocean salty", "convert fahrenheit to celsius"]


def _store(mem, user: str, lines: list[str]) -> None:
    for i, text in enumerate(lines):
        mem.add(text, infer=False, user_id=user, timestamp=datetime(2026, 1 + i % 10, 1 + i % 27, 21))


def test_english_questions_about_a_korean_journal_list_their_memory(mem):
    """The floor judged English questions by the Korean questions' minimum similarity, which an English
    question reaches against almost nothing: the field listed 2 of the 9 memories search() ranked here."""
    _store(mem, "ko", KOREAN_LIFE)
    ranked, listed = 0, []
    for question, memory in ENGLISH_ABOUT_KOREAN:
        if memory in [h["memory"] for h in mem.search(question, user_id="ko", limit=3)["results"]]:
            ranked += 1
            listed.append(memory in [m["memory"] for m in mem.search_field.find(question, user_id="ko")["memories"]])
    assert ranked >= 5  # the test is not empty
    # Most, not all: the floor still judges by meaning, and a few true matches score like the rest.
    assert sum(listed) >= 2 * len(listed) / 3, listed


def test_unrelated_questions_list_nothing_in_either_language(mem):
    """Real words about nothing in the journal, in the same language and in the other: the lower
    minimum an English question gets (and a Korean one about English memories) must not let them list.
    (A guard for the per-language-pair floor; eval.trust_retrieval measures it on 30 + 30 questions.)"""
    _store(mem, "ko", KOREAN_LIFE)
    _store(mem, "en", [en for en, _ in ENGLISH_LIFE])
    listed = {(q, u): mem.search_field.find(q, user_id=u)["memories"] for q in UNRELATED_EN for u in ("ko", "en")}
    listed |= {(q, "en"): mem.search_field.find(q, user_id="en")["memories"] for q in UNRELATED_KO}
    leaks = {k: [m["memory"] for m in v] for k, v in listed.items() if v}
    # A Korean question about English memories is the pair this model separates worst
    # (core/search/floor.py): one in ten may still list something.
    assert len(leaks) <= len(listed) // 10, leaks


ENGLISH_LIFE = [(t, None) for t in [
    "I moved to Leeds for a job at a bakery", "My sister Grace had twins in April", "I take the bus to work at 7",
    "Started physiotherapy for my shoulder", "Adopted a rescue greyhound called Biscuit", "I quit sugar in January",
    "Got a parking fine outside the library", "Dad retired from the post office", "Joined a choir on Wednesdays",
    "I'm saving for a deposit on a flat", "Broke my phone screen on the stairs", "Passed my driving theory test",
    "Went to Lisbon with Priya for a long weekend", "My landlord raised the rent by fifty pounds",
    "I'm learning to play the ukulele", "Started a night class in bookkeeping", "Mum's hip operation went well",
    "Ran my first half marathon in Sheffield", "I volunteer at the food bank on Saturdays", "Bought a second-hand sofa",
    "Had food poisoning after a kebab", "My best friend Tom moved to Australia", "I switched to a vegetarian diet",
    "Got promoted to shift supervisor", "Painted the bedroom sage green", "I have a dentist appointment every six months",
    "Lost my wallet at the football match", "Planted roses in the back garden", "Started therapy for anxiety",
    "My cousin Ellie got married in a barn", "I cycle along the canal on Sundays", "Booked a trip to Iceland",
]]
UNRELATED_KO = ["이차방정식 근의 공식", "조선 왕조 계보", "반도체 공정 순서", "블랙홀은 어떻게 생기나", "바둑 규칙",
                "유럽 연합 회원국"]


def test_the_fields_entries_are_listed_by_the_memories_rule(mem):
    """Entries and memories are found by one first stage (search/first_stage.py): a line the field lists
    as a memory for a question in the other language, it lists as an entry too. The entries had a rule
    of their own, without the other-language judging, and listed fewer (field hit@5 on small journals
    46-61 % for entries against 73-80 % for memories, eval.trust_retrieval)."""
    _journal(mem, 30, "me")
    shown = 0
    for question, line in CROSS:
        found = mem.search_field.find(question, user_id="me")
        if line in [m["memory"] for m in found["memories"]]:
            shown += 1
            assert line in [e["content"] for e in found["entries"]], question
    assert shown >= 3  # the test is not empty
