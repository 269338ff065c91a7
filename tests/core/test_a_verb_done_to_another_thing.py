"""A kind of change read from a verb alone is not asked when the question names another thing the
verb is done to (states.asked).

"요즘 쓰는 토너 뭐야?" has 쓰다, which with a phone states the phone a diarist uses; the list of kinds read
it as a question about the phone and put the newest phone line first, above both toners. The
question names what it asks about, the toner; the same holds for "요즘 주로 쓰는 은행이 어디야?" and,
in English, for the noun after what/which ("What bank did I use before…").
"""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.core import dated_journal

ROWS = [
    ("2024-09-20", "갤럭시 S21을 3년째 쓴다"),
    ("2024-10-02", "용돈 받는 통장은 부산은행 거다"),
    ("2024-12-12", "세안하고 나면 아누아 어성초 토너만 쓴다"),
    ("2025-02-08", "동생이 갤럭시 S24를 샀다고 자랑했다"),
    ("2025-04-19", "학교 앞 떡볶이집이 문을 닫았다"),
    ("2025-09-09", "피부가 뒤집어져서 라운드랩 독도 토너로 바꿨다"),
    ("2025-11-11", "토스뱅크로 주거래를 옮기고 부산은행 계좌는 해지했다"),
    ("2026-01-20", "요즘은 어슐러 르 귄 소설에 빠져 있다"),
    ("2026-05-30", "히피펌을 했는데 생각보다 관리가 편하다"),
    ("2026-09-02", "폰 액정이 깨져서 중고 아이폰 15를 사서 쓴다"),
    ("2026-10-05", "기말고사 끝나고 친구들이랑 노래방에 갔다"),
]
NOW = datetime(2026, 11, 20, 12)


@pytest.fixture
def journal(mem):
    return dated_journal.write(mem, ROWS)


@pytest.mark.parametrize(("question", "newest"), [
    ("요즘 쓰는 토너 뭐야?", "피부가 뒤집어져서 라운드랩 독도 토너로 바꿨다"),
    ("요즘 주로 쓰는 은행이 어디야?", "토스뱅크로 주거래를 옮기고 부산은행 계좌는 해지했다"),
    ("요즘 어느 은행 써?", "토스뱅크로 주거래를 옮기고 부산은행 계좌는 해지했다"),  # the noun before the verb
])
def test_the_thing_the_question_names_is_what_it_asks_about(journal, question, newest):
    got = dated_journal.top(journal, question, NOW)
    assert got[0] == newest, got


def test_a_question_about_the_phone_still_gets_the_newest_phone(journal):
    got = dated_journal.top(journal, "요즘 폰 뭐 써?", NOW)
    assert got[0] == "폰 액정이 깨져서 중고 아이폰 15를 사서 쓴다", got


EN_ROWS = [
    ("2024-09-20", "I use a Pixel 6 and it still works fine"),
    ("2024-10-02", "My paycheck goes into my Wells Fargo bank account"),
    ("2025-02-08", "My brother showed off his new Galaxy"),
    ("2025-04-19", "The taco truck by the park closed"),
    ("2025-11-11", "Switched banks: moved my checking to a credit union, Wells Fargo closed"),
    ("2026-01-20", "Reading a lot of Ursula Le Guin these days"),
    ("2026-09-02", "Cracked my screen, so I bought a used iPhone 15 and use that now"),
    ("2026-10-05", "Karaoke with friends after finals"),
]


BEFORE_KO = [
    ("2024-03-09", "새벽마다 남편이 출근길에 시장까지 차로 태워다 준다"),
    ("2024-06-15", "망원동 투룸으로 이사했다"),
    ("2024-09-01", "가게 앞 화분에 국화를 심었다"),
    ("2025-04-12", "중고 스쿠터를 사서 이제 새벽 시장은 혼자 스쿠터로 다닌다"),
    ("2025-09-20", "합정동 아파트로 이사함, 엘리베이터 있는 집이다"),
    ("2025-11-02", "추석에 부모님 댁에서 송편을 빚었다"),
]
BEFORE_EN = [
    ("2024-02-10", "I draw everything on an old iPad Pro with the first Pencil"),
    ("2024-05-18", "Repainted the studio a warm white"),
    ("2024-12-12", "Adopted a rescue cat named Toast"),
    ("2025-03-01", "Got a Wacom Cintiq, so all my drawing happens on that now"),
    ("2025-06-21", "Toast got a new scratching post"),
    ("2025-09-07", "Booked a week in Lisbon for October"),
]


@pytest.mark.parametrize(("rows", "question", "answer"), [
    # "use" with a phone states the phone one has; "What bank…" asks about a bank.
    (EN_ROWS, "What bank did I use before the credit union?", "My paycheck goes into my Wells Fargo bank account"),
    (EN_ROWS, "What phone do I use now?", "Cracked my screen, so I bought a used iPhone 15 and use that now"),
    # Kiwi reads the 사 of "지금 사는 곳" as 사다, so a home is asked by it; "스쿠터 사기 전엔" buys a scooter.
    (BEFORE_KO, "스쿠터 사기 전엔 새벽에 시장 어떻게 갔지?", "새벽마다 남편이 출근길에 시장까지 차로 태워다 준다"),
    # "got" with a cat states a pet; "before I got the Cintiq" asks what came before a tablet.
    (BEFORE_EN, "What did I draw on before I got the Cintiq?", "I draw everything on an old iPad Pro with the first Pencil"),
])
def test_the_thing_a_verb_is_done_to_is_what_is_asked(mem, rows, question, answer):
    dated_journal.write(mem, rows)
    got = dated_journal.top(mem, question, NOW)
    assert got[0] == answer, got
