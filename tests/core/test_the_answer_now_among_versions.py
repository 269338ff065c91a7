"""The answer to a question about now is chosen among the best-ranked memories by how versions look
(search/present.py), not taken as the newest line a grouping happened to gather.

"요즘 소설은 어떻게 읽어?" in a journal where reading changed twice (the library, an e-reader, audiobooks)
and the diarist's running is written about too: the grouping of the question's own words
(versions.group) gathered a line about running shoes, the newest of its group, and put it first.
A version of the asked thing has the question's meaning and older versions near it; that line has
neither.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.core import dated_journal

ROWS = [
    ("2023-12-02", "일요일 아침마다 동네 뒷산을 오른다"),
    ("2024-01-13", "주말마다 동네 도서관에서 소설책을 빌려 읽는다"),
    ("2024-03-02", "조카 입학식에 다녀왔다"),
    ("2024-05-19", "회사 근처 칼국수집이 문을 닫았다"),
    ("2024-08-10", "장마라 빨래가 안 마른다"),
    ("2024-11-23", "전자책 리더기를 사서 이제 소설은 전부 전자책으로 읽는다"),
    ("2025-02-08", "독서 모임에서 이번 달 책을 정했다"),
    ("2025-03-15", "무릎이 아파서 등산 대신 실내 자전거를 탄다"),
    ("2025-04-12", "벚꽃 보러 여의도에 갔다"),
    ("2025-06-21", "출퇴근길에 오디오북으로 소설을 듣기 시작했다, 눈이 훨씬 덜 피곤하다"),
    ("2025-09-06", "추석 선물로 한우 세트를 받았다"),
    ("2025-12-24", "크리스마스 이브에 친구들과 케이크를 먹었다"),
    ("2026-03-14", "화이트데이라 초콜릿을 샀다"),
    ("2026-04-18", "요즘은 실내 자전거 대신 한강에서 러닝 크루랑 뛴다"),
    ("2026-05-30", "베란다 화분에 방울토마토가 열렸다"),
    ("2026-08-15", "에어컨 필터를 청소했다"),
    ("2026-09-19", "러닝화 끈이 끊어져서 새로 샀다"),
    ("2026-10-03", "수영장 자유수영 시간이 바뀌었다"),
]
NOW = datetime(2026, 11, 20, 12)
READING = {"주말마다 동네 도서관에서 소설책을 빌려 읽는다", "전자책 리더기를 사서 이제 소설은 전부 전자책으로 읽는다",
           "출퇴근길에 오디오북으로 소설을 듣기 시작했다, 눈이 훨씬 덜 피곤하다"}


@pytest.fixture
def journal(mem):
    return dated_journal.write(mem, ROWS)


@pytest.mark.parametrize("question", ["요즘 소설은 어떻게 읽어?", "지금 책은 주로 뭘로 봐?"])
def test_a_question_about_now_is_answered_by_a_version_of_what_it_asks(journal, question):
    got = dated_journal.top(journal, question, NOW)
    assert got[0] in READING, got
    assert set(got[:3]) & READING and "러닝화 끈이 끊어져서 새로 샀다" != got[0]

