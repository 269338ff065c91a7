"""A version the grouping of versions left out is still a candidate for the answer (present.py).

Where the kinds of change or the rivals grouped some of the best-ranked lines as versions, only those
were weighed for the answer; a grouping often misses the version asked for (it shares fewer of the
question's words: "아파트 커뮤니티 헬스장에서 새벽 6시에 운동한다" for "크로스핏 시작하기 전에는 어디서
운동했어?"), and on the spent blind sets the wanted version was then no candidate for about 30 % of
the questions about now. And a question asked about an elder in honorific ("아빠 지금 뭐 하셔?") has
the elder's honorific lines for its versions (versions.mine): they were read as no version of
anything a Korean question asks. The questions about now here failed before the weights were fitted
with both; the two about the version before fail when only the grouped lines are candidates.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memoir_desktop.core.search import versions
from tests.core import dated_journal

NOW = datetime(2026, 11, 20, 12)

EN_ROWS = [
    ("2024-05-04", "Nine years on the cardiac ward at St Luke's and I'm still doing rotating nights"),
    ("2024-05-20", "Tom's gone back to part-time hours at the garden centre"),
    ("2024-06-11", "Thursday evening netball with the girls from theatre recovery"),
    ("2024-07-02", "Still driving my old Ford Fiesta, the exhaust rattles"),
    ("2024-09-14", "Got my band 6 at last, senior staff nurse"),
    ("2024-11-30", "Work Christmas party at the Italian place on Church Street"),
    ("2025-02-08", "The Fiesta failed its MOT; scrapped it and bought a used Nissan Leaf"),
    ("2025-04-12", "Finally off nights and onto the day rota: long days, 7:30 till 8"),
    ("2025-06-21", "Tom and I did the city half marathon together"),
    ("2025-09-06", "Twisted my knee at netball, so I've packed it in"),
    ("2025-11-15", "Got the practice nurse job at the Elm Road surgery, leaving the ward"),
    ("2025-12-13", "First week at the surgery: Monday to Friday, 8 till 4, weekends off"),
    ("2026-03-21", "Planted tomatoes and beans in the raised beds"),
    ("2026-06-27", "Tom's sister had a baby girl called Ivy"),
    ("2026-09-19", "Most of my clinics are diabetes reviews and baby jabs"),
    ("2026-10-31", "Took the kids trick-or-treating round the close"),
]

KO_ROWS = [
    ("2024-08-03", "아빠는 군산 공장에서 지게차 운전을 하신다"),
    ("2024-08-03", "점심은 늘 회사 구내식당에서 먹는다. 오늘 돈가스 괜찮았음"),
    ("2024-09-14", "퇴근하고 구민체육센터 수영장 저녁반 다닌다"),
    ("2024-11-02", "아빠랑 동네 국밥집에서 저녁 먹었다"),
    ("2025-01-18", "팀장님이 바뀌어서 회의가 짧아졌다"),
    ("2025-03-08", "건강검진에서 콜레스테롤이 높게 나왔다"),
    ("2025-04-12", "콜레스테롤 때문에 구내식당 끊고 현미 도시락 싸 다니기 시작"),
    ("2025-06-21", "아빠가 공장 정년퇴직하시고 집에서 쉬신다"),
    ("2025-08-30", "가을 마라톤 10km 나가서 58분 기록"),
    ("2025-10-11", "수영장은 끊었고 목요일 저녁마다 동네 러닝 크루 따라 뛴다"),
    ("2026-02-07", "아빠가 개인택시 면허를 사서 택시 운전을 시작하셨다"),
    ("2026-05-16", "아빠랑 막국수 먹으러 춘천 다녀왔다"),
    ("2026-09-05", "회사 앞에 샐러드 가게가 새로 생겼다"),
]
KO_CAFE_GYM = KO_ROWS + [
    ("2024-10-19", "아파트 커뮤니티 헬스장에서 새벽 6시에 운동한다"),
    ("2024-12-21", "카페 가면 무조건 아이스 아메리카노에 샷 추가"),
    ("2025-09-20", "잠이 안 와서 카페에선 디카페인 라떼만 마신다"),
    ("2025-12-06", "크로스핏 박스에 등록해서 저녁마다 WOD 하러 간다"),
]


@pytest.mark.parametrize(("rows", "question", "newest"), [
    (EN_ROWS, "What car do I drive now?", "The Fiesta failed its MOT; scrapped it and bought a used Nissan Leaf"),
    (KO_ROWS, "아빠 지금 뭐 하셔?", "아빠가 개인택시 면허를 사서 택시 운전을 시작하셨다"),
    (KO_ROWS, "요즘 무슨 운동 해?", "수영장은 끊었고 목요일 저녁마다 동네 러닝 크루 따라 뛴다"),
])
def test_the_newest_version_comes_first(mem, rows, question, newest):
    got = dated_journal.top(dated_journal.write(mem, rows), question, NOW)
    assert got[0] == newest, got


@pytest.mark.parametrize(("question", "older"), [
    ("크로스핏 시작하기 전에는 어디서 운동했어?", "아파트 커뮤니티 헬스장에서 새벽 6시에 운동한다"),
    ("디카페인 마시기 전에는 카페에서 뭐 마셨어?", "카페 가면 무조건 아이스 아메리카노에 샷 추가"),
])
def test_the_version_before_can_be_one_the_grouping_left_out(mem, question, older):
    got = dated_journal.top(dated_journal.write(mem, KO_CAFE_GYM), question, NOW)
    assert got[0] == older, got


def test_an_elders_line_is_a_version_for_a_question_about_the_elder():
    father = "아빠가 개인택시 면허를 사서 택시 운전을 시작하셨다"
    assert versions.mine(father, "아빠 지금 뭐 하셔?")
    assert not versions.mine(father, "요즘 무슨 일 해?")  # the diarist's own work: the father's is no version
    assert not versions.mine("아버지는 요즘 트로트만 들으신다", "요즘 무슨 음악 들어?")
