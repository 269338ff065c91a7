"""The relevance floor decides what the search field lists; it never takes a memory away from the
API's search() or from the companion's context. A question in another language, or a paraphrase,
shares no word with the journal, so a floor judging by similarities alone cut true memories from
both (English questions about Korean memories lost a third of their hits)."""

from __future__ import annotations

from datetime import datetime

import pytest

NOW = datetime(2026, 11, 1, 12)
JOURNAL = [
    "새우 알레르기가 있다", "치과에서 사랑니를 뽑았다", "허리 디스크 때문에 물리치료를 받는다",
    "고양이 보리와 콩이를 키운다", "남동생 준호가 호주로 워킹홀리데이를 갔다", "매달 월급의 30%를 저축한다",
    "오사카 왕복 항공권을 19만 원에 예약했다", "대개 자정을 넘겨서 잔다", "석촌호수에서 벚꽃 구경을 했다",
    "퇴근 후 일본어 회화 학원에 다닌다", "주말 베이킹 클래스에서 마들렌을 배웠다", "지하철에서 지갑을 잃어버렸다",
    "회사 워크숍으로 가평에 다녀왔다", "선선한 가을이 일 년 중 가장 좋다", "친구들이 집들이 선물로 몬스테라를 줬다",
    "엄마 환갑 잔치를 준비했다", "현우와 한강에서 자전거를 탔다", "매주 토요일 아침에 수영을 한다",
    "새 노트북으로 맥북 에어를 샀다", "팀장님께 보고서 칭찬을 받았다", "할머니 댁에 김장을 도우러 갔다",
    "요즘 넷플릭스 드라마를 몰아 본다", "제주도 올레길을 걸었다", "아이스 아메리카노를 하루 두 잔 마신다",
    "전세 계약을 2년 연장했다", "지수의 결혼식에서 축가를 불렀다", "동네 도서관에서 책을 빌렸다",
    "감기 때문에 이틀 동안 출근을 못 했다", "차를 팔고 대중교통으로 다닌다", "첫 마라톤 10km를 완주했다",
    "베란다에 방울토마토를 심었다", "피아노 학원을 다시 다니기 시작했다",
]
QUESTIONS = [
    ("What food am I allergic to?", "새우 알레르기가 있다"),
    ("When did I get my wisdom tooth pulled?", "치과에서 사랑니를 뽑았다"),
    ("What pets do I have?", "고양이 보리와 콩이를 키운다"),
    ("Which country did my brother go to?", "남동생 준호가 호주로 워킹홀리데이를 갔다"),
    ("몸 아픈 데는 없어?", "허리 디스크 때문에 물리치료를 받는다"),
]


@pytest.fixture
def journal(mem):
    for i, text in enumerate(JOURNAL):
        mem.add(text, infer=False, timestamp=datetime(2026, 1, 1 + i % 28, 21))
    return mem


@pytest.mark.parametrize("question,memory", QUESTIONS)
def test_search_ranks_and_never_drops_a_real_match(journal, question, memory):
    got = [h["memory"] for h in journal.search(question, limit=5, now=NOW)["results"]]
    assert memory in got, got


@pytest.mark.parametrize("question,memory", QUESTIONS[:2])
def test_the_companion_is_given_the_memory_a_question_in_another_language_asks_about(journal, fake_llm,
                                                                                    question, memory):
    journal.companion.chat(question, timestamp=NOW, remember=False)
    answer = [r for r in fake_llm.requests if r.get("_purpose") == "answer"][-1]
    assert memory in str(answer["messages"])
